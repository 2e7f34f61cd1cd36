// Package dctest gives tests a real two-datacenter Cassandra cluster, the one
// `CQLSIZE_DCS=2 scripts/cassandra up` runs (dc1 on 127.0.5.x, dc2 on 127.0.6.x,
// GossipingPropertyFileSnitch), and control over its nodes and whole datacenters: stop,
// SIGKILL, SIGSTOP, SIGCONT and start, through scripts/cassandra.
//
// Tests that use it are named TestDCs... and run by `make test-dcs`, which sets
// CQLSIZE_DCS_HOSTS. Without that variable they skip (so `make test` skips them), except
// when CQLSIZE_REQUIRE_DCS=1, where a missing cluster is a failure.
//
// A test that takes a node or a DC down must hold Lock first: a flock on a file shared by
// every process on the machine, so two test binaries never take nodes down under each
// other; at cleanup the holder brings every node back and waits until each sees every
// other UP. The layout (which address is in which DC) is read from the cluster itself,
// never assumed from the script's numbering.
package dctest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/clusterctl"
)

// Environment variables.
const (
	EnvHosts   = "CQLSIZE_DCS_HOSTS"    // the cluster's contact points, comma-separated
	EnvRequire = "CQLSIZE_REQUIRE_DCS"  // "1": a missing cluster fails the test instead of skipping it
	EnvLock    = "CQLSIZE_DCS_LOCKFILE" // the lock file (default: cqlsize-dcs.lock in the temp dir)
)

// healTimeout is how long cleanup waits for the cluster to be whole again.
const healTimeout = 5 * time.Minute

// Hosts returns the cluster's contact points from CQLSIZE_DCS_HOSTS. The test is skipped
// when it is unset, and fails instead when CQLSIZE_REQUIRE_DCS=1.
func Hosts(t testing.TB) []string {
	t.Helper()
	h := connect.SplitHosts(os.Getenv(EnvHosts))
	if len(h) == 0 {
		msg := "no two-DC cluster: " + EnvHosts + " is unset; run `make test-dcs` (starts `CQLSIZE_DCS=2 scripts/cassandra up`)"
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s (%s=1, so this is a failure, not a skip)", msg, EnvRequire)
		}
		t.Skip(msg)
	}
	return h
}

// Node is one node of the cluster: its number for scripts/cassandra, its CQL host and its DC.
type Node struct {
	N    int
	Host string
	DC   string
	Dir  string // the node's directory (its data under data/), as scripts/cassandra status names it
}

// Nodes lists the cluster's nodes, dc1's first, as scripts/cassandra numbers them: the
// script's own `status` output says which address is which node, and the cluster's
// system tables which DC each address is in.
func Nodes(t testing.TB) []Node {
	t.Helper()
	hosts := Hosts(t)
	dcs := dcOf(t, hosts)
	out, _ := script("status")
	var nodes []Node
	for _, line := range strings.Split(out, "\n") {
		var n int
		if _, err := fmt.Sscanf(line, "node %d:", &n); err != nil {
			continue
		}
		_, rest, ok := strings.Cut(line, "CQL ")
		if !ok {
			continue
		}
		host, _, err := net.SplitHostPort(strings.TrimRight(strings.Fields(rest)[0], ","))
		if err != nil {
			continue
		}
		node := Node{N: n, Host: host, DC: dcs[host]}
		if _, dir, ok := strings.Cut(line, " dir "); ok {
			node.Dir = strings.TrimSpace(dir)
		}
		nodes = append(nodes, node)
	}
	if len(nodes) == 0 {
		t.Fatalf("dctest: scripts/cassandra status named no node:\n%s", out)
	}
	return nodes
}

// DCs lists the datacenters' names, sorted.
func DCs(t testing.TB) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	for _, n := range Nodes(t) {
		if n.DC != "" && !seen[n.DC] {
			seen[n.DC] = true
			out = append(out, n.DC)
		}
	}
	sort.Strings(out)
	return out
}

// HostsIn returns the CQL hosts of dc's nodes.
func HostsIn(t testing.TB, dc string) []string {
	t.Helper()
	var out []string
	for _, n := range Nodes(t) {
		if n.DC == dc {
			out = append(out, n.Host)
		}
	}
	if len(out) == 0 {
		t.Fatalf("dctest: no node in datacenter %q", dc)
	}
	return out
}

// dcOf reads which DC each node is in, from system.local, system.peers_v2 and the node
// that answered the latter.
func dcOf(t testing.TB, hosts []string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := connect.Open(ctx, config(hosts, ""))
	if err != nil {
		t.Fatalf("dctest: connect: %v", err)
	}
	defer s.Close()
	out := map[string]string{}
	var addr net.IP
	var dc string
	if err := s.Query(`SELECT rpc_address, data_center FROM system.local`).WithContext(ctx).Scan(&addr, &dc); err != nil {
		t.Fatalf("dctest: read system.local: %v", err)
	}
	out[addr.String()] = dc
	iter := s.Query(`SELECT native_address, data_center FROM system.peers_v2`).WithContext(ctx).Iter()
	for iter.Scan(&addr, &dc) {
		out[addr.String()] = dc
	}
	// The node that answered system.peers_v2 is not among its own peers, and system.local
	// above may have been answered by another coordinator: the driver says which one did.
	if h := iter.Host(); h != nil && h.ConnectAddress() != nil && h.DataCenter() != "" {
		out[h.ConnectAddress().String()] = h.DataCenter()
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("dctest: read system.peers_v2: %v", err)
	}
	return out
}

