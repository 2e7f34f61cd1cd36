// Package nodecontainer starts a throwaway Cassandra node in a container (testcontainers-go's
// cassandra module) and says where to reach it from where the caller runs. It finds or pulls
// the image first, once and without testcontainers' fifteen minutes of pull retries, so an
// image that does not exist and a registry that does not answer are told apart at once.
//
// Addresses: the node is reached through its published CQL port. Where the caller itself
// runs inside a container whose Docker engine is its own (the engine's bridge is one of this
// machine's interfaces), testcontainers would report the bridge gateway; the published port
// is on 127.0.0.1 there too, and loopback is the address a person at that shell can use, so
// Start makes testcontainers use it (TESTCONTAINERS_HOST_OVERRIDE, unless already set).
package nodecontainer

import (
	"context"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"net"
	"os"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	tccassandra "github.com/testcontainers/testcontainers-go/modules/cassandra"
	"github.com/testcontainers/testcontainers-go/wait"
)

// StartTimeout bounds how long Start waits for CQL to answer: a node starts in 30-60 s on
// an idle machine and can take ten minutes on a small one busy with other nodes
// (testcontainers' own default is 60 s).
var StartTimeout = 15 * time.Minute

// LogTo sends testcontainers' own log lines (engine, container created, waiting) to w, or
// nowhere when w is nil; they are for a verbose run, not every run.
func LogTo(w io.Writer) {
	if w == nil {
		tclog.SetDefault(tclog.NewNoopLogger())
		return
	}
	tclog.SetDefault(stdlog.New(w, "testcontainers: ", 0))
}

// Heap is the JVM heap a started node gets: small, as a throwaway node for one schema
// needs, so that it starts beside other work on a small machine.
var Heap = map[string]string{"MAX_HEAP_SIZE": "512M", "HEAP_NEWSIZE": "128M"}

// ErrNoEngine is returned when no Docker engine answers.
var ErrNoEngine = errors.New("no Docker engine answers here")

// PullError is an image that is not on this machine and could not be pulled.
type PullError struct {
	Image string
	// Missing is true when the registry answered that there is no such image (or the
	// name is not a valid image reference); false when the registry did not answer, which
	// may pass.
	Missing bool
	Err     error
}

func (e *PullError) Error() string {
	if e.Missing {
		return fmt.Sprintf("image %s: no such image: %v", e.Image, e.Err)
	}
	return fmt.Sprintf("image %s is not on this machine and its registry did not answer: %v", e.Image, e.Err)
}

func (e *PullError) Unwrap() error { return e.Err }

// Node is a started container.
type Node struct {
	c *tccassandra.CassandraContainer
	// Endpoint is host:port of the node's CQL port, as reached from here.
	Endpoint string
	// ID is the container's ID (for docker rm -f).
	ID string
}

// Container is the started container, for what Node does not wrap (inspecting its mounts,
// running a command in it).
func (n *Node) Container() testcontainers.Container { return n.c }

// Host and Port split Endpoint.
func (n *Node) Host() string { h, _, _ := net.SplitHostPort(n.Endpoint); return h }

// Port is the published CQL port.
func (n *Node) Port() string { _, p, _ := net.SplitHostPort(n.Endpoint); return p }

// Remove stops and removes the container; it waits at most a minute, whatever ctx the
// caller had (a Ctrl-C has cancelled it by then).
func (n *Node) Remove() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return n.c.Terminate(ctx)
}

// EngineAnswers reports whether a Docker engine responds, without panicking on the broken
// setups where testcontainers does.
func EngineAnswers(ctx context.Context) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p, err := testcontainers.ProviderDocker.GetProvider()
	if err != nil {
		return false
	}
	defer p.Close()
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return p.Health(hctx) == nil
}

// EnsureImage makes image present on the engine: nothing when it is, else one pull, whose
// failure is a *PullError. progress (when not nil) gets a line when a pull starts.
func EnsureImage(ctx context.Context, image string, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoEngine, err)
	}
	defer cli.Close()
	_, err = cli.ImageInspect(ctx, image)
	switch {
	case err == nil:
		return nil
	case cerrdefs.IsInvalidArgument(err) || invalidReference(err):
		return &PullError{Image: image, Missing: true, Err: err}
	case !cerrdefs.IsNotFound(err):
		return fmt.Errorf("inspect image %s: %w", image, err)
	}
	fmt.Fprintf(progress, "pulling %s (not on this machine)\n", image)
	resp, err := cli.ImagePull(ctx, image, client.ImagePullOptions{})
	if err == nil {
		err = resp.Wait(ctx)
	}
	if err == nil {
		return nil
	}
	missing := cerrdefs.IsNotFound(err) || cerrdefs.IsInvalidArgument(err) || cerrdefs.IsUnauthorized(err) ||
		cerrdefs.IsPermissionDenied(err) || invalidReference(err) || strings.Contains(err.Error(), "manifest unknown") ||
		strings.Contains(err.Error(), "repository does not exist")
	return &PullError{Image: image, Missing: missing, Err: err}
}

