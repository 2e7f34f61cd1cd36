// Package ringtest gives fault tests a real multi-node Cassandra ring, the one
// `CQLSIZE_NODES=3 scripts/cassandra up` runs on 127.0.1.1-3, and control over its nodes:
// stop, SIGKILL, SIGSTOP, SIGCONT and start, through scripts/cassandra.
//
// Tests that use it are named TestRing... and run by `make test-ring`, which sets
// CQLSIZE_RING_HOSTS. Without that variable they skip (so `make test` skips them), except
// when CQLSIZE_REQUIRE_RING=1, where a missing ring is a failure.
//
// A test that stops, kills or pauses a node must hold Lock first: the lock is a flock on a
// file shared by every process on the machine, so two test binaries (or two helpers at
// work) never take nodes down under each other, and at cleanup the lock holder brings
// every node back and waits until the ring is healthy before the next holder starts.
package ringtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/clusterctl"
)

// Environment variables.
const (
	EnvHosts   = "CQLSIZE_RING_HOSTS"    // the ring's contact points, comma-separated
	EnvRequire = "CQLSIZE_REQUIRE_RING"  // "1": a missing ring fails the test instead of skipping it
	EnvLock    = "CQLSIZE_RING_LOCKFILE" // the lock file (default: cqlsize-ring.lock in the temp dir)
)

// healTimeout is how long cleanup waits for the ring to be whole again.
const healTimeout = 4 * time.Minute

// Hosts returns the ring's contact points from CQLSIZE_RING_HOSTS. The test is skipped
// when it is unset, and fails instead when CQLSIZE_REQUIRE_RING=1.
func Hosts(t testing.TB) []string {
	t.Helper()
	h := connect.SplitHosts(os.Getenv(EnvHosts))
	if len(h) == 0 {
		msg := "no ring: " + EnvHosts + " is unset; run `make test-ring` (starts `CQLSIZE_NODES=3 scripts/cassandra up`)"
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s (%s=1, so this is a failure, not a skip)", msg, EnvRequire)
		}
		t.Skip(msg)
	}
	return h
}

// Nodes is the number of nodes in the ring.
func Nodes(t testing.TB) int { return len(Hosts(t)) }

// Addr is node n's CQL address (host:9042 unless the host names a port).
func Addr(t testing.TB, n int) string {
	t.Helper()
	h := Hosts(t)
	if n < 1 || n > len(h) {
		t.Fatalf("ringtest: node %d: the ring has nodes 1 to %d", n, len(h))
	}
	if _, _, err := net.SplitHostPort(h[n-1]); err == nil {
		return h[n-1]
	}
	return net.JoinHostPort(h[n-1], "9042")
}

// Config is a connection configuration for the ring: every node a contact point,
// LOCAL_QUORUM, 30 s per request, 15 s to connect, and the driver's own wait for schema
// agreement after DDL cut to 15 s: gocql counts down nodes there, and a test that drops
// its keyspace while a node is down would otherwise stall a minute.
func Config(t testing.TB) connect.Config {
	t.Helper()
	return config(Hosts(t))
}

func config(hosts []string) connect.Config {
	return connect.Config{Hosts: hosts, Source: EnvHosts, Timeout: 30 * time.Second, ConnectTimeout: 15 * time.Second,
		DriverAgreementWait: 15 * time.Second}
}