// Config is a connection configuration for the cluster routed to localDC first ("" for
// token-aware only): LOCAL_QUORUM, 30 s per request, and the driver's own wait for schema
// agreement after DDL cut to 15 s (gocql counts down nodes there).
func Config(t testing.TB, localDC string) connect.Config {
	t.Helper()
	return config(Hosts(t), localDC)
}

func config(hosts []string, localDC string) connect.Config {
	return connect.Config{Hosts: hosts, Source: EnvHosts, LocalDC: localDC, Timeout: 30 * time.Second,
		ConnectTimeout: 15 * time.Second, DriverAgreementWait: 15 * time.Second}
}

// Session connects to the cluster, routed to localDC first; it is closed when t ends.
func Session(t testing.TB, localDC string) *gocql.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := connect.Open(ctx, Config(t, localDC))
	if err != nil {
		t.Fatalf("dctest: connect (local DC %q): %v", localDC, err)
	}
	t.Cleanup(s.Close)
	return s
}

// NodeSession connects to one node only (every query coordinated by it): what that node
// holds locally (system_schema, a LOCAL_ONE read of its own replicas) is what it says.
func NodeSession(t testing.TB, host string) *gocql.Session {
	t.Helper()
	s, err := nodeSession(Config(t, ""), host, 15*time.Second)
	if err != nil {
		t.Fatalf("dctest: connect to %s alone: %v", host, err)
	}
	t.Cleanup(s.Close)
	return s
}

// nodeSession opens a session whose queries go to host alone: the driver still learns the
// other nodes, but its host filter keeps them out of every query plan.
func nodeSession(cfg connect.Config, host string, connectTimeout time.Duration) (*gocql.Session, error) {
	cfg.Hosts = []string{host}
	cfg.ConnectTimeout = connectTimeout
	cc, err := cfg.ClusterConfig()
	if err != nil {
		return nil, err
	}
	cc.HostFilter = gocql.WhiteListHostFilter(host)
	return cc.CreateSession()
}

// Keyspace creates a keyspace of its own for t with NetworkTopologyStrategy and rf
// replicas in each DC, waits until every node has it, and drops it at cleanup.
func Keyspace(t testing.TB, rf int) string {
	t.Helper()
	admin := Session(t, "")
	name := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() {
		// A test that failed with a DC down would drop the keyspace without that DC, which
		// then returns holding it and disagrees on the schema for minutes: the DC comes
		// back first (under the lock only: otherwise the nodes down are another test's).
		if locked.Load() {
			if err := cluster.Heal(); err != nil {
				t.Logf("dctest: bring the cluster back before dropping %s: %v", name, err)
			}
		}
		if err := admin.Query("DROP KEYSPACE IF EXISTS " + name).Exec(); err != nil {
			t.Logf("dctest: drop keyspace %s: %v", name, err)
		}
	})
	var parts []string
	for _, dc := range DCs(t) {
		parts = append(parts, fmt.Sprintf("'%s': %d", dc, rf))
	}
	replication := "{'class': 'NetworkTopologyStrategy', " + strings.Join(parts, ", ") + "}"
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if err := cassandratest.CreateKeyspace(ctx, admin, name, replication); err != nil {
		t.Fatalf("dctest: create keyspace %s: %v", name, err)
	}
	if err := AwaitAgreement(ctx, t); err != nil {
		t.Fatalf("dctest: after creating %s: %v", name, err)
	}
	return name
}

// Replication is the replication map Keyspace gives: rf in each DC.
func Replication(t testing.TB, rf int) string {
	t.Helper()
	var parts []string
	for _, dc := range DCs(t) {
		parts = append(parts, fmt.Sprintf("'%s': %d", dc, rf))
	}
	return "{'class': 'NetworkTopologyStrategy', " + strings.Join(parts, ", ") + "}"
}

