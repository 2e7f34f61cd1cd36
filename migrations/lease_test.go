package migrations

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// The lease is valid from the moment its request was sent, minus the margin, and check
// refuses once that moment has passed, whatever the renewal goroutine last did.
func TestLeaseDeadlineCountsFromSend(t *testing.T) {
	const ttl = 3 * time.Second
	sent := time.Now().Add(-time.Second) // the request left a second ago; the answer came now
	l := &lease{ttl: ttl, epoch: sent, done: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancelCause(context.Background())
	defer l.cancel(nil)
	l.extend(sent)
	want := sent.Add(ttl - leaseMargin(ttl))
	if d := l.deadline().Sub(want); d < -time.Millisecond || d > time.Millisecond {
		t.Fatalf("deadline %s after the send, want %s", l.deadline().Sub(sent), want.Sub(sent))
	}
	if err := l.check(); err != nil {
		t.Fatalf("check with %s left: %v", time.Until(l.deadline()), err)
	}
	// An older renewal does not move the deadline back.
	l.extend(sent.Add(-time.Second))
	if l.deadline().Before(want) {
		t.Fatal("an earlier send moved the deadline back")
	}
	// A holder whose last successful request was sent a TTL ago (it was frozen since)
	// must not send anything, even though nothing told it the lease was lost.
	stale := &lease{ttl: ttl, epoch: time.Now().Add(-ttl), done: make(chan struct{})}
	stale.ctx, stale.cancel = context.WithCancelCause(context.Background())
	defer stale.cancel(nil)
	stale.extend(stale.epoch)
	if err := stale.check(); !errors.Is(err, ErrLockLost) || !strings.Contains(err.Error(), "may have expired") {
		t.Fatalf("check on a lease sent %s ago: %v, want ErrLockLost", ttl, err)
	}
	if m := leaseMargin(DefaultLockTTL); m != 7*time.Second {
		t.Errorf("margin for the default TTL: %s", m)
	}
}

// Once a successor has fenced the bookkeeping, every write of the previous holder is
// refused, so a holder that wakes up late records nothing, and its intent for the next
// statement is never written.
func TestFenceRefusesThePreviousHolder(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := testStore(t, s, ks, 3001, 3*time.Second, time.Second)
	b := testStore(t, s, ks, 3002, 3*time.Second, time.Second)
	mg, err := Parse("m/0001_x.cql", []byte("CREATE TABLE IF NOT EXISTS x (k int PRIMARY KEY);\nINSERT INTO x (k) VALUES (1);"))
	if err != nil {
		t.Fatal(err)
	}
	ownerA, ownerB := gocql.TimeUUID(), gocql.TimeUUID()
	if err := a.takeOver(ctx, ownerA); err != nil {
		t.Fatal(err)
	}
	if err := a.newFileRecorder(ownerA, mg, gocql.TimeUUID(), false, 0).intent(ctx, 1, 1); err != nil {
		t.Fatal(err)
	}
	if err := a.starting(ctx, ownerA, mg, 1); err != nil {
		t.Fatal(err)
	}
	// B takes over (A's lease expired while it was frozen).
	if err := b.takeOver(ctx, ownerB); err != nil {
		t.Fatal(err)
	}
	err = a.done(ctx, ownerA, mg, 1)
	if !errors.Is(err, ErrLockLost) || !strings.Contains(err.Error(), ownerB.String()) {
		t.Fatalf("A's done after B took over: %v, want ErrLockLost naming B", err)
	}
	if err := a.starting(ctx, ownerA, mg, 2); !errors.Is(err, ErrLockLost) {
		t.Fatalf("A's next intent after B took over: %v, want ErrLockLost", err)
	}
	var running, applied int
	if err := s.Query(`SELECT running, applied FROM cqlsize_migrations WHERE target = ? AND version = 1`, ks).Scan(&running, &applied); err != nil {
		t.Fatal(err)
	}
	if running != 1 || applied != 0 {
		t.Fatalf("after A was fenced: running %d applied %d, want B to see statement 1 in flight", running, applied)
	}
	if err := b.done(ctx, ownerB, mg, 1); err != nil {
		t.Fatalf("B's own write: %v", err)
	}
}

// A bookkeeping table made by an earlier cqlsize (without the fence columns) keeps its
// history and gets the columns added under the lock on the next run.
func TestOldBookkeepingTableGetsFenceColumns(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The table as cqlsize created it before fencing.
	cassandratest.DDL(t, s, ks, `CREATE TABLE cqlsize_migrations (
			target text, version bigint,
			name text, checksum text, previous_checksum text, state text,
			statements int, applied int, running int,
			statement_done map<int, timestamp>, statement_checksum map<int, text>,
			error text, started_at timestamp, finished_at timestamp,
			applied_by text, pid int, tool_version text, run_id uuid,
			PRIMARY KEY ((target), version))`)
	one, err := Parse("m/0001_a.cql", []byte("CREATE TABLE a (k int PRIMARY KEY);"))
	if err != nil {
		t.Fatal(err)
	}
	two, err := Parse("m/0002_b.cql", []byte("CREATE TABLE b (k int PRIMARY KEY);"))
	if err != nil {
		t.Fatal(err)
	}
	cassandratest.DDL(t, s, ks, `CREATE TABLE a (k int PRIMARY KEY)`)
	if err := s.Query(`INSERT INTO cqlsize_migrations (target, version, name, checksum, state, statements, applied, running,
		statement_checksum) VALUES (?, 1, '0001_a.cql', ?, 'applied', 1, 1, 0, ?)`, ks, one.Checksum, map[int]string{1: one.Statements[0].Checksum}).Exec(); err != nil {
		t.Fatal(err)
	}
	m, err := New(s, []*Migration{one, two}, Options{Keyspace: ks})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Up(ctx)
	if err != nil || len(res.Applied) != 1 || res.Applied[0].Migration.Version != 2 {
		t.Fatalf("Up on an old bookkeeping table: %+v, %v", res, err)
	}
	for _, c := range fenceColumns {
		var kind string
		if err := s.Query(`SELECT kind FROM system_schema.columns WHERE keyspace_name = ? AND table_name = 'cqlsize_migrations' AND column_name = ?`,
			ks, c.name).Scan(&kind); err != nil {
			t.Errorf("column %s: %v", c.name, err)
		}
	}
	st, err := m.Status(ctx)
	if err != nil || len(st) != 2 || st[0].State != StatusApplied || st[1].State != StatusApplied {
		t.Fatalf("status: %+v, %v", st, err)
	}
}
