package migrations

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// The pure part of schema agreement: which nodes count, without a cluster.

func view(addr, version, status string, gen, beat int64) nodeView {
	return nodeView{Addr: addr + ":7000", Native: addr + ":9042", Version: version, Status: status, Gen: gen, Beat: beat}
}

func TestDecide(t *testing.T) {
	refused := errors.New("connection refused")
	for _, tc := range []struct {
		name     string
		n        nodeView
		probed   bool
		probeErr error
		beat     liveness
		want     liveness
	}{
		{"coordinator", nodeView{Coord: true}, false, nil, undecided, isUp},
		{"answers the probe", view("a", "v1", "NORMAL", 1, 5), true, nil, isDown, isUp},
		{"heartbeat moves, probe silent (address not routable from here)", view("a", "v1", "NORMAL", 1, 5), true, refused, isUp, isUp},
		{"gossip says shutdown", view("a", "v1", "shutdown", 1, 5), true, refused, undecided, isDown},
		{"paused: silent, heartbeat stands still", view("a", "v1", "NORMAL", 1, 5), true, refused, isDown, isDown},
		{"silent, heartbeat not watched long enough yet", view("a", "v1", "NORMAL", 1, 5), true, refused, undecided, undecided},
		{"no gossip (before 4.1): the probe decides", view("a", "v1", "", -1, -1), true, refused, undecided, isDown},
		{"not probed, nothing known", view("a", "v1", "NORMAL", 1, 5), false, nil, undecided, undecided},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decide(tc.n, tc.probed, tc.probeErr, tc.beat); got != tc.want {
				t.Errorf("decide = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestJudgeCountsTheNodesThatAreUp(t *testing.T) {
	nodes := []nodeView{
		view("127.0.1.1", "new", "NORMAL", 1, 9),
		view("127.0.1.2", "new", "NORMAL", 1, 9),
		view("127.0.1.3", "old", "shutdown", 1, 4),
		view("127.0.1.4", "older", "LEFT", 1, 2), // left the ring: never counted
	}
	live := map[string]liveness{"127.0.1.1:7000": isUp, "127.0.1.2:7000": undecided, "127.0.1.3:7000": isDown}

	counted, down := judge(nodes, live, false)
	if got := sortedNames(counted); got != "127.0.1.1:7000 127.0.1.2:7000" {
		t.Errorf("counted %s", got)
	}
	if got := sortedNames(down); got != "127.0.1.3:7000" {
		t.Errorf("down %s", got)
	}
	if !agreed(counted) {
		t.Error("the nodes that are up agree, but agreed says no")
	}

	counted, down = judge(nodes, live, true)
	if got := sortedNames(counted); got != "127.0.1.1:7000 127.0.1.2:7000 127.0.1.3:7000" {
		t.Errorf("strict: counted %s", got)
	}
	if len(down) != 1 {
		t.Errorf("strict: down %v, want the stopped node named", down)
	}
	if agreed(counted) {
		t.Error("strict: a down node at an old version must keep agreement from being reached")
	}
}

func TestAgreedNeedsAKnownVersion(t *testing.T) {
	if agreed([]nodeView{view("a", "v", "", 1, 1), view("b", "", "", 1, 1)}) {
		t.Error("a node without a schema version yet counted as agreeing")
	}
	if !agreed(nil) {
		t.Error("no node to count is agreement")
	}
}

// Gossip about other nodes lags: agreement needs each node's own report, except after the
// grace for a node never reached.
func TestConfirmed(t *testing.T) {
	counted := []nodeView{view("a", "new", "", 1, 1), view("b", "new", "", 1, 1)}
	if confirmed(counted, map[string]string{"a:7000": "new"}, false) {
		t.Error("b never reported itself, and the grace has not passed")
	}
	if !confirmed(counted, map[string]string{"a:7000": "new"}, true) {
		t.Error("after the grace, gossip's word for b is accepted")
	}
	if confirmed(counted, map[string]string{"a:7000": "new", "b:7000": "old"}, true) {
		t.Error("b said itself it is at the old version")
	}
}

func TestTrackerHeartbeats(t *testing.T) {
	now := time.Unix(1000, 0)
	tr := newTracker()
	tr.now = func() time.Time { return now }
	n := view("a", "v", "NORMAL", 7, 100)
	if got := tr.observe([]nodeView{n})["a:7000"]; got != undecided {
		t.Fatalf("first sight: %d", got)
	}
	now = now.Add(time.Second)
	n.Beat = 101
	if got := tr.observe([]nodeView{n})["a:7000"]; got != isUp {
		t.Fatalf("heartbeat moved: %d", got)
	}
	now = now.Add(beatWindow - time.Millisecond)
	if got := tr.observe([]nodeView{n})["a:7000"]; got != undecided {
		t.Fatalf("still within the window: %d", got)
	}
	now = now.Add(time.Millisecond)
	if got := tr.observe([]nodeView{n})["a:7000"]; got != isDown {
		t.Fatalf("heartbeat still for the window: %d", got)
	}
	n.Gen, n.Beat = 8, 1 // restarted
	if got := tr.observe([]nodeView{n})["a:7000"]; got != isUp {
		t.Fatalf("new generation: %d", got)
	}
}

func TestWarnDownOncePerNode(t *testing.T) {
	var got []string
	a := agreement{warn: func(m string) { got = append(got, m) }}
	tr := newTracker()
	down := []nodeView{view("127.0.1.3", "old", "shutdown", 1, 1)}
	up := []nodeView{view("127.0.1.1", "v", "", 1, 1), view("127.0.1.2", "v", "", 1, 1)}
	a.warnDown(tr, down, up)
	a.warnDown(tr, down, up)
	if len(got) != 1 {
		t.Fatalf("%d warnings, want 1: %q", len(got), got)
	}
	for _, want := range []string{"node 127.0.1.3:7000 (shut down) is down", "counts the 2 nodes that are up", "Options.RequireAllNodes"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("warning %q lacks %q", got[0], want)
		}
	}
	if w := downWarning([]string{"a:7000", "b:7000 (shut down)"}, 1); !strings.HasPrefix(w, "nodes a:7000, b:7000 (shut down) are down: schema agreement counts the 1 node that is up;") {
		t.Errorf("two down, one counted: %q", w)
	}
}

func TestDisagreementNamesDownNodes(t *testing.T) {
	last := []nodeView{view("127.0.1.1", "new", "NORMAL", 1, 1), view("127.0.1.2", "new", "NORMAL", 1, 1), view("127.0.1.3", "old", "shutdown", 1, 1)}
	err := disagreement("0001_a.cql:1:1", agreement{timeout: 5 * time.Second, requireAll: true}, last, last[2:], nil)
	if !errors.Is(err, ErrSchemaDisagreement) {
		t.Fatalf("%v is not ErrSchemaDisagreement", err)
	}
	for _, want := range []string{"127.0.1.3:7000 has old (down)", "127.0.1.3:7000 down, and Options.RequireAllNodes waits for every node", "no agreement within 5s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

func TestGossipRow(t *testing.T) {
	row := map[string]any{
		"address": net.ParseIP("127.0.1.2"), "port": 7000, "native_address_and_port": "127.0.1.2:9042",
		"schema": "d0378", "status_with_port": "NORMAL,-3074457345618258604", "status": "", "generation": 1795440531, "heartbeat": 152,
	}
	n := gossipRow(row, "127.0.1.2")
	if n.Addr != "127.0.1.2:7000" || n.Native != "127.0.1.2:9042" || n.Version != "d0378" || n.Status != "NORMAL" ||
		n.Gen != 1795440531 || n.Beat != 152 || !n.Coord {
		t.Errorf("gossipRow = %+v", n)
	}
	row["native_address_and_port"], row["rpc_address"] = "", "10.0.0.5"
	if n := gossipRow(row, "127.0.1.1"); n.Native != "10.0.0.5:9042" || n.Coord {
		t.Errorf("fallback to rpc_address: %+v", n)
	}
}

// The probe tells a silent listener (a SIGSTOPped node accepts, then says nothing) from a
// closed port and from a process that answers or hangs up.
func TestProbeCQL(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // never answered, never closed until the test ends
		}
	}()
	hangup, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hangup.Close()
	go func() {
		for {
			c, err := hangup.Accept()
			if err != nil {
				return
			}
			c.Close() // what a TLS-only port does with a plain frame
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	ctx := context.Background()
	if err := probeCQL(ctx, silent.Addr().String()); err == nil {
		t.Error("a silent listener counted as up")
	}
	if err := probeCQL(ctx, hangup.Addr().String()); err != nil {
		t.Errorf("a listener that hangs up counted as down: %v", err)
	}
	if err := probeCQL(ctx, closedAddr); err == nil {
		t.Error("a closed port counted as up")
	}
}

func sortedNames(nodes []nodeView) string {
	var s []string
	for _, n := range nodes {
		s = append(s, n.Addr)
	}
	return strings.Join(s, " ")
}
