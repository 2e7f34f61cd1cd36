// Package cassandratest hands every test that needs Cassandra a real cluster and a keyspace of
// its own, as net/http/httptest hands a test a real server: Keyspace(t) returns a session on
// a fresh keyspace that is dropped when the test ends. It is public so that a service built
// from the examples can test its own tables the way the examples do. It finds the cluster in
// this order:
//
//  1. CASSANDRA_HOSTS (host[:port],...): any existing cluster; `make test` sets it to the
//     node it starts from the Maven Central jars (scripts/cassandra).
//  2. A cassandra:5.0 container started with testcontainers-go, when a Docker engine answers
//     and the image is on this machine or can be pulled (one pull, no retries: without it
//     the test is skipped, or fails as in step 3, at once), one for the whole `go test`
//     run, shared by every package's test binary (shared.go; container.go: how it is
//     reached over loopback, and where its data files are).
//  3. Otherwise the test is skipped with a message saying how to get a cluster, except when
//     CI is set or CQLSIZE_REQUIRE_CASSANDRA=1, where it fails: in CI a skipped integration
//     test would be a green run that proved nothing.
//
// Under `go test -short` every cluster test is skipped before any of this (no container is
// started), unless CI or CQLSIZE_REQUIRE_CASSANDRA=1 is set: -short is the run without a
// cluster, on any machine.
//
// There is no fake: a test that uses this package talks to a real Cassandra. A test that
// also reads the node's data files (sstablepartitions, tablehistograms) gets them from
// LocalNode, which reads them on scripts/cassandra's own node or in the container's data
// volume when the engine runs on this machine, and skips, saying why, on any other cluster
// (nodefiles.go).
package cassandratest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/testcontainers/testcontainers-go"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/ddl"
	"github.com/cqlsize/cqlsize/internal/nodecontainer"
)

// Image is the container image used when a Docker engine is available.
const Image = "cassandra:5.0"

// How to get a cluster, printed when none is found.
const howTo = "no Cassandra cluster: run `make test` (starts a local node from Maven Central jars), " +
	"or `make cassandra-up` and export CASSANDRA_HOSTS=127.0.0.1, or start a Docker engine"

var (
	once     sync.Once
	found    []string
	source   string
	ctr      testcontainers.Container // the container of step 2, when it is the cluster
	findErr  error
	skipOnly bool
)

// required reports whether a missing cluster is a failure rather than a skip.
func required() bool {
	return os.Getenv("CI") != "" || os.Getenv("CQLSIZE_REQUIRE_CASSANDRA") == "1"
}

func find() {
	if h := os.Getenv(connect.EnvHosts); h != "" {
		found, source = connect.SplitHosts(h), connect.EnvHosts
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), nodecontainer.StartTimeout+time.Minute)
	defer cancel()
	nodecontainer.PreferLoopback()
	// The image is found or pulled once here, before testcontainers (which would retry a
	// pull for minutes): an engine without the image and without a registry is a skip, or
	// a failure where a cluster is required, at once.
	if err := nodecontainer.Available(ctx, Image, os.Stderr); err != nil {
		v, why := nodecontainer.ForTest(err, required(), required())
		findErr, skipOnly = fmt.Errorf("%s; %s", why, howTo), v == nodecontainer.Skip
		return
	}
	c, host, err := startShared(ctx)
	if err != nil {
		findErr = err
		return
	}
	ctr, found, source = c, []string{host}, "testcontainers "+Image
}

// Hosts returns the contact points of the test cluster, or skips/fails t as the package doc says.
func Hosts(t testing.TB) []string {
	t.Helper()
	if testing.Short() && !required() {
		t.Skip("-short: cluster tests are skipped (make test runs them against a real node)")
	}
	once.Do(find)
	if findErr != nil {
		if skipOnly && !required() {
			t.Skip(findErr.Error())
		}
		t.Fatalf("%v (CI or CQLSIZE_REQUIRE_CASSANDRA=1 is set, so this is a failure, not a skip)", findErr)
	}
	return found
}