// Session connects to the ring without a keyspace; it is closed when t ends.
func Session(t testing.TB) *gocql.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := connect.Open(ctx, Config(t))
	if err != nil {
		t.Fatalf("ringtest: connect to the ring: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Keyspace creates a keyspace of its own for t with SimpleStrategy and replication factor
// rf, waits until every node has it, returns a session bound to it and drops it at cleanup.
func Keyspace(t testing.TB, rf int) (*gocql.Session, string) {
	t.Helper()
	admin := Session(t)
	name := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() {
		if err := admin.Query("DROP KEYSPACE IF EXISTS " + name).Exec(); err != nil {
			t.Logf("ringtest: drop keyspace %s: %v", name, err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// A creation whose answer misses the client timeout is checked and sent again
	// (cassandratest.CreateKeyspace).
	replication := fmt.Sprintf("{'class': 'SimpleStrategy', 'replication_factor': %d}", rf)
	if err := cassandratest.CreateKeyspace(ctx, admin, name, replication); err != nil {
		// A node left on a broken schema by an earlier test fails the DDL it
		// coordinates ("Unknown CF ..."); mend the ring and try once more.
		t.Logf("ringtest: create keyspace %s: %v; waiting for schema agreement and trying again", name, err)
		if aerr := agreed(t.Logf); aerr != nil {
			t.Fatalf("ringtest: create keyspace %s: %v; then %v", name, err, aerr)
		}
		if err := cassandratest.CreateKeyspace(ctx, admin, name, replication); err != nil {
			t.Fatalf("ringtest: create keyspace %s: %v", name, err)
		}
	}
	if err := awaitAgreement(ctx, admin, t.Logf); err != nil {
		t.Fatalf("ringtest: schema agreement after creating %s: %v", name, err)
	}
	cfg := Config(t)
	cfg.Keyspace = name
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("ringtest: connect to keyspace %s: %v", name, err)
	}
	t.Cleanup(s.Close)
	return s, name
}

// Lock takes the ring for t alone, waiting for another holder (in this or another process)
// for up to 20 minutes; it starts from a whole ring whose nodes agree on the schema. At
// cleanup every node is resumed and started again, and the lock is released only once
// every node answers CQL and sees every other node UP (clusterctl.Cluster.Lock).
func Lock(t testing.TB) {
	t.Helper()
	path := os.Getenv(EnvLock)
	if path == "" {
		path = filepath.Join(os.TempDir(), "cqlsize-ring.lock")
	}
	cluster(Nodes(t)).Lock(t, path, func() error { return agreed(t.Logf) })
}

// cluster is the ring of nodes nodes in scripts/cassandra.
func cluster(nodes int) clusterctl.Cluster {
	parts := make([]string, nodes)
	for i := range parts {
		parts[i] = strconv.Itoa(i + 1)
	}
	return clusterctl.Cluster{Name: "ringtest", Env: []string{"CQLSIZE_NODES=" + strconv.Itoa(nodes)},
		Parts: parts, HealTimeout: healTimeout}
}

// Stop stops node n (SIGTERM: drains, tells gossip it is shutting down) and waits for it to exit.
func Stop(t testing.TB, n int) { t.Helper(); control(t, "stop", n) }

// Kill SIGKILLs node n: a crash, no goodbye; the others notice through the failure detector.
func Kill(t testing.TB, n int) { t.Helper(); control(t, "kill", n) }

// Pause SIGSTOPs node n: its sockets still accept connections, nothing answers.
func Pause(t testing.TB, n int) { t.Helper(); control(t, "pause", n) }

// Resume SIGCONTs node n.
func Resume(t testing.TB, n int) { t.Helper(); control(t, "resume", n) }

// Start starts node n and waits until it answers CQL and every other node sees it UP.
func Start(t testing.TB, n int) { t.Helper(); control(t, "start", n) }

// WaitSeenDown waits (up to timeout) until every other running node's gossip has marked
// node n DOWN: for a paused node that takes the failure detector 10-20 s, and until then
// coordinators still send it requests (a counter update led by it times out).
func WaitSeenDown(t testing.TB, n int, timeout time.Duration) {
	t.Helper()
	nodes := Nodes(t)
	deadline := time.Now().Add(timeout)
	for {
		out, _ := script(nodes, "status")
		if seenDownByAll(out, n, nodes) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("ringtest: the other nodes still see node %d UP after %s:\n%s", n, timeout, out)
		}
		time.Sleep(time.Second)
	}
}

// seenDownByAll reads `scripts/cassandra status`: every node other than n that is up says
// it does not see n UP.
func seenDownByAll(status string, n, nodes int) bool {
	for i := 1; i <= nodes; i++ {
		if i == n {
			continue
		}
		prefix := fmt.Sprintf("node %d: up", i)
		for _, line := range strings.Split(status, "\n") {
			if !strings.HasPrefix(line, prefix) {
				continue
			}
			_, blind, ok := strings.Cut(line, "does not see node(s)")
			if !ok || !containsField(blind, strconv.Itoa(n)) {
				return false
			}
		}
	}
	return true
}

func containsField(s, f string) bool {
	for _, x := range strings.Fields(s) {
		if x == f {
			return true
		}
	}
	return false
}

func control(t testing.TB, cmd string, n int) {
	t.Helper()
	nodes := Nodes(t)
	if n < 1 || n > nodes {
		t.Fatalf("ringtest: %s node %d: the ring has nodes 1 to %d", cmd, n, nodes)
	}
	if out, err := script(nodes, cmd, strconv.Itoa(n)); err != nil {
		t.Fatalf("ringtest: %v\n%s", err, out)
	}
}

// Script runs scripts/cassandra with CQLSIZE_NODES set to the ring's size and returns its
// combined output and exit status.
func Script(t testing.TB, args ...string) (string, int) {
	t.Helper()
	out, err := script(Nodes(t), args...)
	if ee, ok := err.(*clusterctl.ExitError); ok {
		return out, ee.Code
	}
	if err != nil {
		t.Fatalf("ringtest: %v", err)
	}
	return out, 0
}

func script(nodes int, args ...string) (string, error) { return cluster(nodes).Run(args...) }

// Root is the module's root directory.
func Root() string { return clusterctl.Root() }

// Answers reports whether the node at addr answers a CQL OPTIONS request within timeout.
// A TCP connect alone does not tell: a paused (SIGSTOPped) node's socket still accepts.
func Answers(addr string, timeout time.Duration) bool {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	// Protocol v4 frame: version, flags, stream (2 bytes), opcode OPTIONS (5), body length 0.
	if _, err := c.Write([]byte{0x04, 0, 0, 0, 0x05, 0, 0, 0, 0}); err != nil {
		return false
	}
	var hdr [9]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return false
	}
	return hdr[0] == 0x84 && hdr[4] == 0x06 // response v4, SUPPORTED
}
