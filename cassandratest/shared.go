package cassandratest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// One node for the whole `go test ./...` run, as the development node is shared on the host
// path: every package's test binary of one run uses the same container (tests keep to their
// own keyspaces), instead of each starting its own for minutes.
//
// What ties the binaries of one run together is testcontainers-go's session ID: it hashes
// the parent process's pid and start time, and every test binary of one `go test` is a child
// of that go command. The container is named after it (sharedName) and started with
// testcontainers' reuse by name, so the first binary creates it and the others find it. A
// lock file named after the session (lockSession) makes the binaries take turns: the first
// creates and waits for the node while the others wait for the lock, then find it running.
//
// The reaper removes the session's containers a few seconds after its last client has
// gone. Each binary is a client while it runs, but between two binaries that use the node
// (one ends, the next is still being compiled) there may be none, and the reaper would
// remove the node mid-run. So the first binary also starts a holder (holdSession): a
// detached shell that keeps one connection to the reaper, with the session's filter, for
// as long as the go command lives. When `go test` exits the holder does, and the reaper
// removes the node as it removes any other. A binary not run by `go test` (by hand, from an
// IDE) starts no holder: the reaper removes the node when it exits, as before.

// sharedName is the shared node's container name for session sid: a digest, as the ID may
// be any string (TESTCONTAINERS_SESSION_ID).
func sharedName(sid string) string {
	sum := sha256.Sum256([]byte(sid))
	return "cqlsize-cassandratest-" + hex.EncodeToString(sum[:8])
}

// sessionFile is a file of session sid in this machine's temporary directory.
func sessionFile(sid, suffix string) string {
	return filepath.Join(os.TempDir(), sharedName(sid)+suffix)
}

// startShared starts or finds the shared node of this binary's session and makes sure a
// holder keeps it until the go command exits.
func startShared(ctx context.Context) (testcontainers.Container, string, error) {
	sid := testcontainers.SessionID()
	unlock, err := lockSession(ctx, sessionFile(sid, ".lock"))
	if err != nil {
		return nil, "", err
	}
	defer unlock()
	c, host, err := startContainer(ctx, testcontainers.WithReuseByName(sharedName(sid)))
	if err != nil {
		return nil, "", err
	}
	if err := holdSession(ctx, sid, c, host); err != nil {
		return nil, "", fmt.Errorf("keep the shared %s container for the whole test run: %w", Image, err)
	}
	return c, host, nil
}

// lockSession takes the lock file at path, waiting while another test binary holds it
// (at most until ctx ends). The returned func releases it.
func lockSession(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("open the test node's lock %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("wait for the test node's lock %s (another test binary is starting the node): %w", path, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}

// holderScript keeps a reaper client connected until the go command exits: $1 $2 the reaper's
// address, $3 the filter line, $4 the go command's pid, $5 the pid file it writes once the
// reaper has acknowledged the filter; when it ends it removes that file and $6, the session's
// lock file (no binary of the session is left to take it).
const holderScript = `set -e
exec 3<>"/dev/tcp/$1/$2"
printf '%s\n' "$3" >&3
read -r ack <&3
[ "$ack" = ACK ]
trap 'rm -f "$5" "$6"' EXIT
echo $$ >"$5.new" && mv "$5.new" "$5"
while kill -0 "$4" 2>/dev/null; do sleep 2; done
`

// holdSession starts the session's holder when the go command runs this binary, there is
// a reaper, and no holder runs yet; it returns once the holder is connected.
func holdSession(ctx context.Context, sid string, c testcontainers.Container, endpoint string) error {
	goPid := os.Getppid()
	if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", goPid)); strings.TrimSpace(string(comm)) != "go" {
		return nil
	}
	pidFile := sessionFile(sid, ".holder")
	if holderRuns(pidFile, sid) {
		return nil
	}
	port, ok, err := reaperPort(ctx, sid)
	if err != nil || !ok {
		return err // no reaper (TESTCONTAINERS_RYUK_DISABLED): nothing removes the node anyway
	}
	host, _, err := net.SplitHostPort(endpoint)
	if err != nil {
		return fmt.Errorf("the node's address %q: %w", endpoint, err)
	}
	filter, err := sessionFilter(ctx, c)
	if err != nil {
		return err
	}
	os.Remove(pidFile)
	cmd := exec.Command("bash", "-c", holderScript, "cqlsize-test-session-"+sid, host, port, filter, strconv.Itoa(goPid), pidFile, sessionFile(sid, ".lock"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives this binary; no terminal signals
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the reaper holder: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for !holderRuns(pidFile, sid) {
		select {
		case err := <-done:
			return fmt.Errorf("the reaper holder (bash, connecting to the reaper at %s:%s) ended: %v", host, port, err)
		case <-ctx.Done():
			return fmt.Errorf("the reaper holder did not connect to the reaper at %s:%s: %w", host, port, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// holderRuns reports whether the pid in pidFile is a live holder of session sid (its command
// line names the session, so a reused pid is not taken for it).
func holderRuns(pidFile, sid string) bool {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return false
	}
	cmdline, err := os.ReadFile("/proc/" + strings.TrimSpace(string(b)) + "/cmdline")
	return err == nil && strings.Contains(string(cmdline), "cqlsize-test-session-"+sid)
}

// reaperPort returns the published port of session sid's reaper container, and false when
// there is none.
func reaperPort(ctx context.Context, sid string) (string, bool, error) {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return "", false, err
	}
	defer cli.Close()
	name := "reaper_" + sid
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{Filters: make(client.Filters).Add("name", "^"+name+"$")})
	if err != nil {
		return "", false, fmt.Errorf("find the reaper %s: %w", name, err)
	}
	if len(list.Items) == 0 {
		return "", false, nil
	}
	for _, p := range list.Items[0].Ports {
		if p.PrivatePort == 8080 && p.PublicPort != 0 {
			return strconv.Itoa(int(p.PublicPort)), true, nil
		}
	}
	return "", false, fmt.Errorf("the reaper %s publishes no port for 8080/tcp", name)
}

// sessionFilter is the reaper filter line testcontainers itself sends for the node: its
// org.testcontainers labels (the session's), so the holder asks for nothing more.
func sessionFilter(ctx context.Context, c testcontainers.Container) (string, error) {
	info, err := c.Inspect(ctx)
	if err != nil {
		return "", fmt.Errorf("inspect the shared node: %w", err)
	}
	var parts []string
	for k, v := range info.Config.Labels {
		if strings.HasPrefix(k, "org.testcontainers") {
			parts = append(parts, "label="+k+"="+v)
		}
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("the shared node carries no org.testcontainers labels")
	}
	sort.Strings(parts)
	return strings.Join(parts, "&"), nil
}
