package migrations

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// TestMoving walks one keyspace through the states a check made outside the lock meets:
// nothing there, bookkeeping with nobody at work, another run holding the lock, and a
// history that moved on after the plan was read.
func TestMoving(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	migs := []*Migration{
		loadOne(t, "0001_a.cql", "CREATE TABLE a (k int PRIMARY KEY);"),
		loadOne(t, "0002_b.cql", "ALTER TABLE a ADD v text;"),
	}
	m, err := New(s, migs, Options{Keyspace: ks})
	if err != nil {
		t.Fatal(err)
	}
	moving := func(want string) {
		t.Helper()
		steps, err := m.Plan(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		why, err := m.Moving(ctx, steps, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want == "" && why != "" || want != "" && !strings.Contains(why, want) {
			t.Fatalf("Moving = %q, want %q", why, want)
		}
	}
	moving("") // no bookkeeping yet

	other := testStore(t, s, ks, 4321, 30*time.Second, time.Second)
	moving("") // bookkeeping, nobody in it

	l, err := other.acquire(ctx, noEvents, nil)
	if err != nil {
		t.Fatal(err)
	}
	moving("another run holds the migration lock (test-host pid 4321")
	if err := l.release(); err != nil {
		t.Fatal(err)
	}
	moving("")

	// The plan is read, then another run applies the first file.
	steps, err := m.Plan(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := New(s, migs, Options{Keyspace: ks})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m2.UpTo(ctx, 1); err != nil {
		t.Fatal(err)
	}
	why, err := m.Moving(ctx, steps, 0)
	if err != nil || !strings.Contains(why, "the history changed while this run read it (2 pending statements, now 1)") {
		t.Fatalf("Moving after another run applied a file = %q, %v", why, err)
	}
}
