package ringtest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
)

func TestMinority(t *testing.T) {
	for _, tc := range []struct {
		name string
		vers map[string]string
		want []string
	}{
		{"all agree", map[string]string{"a": "1", "b": "1", "c": "1"}, nil},
		{"one behind", map[string]string{"a": "1", "b": "2", "c": "1"}, []string{"b"}},
		{"two behind on different versions", map[string]string{"a": "1", "b": "2", "c": "3", "d": "1", "e": "1"}, []string{"b", "c"}},
		{"a tie names nobody", map[string]string{"a": "1", "b": "2"}, nil},
		{"three ways on three nodes", map[string]string{"a": "1", "b": "2", "c": "3"}, nil},
		{"one node", map[string]string{"a": "1"}, nil},
	} {
		if got := minority(tc.vers); !slices.Equal(got, tc.want) {
			t.Errorf("%s: minority = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestMendActsOnTheNodeLeftBehind follows one disagreement through simulated time: nothing
// is done while it is young, the node on its own version has its schema reset after
// nudgeAfter and is restarted after restartAfter, each once; the nodes that agree are never
// touched, and agreement forgets the disagreement.
func TestMendActsOnTheNodeLeftBehind(t *testing.T) {
	clock := time.Unix(0, 0)
	vers := map[string]string{"127.0.1.1": "a", "127.0.1.2": "a", "127.0.1.3": "b"}
	var ran []string
	m := newMender([]string{"127.0.1.1", "127.0.1.2:9042", "127.0.1.3"}, t.Logf)
	m.look = func(context.Context, []string) view { return view{own: vers} }
	m.run = func(nodes int, args ...string) (string, error) {
		if nodes != 3 {
			t.Errorf("run told of %d nodes, want 3", nodes)
		}
		ran = append(ran, strings.Join(args, " "))
		return "", nil
	}
	m.now = func() time.Time { return clock }
	step := func(at time.Duration, want ...string) {
		t.Helper()
		clock = time.Unix(0, 0).Add(at)
		ran = nil
		m.mend(context.Background())
		if !slices.Equal(ran, want) {
			t.Errorf("at %s: ran %q, want %q", at, ran, want)
		}
	}
	step(0)
	step(nudgeAfter)
	step(nudgeAfter+time.Second, "nodetool -n 3 resetlocalschema")
	step(nudgeAfter + 2*time.Second)
	step(restartAfter+time.Second, "stop 3", "start 3")
	step(restartAfter + time.Minute)
	err := m.explain(errors.New("context deadline exceeded"))
	if want := "context deadline exceeded (nodes' own versions: 127.0.1.1=a 127.0.1.2=a 127.0.1.3=b; reset the schema of node 3, restarted node 3)"; err.Error() != want {
		t.Errorf("explain = %q, want %q", err, want)
	}

	vers = map[string]string{"127.0.1.1": "a", "127.0.1.2": "a", "127.0.1.3": "a"}
	step(restartAfter + 2*time.Minute)
	if !m.since.IsZero() {
		t.Errorf("agreement did not forget the disagreement (since %v)", m.since)
	}
	vers = map[string]string{"127.0.1.1": "c", "127.0.1.2": "d", "127.0.1.3": "d"}
	step(restartAfter + 3*time.Minute)
	step(restartAfter+3*time.Minute+nudgeAfter+time.Second, "nodetool -n 1 resetlocalschema")
}

// TestRingVersionsAskEveryNode checks versions against the ring: every node answers for
// itself (none counted twice, none left out, whichever coordinator the driver picks), and
// on an agreed ring every node gives the version the driver's own agreement check saw.
func TestRingVersionsAskEveryNode(t *testing.T) {
	Lock(t) // a node an earlier test left behind is mended first
	hosts := Hosts(t)
	s := Session(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := AwaitAgreement(ctx, s); err != nil {
		t.Fatalf("agreement: %v", err)
	}
	var local gocql.UUID
	if err := s.Query(`SELECT schema_version FROM system.local WHERE key = 'local'`).Scan(&local); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		v := look(ctx, hosts)
		vers := v.own
		if len(vers) != len(hosts) || len(v.stale) != 0 {
			t.Fatalf("look = %s, want one version per node of %v and no stale gossip", v, hosts)
		}
		for _, h := range hosts {
			if v := vers[h]; v != local.String() {
				t.Errorf("node %s: version %q, want %s (all agree)", h, v, local)
			}
		}
	}
}

// TestRingMendsANodeLeftBehind leaves node 3 on a schema version of its own for real: its
// gossip is turned off, so the others mark it down and push it no schema change, while it
// still answers CQL with its old version. A keyspace is created through the others, and
// the mender (its waits shortened) must bring node 3 to the others' version by acting on
// node 3 alone: the schema reset, and if that does not do, the restart that turns gossip
// back on.
func TestRingMendsANodeLeftBehind(t *testing.T) {
	Lock(t)
	hosts := Hosts(t)
	if len(hosts) < 3 {
		t.Skipf("needs 3 nodes, the ring has %d", len(hosts))
	}
	nodes := len(hosts)
	if out, err := script(nodes, "nodetool", "-n", "3", "disablegossip"); err != nil {
		t.Fatalf("disablegossip on node 3: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		// Lock's cleanup heals only a ring whose nodes gossip; a restart already did this.
		if out, err := script(nodes, "nodetool", "-n", "3", "enablegossip"); err != nil {
			t.Logf("enablegossip on node 3: %v\n%s", err, out)
		}
	})
	WaitSeenDown(t, 3, time.Minute)

	c := config(hosts[:2])
	c.DriverAgreementWait = -1
	others, err := connect.OpenWith(context.Background(), c, func(cc *gocql.ClusterConfig) (*gocql.ClusterConfig, error) {
		cc.HostFilter = gocql.WhiteListHostFilter(hostAddr(hosts[0]), hostAddr(hosts[1]))
		return cc, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer others.Close()
	ks := cassandratest.KeyspaceName(t.Name())
	if err := others.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		t.Fatalf("create keyspace through nodes 1 and 2: %v", err)
	}
	t.Cleanup(func() {
		if err := Session(t).Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Logf("drop keyspace %s: %v", ks, err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// Nodes 1 and 2 agree within moments (the coordinator pushes to the other); node 3 never.
	for {
		before := look(ctx, hosts)
		if slices.Equal(before.late(), []string{hostAddr(hosts[2])}) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("before mending: %s; want node 3 alone behind", before)
		}
		time.Sleep(time.Second)
	}

	c = config(hosts)
	c.DriverAgreementWait = 3 * time.Second
	s, err := connect.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := newMender(hosts, t.Logf)
	m.nudgeAfter, m.restartAfter = 5*time.Second, 20*time.Second
	if err := m.await(ctx, s); err != nil {
		t.Fatalf("the ring did not agree: %v", err)
	}
	after := look(ctx, hosts)
	if len(after.own) != nodes || len(count(after.own)) != 1 || len(after.stale) != 0 {
		t.Errorf("after mending: %s; want every node on one version, gossiped as it is", after)
	}
	if !m.reset[3] && !m.restart[3] || len(m.reset)+len(m.restart) > 2 || m.reset[1] || m.reset[2] || m.restart[1] || m.restart[2] {
		t.Errorf("mended: reset %v, restarted %v; want node 3 alone", m.reset, m.restart)
	}
	t.Logf("mended node 3: reset %v, restarted %v", m.reset[3], m.restart[3])
}

func count(vers map[string]string) map[string]int {
	n := map[string]int{}
	for _, v := range vers {
		n[v]++
	}
	return n
}

// TestLateBlamesTheNodeWhoseGossipStopped: when the nodes' own versions agree, the node
// in the most stale gossip pairs is the one to mend; a single stale pair (gossip that has
// not spread yet) singles out nobody; a node on its own version comes first.
func TestLateBlamesTheNodeWhoseGossipStopped(t *testing.T) {
	agree := map[string]string{"1": "a", "2": "a", "3": "a"}
	for _, tc := range []struct {
		name string
		v    view
		want []string
	}{
		{"agreed", view{own: agree}, nil},
		{"gossip of node 3 stopped", view{own: agree, stale: [][2]string{{"1", "3"}, {"2", "3"}, {"3", "1"}, {"3", "2"}}}, []string{"3"}},
		{"one stale pair", view{own: agree, stale: [][2]string{{"1", "3"}}}, nil},
		{"own version first", view{own: map[string]string{"1": "a", "2": "b", "3": "b"}, stale: [][2]string{{"2", "3"}, {"3", "2"}, {"1", "3"}}}, []string{"1"}},
	} {
		if got := tc.v.late(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: late = %v, want %v", tc.name, got, tc.want)
		}
	}
	v := view{own: map[string]string{"127.0.1.2": "c2f05f3c-1d7e-3b52-9a37-3c1b3c8a4f10", "127.0.1.3": "c2f05f3c-1d7e-3b52-9a37-3c1b3c8a4f10"},
		stale: [][2]string{{"127.0.1.2", "127.0.1.3"}}}
	if got, want := v.String(), "127.0.1.2=c2f05f3c 127.0.1.3=c2f05f3c; 127.0.1.2 has a stale version for 127.0.1.3"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
