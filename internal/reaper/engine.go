package reaper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Socket is the engine's Unix socket as the docker CLI finds it: the path DOCKER_HOST names
// when it is a unix:// address, else /var/run/docker.sock. getenv is os.Getenv.
func Socket(getenv func(string) string) string {
	if h := getenv("DOCKER_HOST"); strings.HasPrefix(h, "unix://") {
		return strings.TrimPrefix(h, "unix://")
	}
	return "/var/run/docker.sock"
}

// Engine is the Docker Engine API over its Unix socket: the few calls reaping needs.
type Engine struct {
	client *http.Client
}

// NewEngine talks to the engine at the Unix socket path.
func NewEngine(socket string) *Engine {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", socket)
	}}
	return &Engine{client: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// call sends one request; a status of 300 or more is an error carrying the engine's message,
// except 404 (already gone), which is not an error for a reaper.
func (e *Engine) call(ctx context.Context, method, path string, q url.Values, out any) error {
	u := "http://docker" + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return err
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil
	case resp.StatusCode >= 300:
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, body)
	case out != nil:
		return json.Unmarshal(body, out)
	}
	return nil
}

// Removed counts what Reap removed.
type Removed struct{ Containers, Networks, Volumes, Images int }

// kinds are the resources reaped, in an order that frees each before the next needs it:
// containers hold networks, volumes and images.
var kinds = []struct {
	name, list, remove, idField string
	extra                       url.Values
}{
	{"container", "/containers/json", "/containers/", "Id", url.Values{"all": {"1"}}},
	{"network", "/networks", "/networks/", "Id", nil},
	{"volume", "/volumes", "/volumes/", "Name", nil},
	{"image", "/images/json", "/images/", "Id", nil},
}

// Reap removes every resource that matches f: containers forced and with their anonymous
// volumes, then networks, volumes and images. It goes on past a failure and returns them all.
func (e *Engine) Reap(ctx context.Context, f Filter) (Removed, error) {
	var r Removed
	var errs []error
	fj, err := json.Marshal(map[string][]string(f))
	if err != nil {
		return r, err
	}
	counts := []*int{&r.Containers, &r.Networks, &r.Volumes, &r.Images}
	for i, k := range kinds {
		q := url.Values{"filters": {string(fj)}}
		for key, v := range k.extra {
			q[key] = v
		}
		var items []map[string]any
		if k.name == "volume" {
			var v struct{ Volumes []map[string]any }
			err = e.call(ctx, http.MethodGet, k.list, q, &v)
			items = v.Volumes
		} else {
			err = e.call(ctx, http.MethodGet, k.list, q, &items)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("list %ss: %w", k.name, err))
			continue
		}
		for _, it := range items {
			id, _ := it[k.idField].(string)
			rq := url.Values{"force": {"1"}}
			if k.name == "container" {
				rq.Set("v", "1")
			}
			if err := e.call(ctx, http.MethodDelete, k.remove+url.PathEscape(id), rq, nil); err != nil {
				errs = append(errs, fmt.Errorf("remove %s %s: %w", k.name, id, err))
				continue
			}
			*counts[i]++
		}
	}
	return r, errors.Join(errs...)
}
