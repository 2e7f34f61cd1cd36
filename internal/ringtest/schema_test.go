package ringtest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
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
	m.look = func(context.Context, []string) map[string]string { return vers }
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
		vers := versions(ctx, hosts)
		if len(vers) != len(hosts) {
			t.Fatalf("versions = %v, want one per node of %v", vers, hosts)
		}
		for _, h := range hosts {
			if v := vers[h]; v != local.String() {
				t.Errorf("node %s: version %q, want %s (all agree)", h, v, local)
			}
		}
	}
}