func invalidReference(err error) bool {
	return strings.Contains(err.Error(), "invalid reference format")
}

// PreferLoopback makes testcontainers report 127.0.0.1 for published ports when this
// process runs inside a container whose Docker engine is its own: there the engine's
// bridge (docker0) is one of this machine's interfaces, the published ports listen on
// loopback too, and loopback is what a person at this shell can connect to. An override
// the user set stays.
func PreferLoopback() {
	if _, set := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); set {
		return
	}
	if _, err := os.Stat("/.dockerenv"); err != nil {
		return
	}
	if _, err := net.InterfaceByName("docker0"); err != nil {
		return
	}
	os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
}

// Start starts image (which must be present: EnsureImage) and waits until CQL answers. On
// failure nothing is left running. opts come after Start's own (the heap, the wait), so they
// may change them.
func Start(ctx context.Context, image string, opts ...testcontainers.ContainerCustomizer) (*Node, error) {
	PreferLoopback()
	// The module's own readiness checks (the CQL port listens, cqlsh finds the node
	// bootstrapped), each given StartTimeout, under one deadline of StartTimeout.
	ready := testcontainers.WithWaitStrategyAndDeadline(StartTimeout,
		wait.ForListeningPort("9042/tcp").WithStartupTimeout(StartTimeout),
		wait.ForExec([]string{"cqlsh", "-e", "SELECT bootstrapped FROM system.local"}).WithResponseMatcher(func(body io.Reader) bool {
			data, _ := io.ReadAll(body)
			return strings.Contains(string(data), "COMPLETED")
		}).WithStartupTimeout(StartTimeout))
	c, err := tccassandra.Run(ctx, image, append([]testcontainers.ContainerCustomizer{testcontainers.WithEnv(Heap), ready}, opts...)...)
	if err != nil {
		if c != nil {
			tctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = c.Terminate(tctx)
		}
		return nil, fmt.Errorf("start %s: %w", image, err)
	}
	n := &Node{c: c, ID: c.GetContainerID()}
	if n.Endpoint, err = c.ConnectionHost(ctx); err != nil {
		_ = n.Remove()
		return nil, fmt.Errorf("the published CQL port of the %s container: %w", image, err)
	}
	return n, nil
}

// Available reports whether image can be started here: nil when a Docker engine answers
// and the image is on this machine or was just pulled (one pull, no retries); ErrNoEngine;
// a *PullError when the image is not here and cannot be pulled; or another error of the
// engine. It never waits longer than one pull.
func Available(ctx context.Context, image string, progress io.Writer) error {
	if !EngineAnswers(ctx) {
		return ErrNoEngine
	}
	return EnsureImage(ctx, image, progress)
}

// Verdict is what a test that needs a container does.
type Verdict int

// Verdicts.
const (
	Run  Verdict = iota // the engine answers and the image is here
	Skip                // skip, saying why
	Fail                // fail at once, saying why: a skip would be a green run that proved nothing
)

func (v Verdict) String() string {
	switch v {
	case Run:
		return "run"
	case Skip:
		return "skip"
	}
	return "fail"
}

// ForTest decides what a test that needs a container does after Available returned err,
// and says why when it does not run: with no engine it skips, or fails when requireEngine;
// with an engine but no image (one that does not exist, or a registry that does not
// answer) or another error of the engine it skips, or fails when requireImage (in CI). It
// decides at once: a missing image is never waited for.
func ForTest(err error, requireEngine, requireImage bool) (Verdict, string) {
	if err == nil {
		return Run, ""
	}
	var pe *PullError
	switch {
	case errors.Is(err, ErrNoEngine):
		if requireEngine {
			return Fail, "no Docker engine answers here"
		}
		return Skip, "no Docker engine answers here"
	case errors.As(err, &pe):
		why := fmt.Sprintf("%v; put it on this machine first (docker pull %s where a registry answers, `scripts/cassandra image` where none does)", err, pe.Image)
		if requireImage {
			return Fail, why
		}
		return Skip, why
	}
	why := fmt.Sprintf("the Docker engine cannot give the image: %v", err)
	if requireImage {
		return Fail, why
	}
	return Skip, why
}