// Config returns a connection configuration for the test cluster.
func Config(t testing.TB) connect.Config {
	t.Helper()
	// A minute to connect: a node that has just started (a container on a busy machine) can
	// take over 10 s to open a first session.
	// A container is reached only through its published port on loopback: the addresses the
	// node gives out (its bridge address) are not for this machine's clients (Direct).
	// Two minutes a request: on a machine running several suites against one node, a schema
	// change can take over 30 s to be answered, and a test that takes the client's timeout for
	// the node's answer records a verdict the node never gave (a corpus statement "refused").
	// A node that does not answer in two minutes is a broken node, and the test says so.
	hosts := Hosts(t)
	return connect.Config{Hosts: hosts, Source: source, Consistency: "ONE", Timeout: 2 * time.Minute, ConnectTimeout: time.Minute,
		Direct: ctr != nil}
}

// Session connects to the test cluster with no keyspace; it is closed when t ends.
func Session(t testing.TB) *gocql.Session {
	t.Helper()
	// The cluster first: starting a container takes minutes, and must not eat the
	// connection's time.
	cfg := Config(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second+cfg.ConnectTimeout)
	defer cancel()
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// ObservedSession connects to the test cluster bound to keyspace ks, every query reported
// to observer (tests that count the queries a piece of code sends); it is closed when t ends.
func ObservedSession(t testing.TB, ks string, observer gocql.QueryObserver) *gocql.Session {
	t.Helper()
	cfg := Config(t)
	cfg.Keyspace = ks
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	cc.QueryObserver = observer
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Keyspace creates a keyspace with a unique name for t (SimpleStrategy, replication factor
// 1 per node up to 3), connects a session to it and drops it when t ends.
func Keyspace(t testing.TB) (*gocql.Session, string) {
	t.Helper()
	admin := Session(t)
	name := KeyspaceName(t.Name())
	rf := len(Hosts(t))
	if rf > 3 {
		rf = 3
	}
	// Dropped even when the creation fails: a change that timed out may still land.
	t.Cleanup(func() {
		if err := admin.Query("DROP KEYSPACE IF EXISTS " + name).Exec(); err != nil {
			t.Logf("drop test keyspace %s: %v", name, err)
		}
	})
	cctx, ccancel := context.WithTimeout(context.Background(), ddl.DefaultBudget+time.Minute)
	defer ccancel()
	if err := CreateKeyspace(cctx, admin, name, fmt.Sprintf("{'class': 'SimpleStrategy', 'replication_factor': %d}", rf)); err != nil {
		t.Fatalf("create test keyspace: %v", err)
	}
	cfg := Config(t)
	cfg.Keyspace = name
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second+cfg.ConnectTimeout)
	defer cancel()
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, name
}

var unsafe = regexp.MustCompile(`[^a-z0-9_]+`)

// KeyspaceName derives a unique, valid keyspace name (at most 48 characters) from a test name.
func KeyspaceName(testName string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	base := strings.Trim(unsafe.ReplaceAllString(strings.ToLower(testName), "_"), "_")
	if len(base) > 36 {
		base = base[:36]
	}
	return "t_" + base + "_" + hex.EncodeToString(b[:])
}

// CreateKeyspace creates keyspace name with replication (a CQL map literal) unless it
// exists. A busy node can apply a schema change and still miss the client's
// timeout: a creation that times out is not an error until a check of system_schema (after
// the nodes have had time to agree) finds no keyspace and the statement, sent again, fails
// too, for up to two minutes. Test harnesses that create keyspaces of their own (the
// authentication and TLS nodes, the ring) call it too.
func CreateKeyspace(ctx context.Context, admin *gocql.Session, name, replication string) error {
	stmt := fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s", cql.QuoteName(name), replication)
	return ddl.CreateKeyspace(ctx, admin, name, stmt, ddl.Options{})
}

// DDL sends stmts, the schema changes of a test's setup, one after the other through
// ddl.Apply: a change whose answer misses the client's timeout is checked in system_schema
// and sent again only when its effect is missing (a CREATE TABLE gets a fixed id, so that a
// second send cannot leave two), as cqlsize does for its own tables. keyspace is where the
// names the statements do not qualify are. The test fails on the first change that fails.
func DDL(t testing.TB, s *gocql.Session, keyspace string, stmts ...string) {
	t.Helper()
	for _, stmt := range stmts {
		ctx, cancel := context.WithTimeout(context.Background(), ddl.DefaultBudget+2*time.Minute)
		err := ddl.Apply(ctx, s, "test", keyspace, stmt, ddl.Options{})
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}
