package backfill

import (
	"testing"
	"time"
)

func TestRemainingTTL(t *testing.T) {
	for _, c := range []struct {
		ttl     int
		elapsed time.Duration
		want    int
	}{
		{100, 0, 100},
		{100, time.Millisecond, 99}, // rounded up: never longer than the source's
		{100, time.Second, 99},
		{100, 2500 * time.Millisecond, 97},
		{100, -time.Second, 100}, // a clock step back counts as no time
		{3, 5 * time.Second, 1},  // expired meanwhile: the shortest TTL there is
	} {
		if got := remainingTTL(c.ttl, c.elapsed); got != c.want {
			t.Errorf("remainingTTL(%d, %s) = %d, want %d", c.ttl, c.elapsed, got, c.want)
		}
	}
}

func TestStatementArgsCountTheTTLDown(t *testing.T) {
	read := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := &rowWriter{b: &rowBuilder{cols: []tcol{{quoted: "k", key: true}, {quoted: "v"}}, keys: []int{0}}, table: "ks.t", where: "k = ?", keyIns: "k", texts: map[textKey]string{}}
	tr := &targetRow{key: []any{1}, readAt: read, liveness: stamp{10, 0}, groups: map[stamp][]targetCell{
		{10, 0}:  nil,
		{20, 60}: {{col: 1, value: "x"}},
	}}
	stmts := w.statements(tr)
	if len(stmts) != 2 {
		t.Fatalf("%d statements, want an INSERT and an UPDATE: %v", len(stmts), stmts)
	}
	if got := stmts[0].argsAt(read.Add(time.Hour)); len(got) != 2 || got[1] != int64(10) {
		t.Errorf("insert with no TTL: args %v, want [1 10] whenever it is sent", got)
	}
	got := stmts[1].argsAt(read.Add(4 * time.Second))
	if got[0] != 56 || got[1] != int64(20) {
		t.Errorf("update sent 4s after the read: args %v, want TTL 56 at timestamp 20", got)
	}
	if stmts[1].args[0] != 60 {
		t.Errorf("argsAt changed the statement's own TTL to %v: a retry would count twice", stmts[1].args[0])
	}
}
