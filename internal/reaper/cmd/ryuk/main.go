// Command ryuk is the reaper of package reaper as a program, for the image testcontainers-go
// starts (scripts/cassandra image builds it). Its settings are those testcontainers-go passes
// to the reaper container: RYUK_PORT (8080), RYUK_CONNECTION_TIMEOUT (1m),
// RYUK_RECONNECTION_TIMEOUT (10s), RYUK_VERBOSE; and DOCKER_HOST when it names a unix socket
// (/var/run/docker.sock otherwise).
package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/cqlsize/cqlsize/internal/reaper"
)

func main() {
	if err := run(); err != nil {
		log.Printf("reaper: %v", err)
		os.Exit(1)
	}
}

func duration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 10s", name, v)
	}
	return d, nil
}

func run() error {
	port := 8080
	if v := os.Getenv("RYUK_PORT"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p <= 0 || p > 65535 {
			return fmt.Errorf("RYUK_PORT=%q: want a port number", v)
		}
		port = p
	}
	connect, err := duration("RYUK_CONNECTION_TIMEOUT", time.Minute)
	if err != nil {
		return err
	}
	reconnect, err := duration("RYUK_RECONNECTION_TIMEOUT", 10*time.Second)
	if err != nil {
		return err
	}
	socket := reaper.Socket(os.Getenv)
	cfg := reaper.Config{ConnectTimeout: connect, ReconnectTimeout: reconnect}
	if v, _ := strconv.ParseBool(os.Getenv("RYUK_VERBOSE")); v {
		cfg.Logf = log.Printf
	}
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		return err
	}
	// testcontainers-go waits for this word in the log before it connects.
	log.Printf("Started: listening on %s", ln.Addr())
	filters := reaper.Serve(context.Background(), ln, cfg)
	engine := reaper.NewEngine(socket)
	var failed bool
	for _, f := range filters {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		r, err := engine.Reap(ctx, f)
		cancel()
		log.Printf("reaped %s: %d containers, %d networks, %d volumes, %d images", f, r.Containers, r.Networks, r.Volumes, r.Images)
		if err != nil {
			log.Printf("reaper: %v", err)
			failed = true
		}
	}
	if failed {
		return fmt.Errorf("some resources could not be removed")
	}
	return nil
}
