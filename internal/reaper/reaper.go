// Package reaper is the resource reaper testcontainers-go starts beside every test session
// (the role of its "ryuk" image), written here because these machines reach no image
// registry and the Go module proxy does not serve ryuk's source: scripts/cassandra builds it
// into the image name testcontainers-go asks for (docs/containers.md).
//
// It speaks the protocol testcontainers-go's reaper client speaks: a client connects over
// TCP and sends lines of filters, "label=KEY=VALUE&label=KEY2=VALUE2\n", each answered by
// "ACK\n". While any client that sent a filter stays connected nothing happens. When the last one has gone and
// none comes back within the reconnection timeout (or none ever came within the connection
// timeout), the reaper removes every container (with its anonymous volumes), network,
// volume and image that matches any filter it was sent, and exits. That is what removes a
// test's containers when the test binary dies without cleaning up.
package reaper

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// Filter is one line a client sent: Docker filter names (only "label" from testcontainers)
// to their values, all of which a resource must match.
type Filter map[string][]string

// ParseFilter reads one line of the protocol, "label=a=b&label=c=d".
func ParseFilter(line string) (Filter, error) {
	line = strings.TrimRight(line, "\r\n")
	q, err := url.ParseQuery(line)
	if err != nil {
		return nil, fmt.Errorf("filter %q: %w", line, err)
	}
	if len(q) == 0 {
		return nil, fmt.Errorf("filter %q: no filters", line)
	}
	f := Filter{}
	for k, vs := range q {
		for _, v := range vs {
			if k == "" || v == "" {
				return nil, fmt.Errorf("filter %q: want name=value pairs joined by &", line)
			}
			f[k] = append(f[k], v)
		}
	}
	return f, nil
}

// String is the filter in the protocol's form, its parts in a stable order.
func (f Filter) String() string {
	var parts []string
	for k, vs := range f {
		for _, v := range vs {
			parts = append(parts, k+"="+v)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "&")
}

// Config is what the reaper waits for.
type Config struct {
	// ConnectTimeout: with no client connected in this time after the start, the reaper
	// reaps what it was told (nothing, then) and exits.
	ConnectTimeout time.Duration
	// ReconnectTimeout: how long after the last client left a new one may still come.
	ReconnectTimeout time.Duration
	// Logf reports connections and filters; nil is silent.
	Logf func(format string, args ...any)
}

// Serve accepts clients on ln until the timeouts of cfg say the session is over, and returns
// the distinct filters the clients sent, for the caller to reap. It closes ln.
func Serve(ctx context.Context, ln net.Listener, cfg Config) []Filter {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var (
		mu      sync.Mutex
		filters = map[string]Filter{}
		clients int
	)
	events := make(chan int, 16) // +1 a client came, -1 it left
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				// A connection counts as a client from its first filter on: a port probe
				// (testcontainers checks the published port before it connects) that
				// sends nothing must not start the reconnection timeout.
				counted := false
				defer func() {
					if counted {
						events <- -1
					}
				}()
				defer conn.Close()
				logf("client %s connected", conn.RemoteAddr())
				r := bufio.NewReader(conn)
				for {
					line, err := r.ReadString('\n')
					if strings.TrimSpace(line) != "" {
						f, perr := ParseFilter(line)
						if perr != nil {
							logf("%v", perr)
							return
						}
						mu.Lock()
						filters[f.String()] = f
						mu.Unlock()
						if !counted {
							counted = true
							events <- +1
						}
						logf("reaping %s when the session ends", f)
						if _, werr := io.WriteString(conn, "ACK\n"); werr != nil {
							return
						}
					}
					if err != nil {
						logf("client %s left", conn.RemoteAddr())
						return
					}
				}
			}()
		}
	}()
	timer := time.NewTimer(cfg.ConnectTimeout)
	defer timer.Stop()
wait:
	for {
		select {
		case <-ctx.Done():
			break wait
		case d := <-events:
			clients += d
			timer.Stop()
			if clients == 0 {
				timer.Reset(cfg.ReconnectTimeout)
			}
		case <-timer.C:
			if clients == 0 {
				break wait
			}
		}
	}
	ln.Close()
	mu.Lock()
	defer mu.Unlock()
	out := make([]Filter, 0, len(filters))
	keys := make([]string, 0, len(filters))
	for k := range filters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, filters[k])
	}
	return out
}
