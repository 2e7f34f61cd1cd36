package cassandratest

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tccassandra "github.com/testcontainers/testcontainers-go/modules/cassandra"
	"github.com/testcontainers/testcontainers-go/wait"
)

// containerYAML is the test container's cassandra.yaml: the development node's settings.
//
//go:embed container.yaml
var containerYAML []byte

// EnvHostOverride is testcontainers-go's setting for the address containers' ports are
// reached at.
const EnvHostOverride = "TESTCONTAINERS_HOST_OVERRIDE"

// containerStart bounds the wait for the node to answer. testcontainers-go's cassandra module
// waits 60 s; a node's first start takes longer than that on a loaded 2-core machine.
const containerStart = 5 * time.Minute

// dataVolume is where the image keeps the node's files (the official image's VOLUME, and the
// one scripts/cassandra's image declares).
const dataVolume = "/var/lib/cassandra"

// useLoopback makes testcontainers reach containers through 127.0.0.1 when the engine runs
// in this network namespace (its docker0 bridge is here, so published ports listen on this
// machine's loopback). Inside a container (/.dockerenv) testcontainers would otherwise use
// the bridge's gateway address; an explicit TESTCONTAINERS_HOST_OVERRIDE is left alone.
func useLoopback() {
	if _, set := os.LookupEnv(EnvHostOverride); set {
		return
	}
	if _, err := net.InterfaceByName("docker0"); err == nil {
		os.Setenv(EnvHostOverride, "127.0.0.1")
	}
}

// startContainer starts Image with testcontainers-go's cassandra module, longWait and the
// development node's settings (container.yaml). The reaper removes the container when the test binary exits.
func startContainer(ctx context.Context) (testcontainers.Container, string, error) {
	c, err := tccassandra.Run(ctx, Image, longWait(), testcontainers.WithFiles(testcontainers.ContainerFile{
		Reader: bytes.NewReader(containerYAML), ContainerFilePath: "/etc/cassandra/cassandra.yaml", FileMode: 0o644,
	}))
	if err != nil {
		if c != nil {
			_ = c.Terminate(context.Background())
		}
		return nil, "", fmt.Errorf("start %s with testcontainers: %w", Image, err)
	}
	host, err := c.ConnectionHost(ctx)
	if err != nil {
		_ = c.Terminate(context.Background())
		return nil, "", fmt.Errorf("address of the %s container: %w", Image, err)
	}
	return c, host, nil
}

// longWait is the module's wait (the CQL port, then cqlsh seeing the node bootstrapped) with
// containerStart for each step and for the whole.
func longWait() testcontainers.CustomizeRequestOption {
	return testcontainers.WithWaitStrategyAndDeadline(containerStart,
		wait.ForListeningPort("9042/tcp").WithStartupTimeout(containerStart),
		wait.ForExec([]string{"cqlsh", "-e", "SELECT bootstrapped FROM system.local"}).
			WithStartupTimeout(containerStart).
			WithResponseMatcher(func(body io.Reader) bool {
				b, _ := io.ReadAll(body)
				return strings.Contains(string(b), "COMPLETED")
			}))
}

// containerFiles returns the host directory holding the container's data volume, or why
// its files cannot be read from here (the engine runs elsewhere, or the image keeps its data
// out of a volume).
func containerFiles(ctx context.Context, c testcontainers.Container) (string, string) {
	info, err := c.Inspect(ctx)
	if err != nil {
		return "", fmt.Sprintf("the %s container cannot be inspected (%v)", Image, err)
	}
	for _, m := range info.Mounts {
		if m.Destination != dataVolume {
			continue
		}
		if _, err := os.Stat(m.Source); err != nil {
			return "", fmt.Sprintf("the %s container's data volume is at %s on the engine's machine, which is not this one", Image, m.Source)
		}
		return m.Source, ""
	}
	return "", fmt.Sprintf("the %s container keeps no volume at %s", Image, dataVolume)
}