// AwaitAgreement waits until every node that answers reports, as its own, the same schema
// version (asked of each node alone: gossip's view of the others lags).
func AwaitAgreement(ctx context.Context, t testing.TB) error {
	t.Helper()
	nodes := Nodes(t)
	for {
		versions := map[string]string{}
		for _, n := range nodes {
			if v, err := ownVersion(ctx, n.Host); err == nil {
				versions[n.Host] = v
			}
		}
		distinct := map[string]bool{}
		for _, v := range versions {
			distinct[v] = true
		}
		if len(versions) > 0 && len(distinct) == 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no schema agreement: %v", versions)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func ownVersion(ctx context.Context, host string) (string, error) {
	s, err := nodeSession(config([]string{host}, ""), host, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer s.Close()
	var v gocql.UUID
	if err := s.Query(`SELECT schema_version FROM system.local`).WithContext(ctx).Scan(&v); err != nil {
		return "", err
	}
	return v.String(), nil
}

// Lock takes the cluster for t alone, waiting for another holder (in this or another
// process) for up to 20 minutes. At cleanup every node is resumed and started again, and
// the lock is released only once every node answers CQL and sees every other node UP
// (clusterctl.Cluster.Lock).
func Lock(t testing.TB) {
	t.Helper()
	Hosts(t)
	path := os.Getenv(EnvLock)
	if path == "" {
		path = filepath.Join(os.TempDir(), "cqlsize-dcs.lock")
	}
	// Registered before Lock's own cleanup, so it runs after it: the flag stays set
	// while the cleanup brings the cluster back.
	t.Cleanup(func() { locked.Store(false) })
	cluster.Lock(t, path, nil)
	locked.Store(true)
}

// locked says this process holds Lock.
var locked atomic.Bool

// cluster is the two-DC cluster in scripts/cassandra; Heal resumes and starts it a DC at a
// time.
var cluster = clusterctl.Cluster{Name: "dctest", Env: []string{"CQLSIZE_DCS=2", "CQLSIZE_NODES=1"},
	Parts: []string{"dc1", "dc2"}, HealTimeout: healTimeout}

// Stop stops target (a node number, or "dc1"/"dc2" for every node of the DC) with SIGTERM.
func Stop(t testing.TB, target string) { t.Helper(); control(t, "stop", target) }

// Kill SIGKILLs target (a node number or a DC): a crash, no goodbye to gossip.
func Kill(t testing.TB, target string) { t.Helper(); control(t, "kill", target) }

// Pause SIGSTOPs target (a node number or a DC): its sockets accept, nothing answers.
func Pause(t testing.TB, target string) { t.Helper(); control(t, "pause", target) }

// Resume SIGCONTs target.
func Resume(t testing.TB, target string) { t.Helper(); control(t, "resume", target) }

// Start starts target and waits until it answers CQL and every other node sees it UP.
func Start(t testing.TB, target string) { t.Helper(); control(t, "start", target) }

// WaitSeenDown waits (up to timeout) until every node that is up says, in
// `scripts/cassandra status`, that it does not see any node of dc UP: until then the others'
// coordinators may still send dc requests.
func WaitSeenDown(t testing.TB, dc string, timeout time.Duration) {
	t.Helper()
	var down []string
	for _, n := range Nodes(t) {
		if n.DC == dc {
			down = append(down, strconv.Itoa(n.N))
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		out, _ := script("status")
		if seenDown(out, down) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("dctest: the other nodes still see %s UP after %s:\n%s", dc, timeout, out)
		}
		time.Sleep(time.Second)
	}
}

// seenDown reads `scripts/cassandra status`: every node that is up says it does not see
// any of the nodes down UP.
func seenDown(status string, down []string) bool {
	for _, line := range strings.Split(status, "\n") {
		if !strings.Contains(line, ": up,") {
			continue
		}
		_, blind, _ := strings.Cut(line, "does not see node(s)")
		f := strings.Fields(blind)
		for _, d := range down {
			found := false
			for _, x := range f {
				if x == d {
					found = true
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}

func control(t testing.TB, cmd, target string) {
	t.Helper()
	if out, err := script(cmd, target); err != nil {
		t.Fatalf("dctest: %v\n%s", err, out)
	}
}

func script(args ...string) (string, error) { return cluster.Run(args...) }

// DCSession connects to the cluster with every query coordinated by a node of dc alone
// (the driver's host filter keeps the other DC's nodes out of every plan), bound to
// keyspace ks ("" for none): a LOCAL_QUORUM read through it sees what dc's replicas hold,
// and its read repair stays in dc.
func DCSession(t testing.TB, dc, ks string) *gocql.Session {
	t.Helper()
	cfg := Config(t, dc)
	cfg.Keyspace, cfg.Hosts = ks, HostsIn(t, dc)
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	cc.HostFilter = gocql.DataCentreHostFilter(dc)
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatalf("dctest: connect to %s alone: %v", dc, err)
	}
	t.Cleanup(s.Close)
	return s
}

// NodeOf is the node whose CQL address is host.
func NodeOf(t testing.TB, host string) Node {
	t.Helper()
	for _, n := range Nodes(t) {
		if n.Host == host {
			return n
		}
	}
	t.Fatalf("dctest: no node has address %s", host)
	return Node{}
}

// Nodetool runs nodetool against node n (`scripts/cassandra nodetool -n N ARGS`) and
// returns its output; a failure fails t.
func Nodetool(t testing.TB, n int, args ...string) string {
	t.Helper()
	out, err := script(append([]string{"nodetool", "-n", strconv.Itoa(n)}, args...)...)
	if err != nil {
		t.Fatalf("dctest: %v\n%s", err, out)
	}
	return out
}
