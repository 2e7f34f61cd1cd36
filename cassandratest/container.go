package cassandratest

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"

	"github.com/testcontainers/testcontainers-go"

	"github.com/cqlsize/cqlsize/internal/nodecontainer"
)

// containerYAML is the test container's cassandra.yaml: the development node's settings.
//
//go:embed container.yaml
var containerYAML []byte

// dataVolume is where the image keeps the node's files (the official image's VOLUME, and the
// one scripts/cassandra's image declares).
const dataVolume = "/var/lib/cassandra"

// containerHeap is the test node's heap: the development node's, as tests that write many
// rows need it.
var containerHeap = map[string]string{"MAX_HEAP_SIZE": "1024M", "HEAP_NEWSIZE": "128M"}

// startContainer starts Image as nodecontainer does (reached over loopback where the engine
// is this machine's own, a long wait for a busy machine) with the development node's
// settings (container.yaml) and heap, and opts. The reaper removes the container when its
// session ends (shared.go).
func startContainer(ctx context.Context, opts ...testcontainers.ContainerCustomizer) (testcontainers.Container, string, error) {
	opts = append([]testcontainers.ContainerCustomizer{testcontainers.WithEnv(containerHeap), testcontainers.WithFiles(testcontainers.ContainerFile{
		Reader: bytes.NewReader(containerYAML), ContainerFilePath: "/etc/cassandra/cassandra.yaml", FileMode: 0o644,
	})}, opts...)
	n, err := nodecontainer.Start(ctx, Image, opts...)
	if err != nil {
		return nil, "", fmt.Errorf("start %s with testcontainers: %w", Image, err)
	}
	return n.Container(), n.Endpoint, nil
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
