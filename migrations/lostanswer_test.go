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

// A statement this run sent whose answer was lost (the coordinator timed out, the connection
// dropped) may have been applied. A counter update cannot be sent again, so the run itself
// stops in doubt (exit 4 in the CLI) instead of reporting a partial run that the next run
// would "continue" by sending it twice; an idempotent statement keeps the partial error, and
// the next run sends it again. The statements really reach the node; only the answer of
// statement 2 is replaced by the driver's timeout, as when the coordinator's reply is lost.
func TestLostAnswerOfACounterUpdateIsInDoubtAtOnce(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cassandratest.DDL(t, s, ks, `CREATE TABLE hits (k text PRIMARY KEY, n counter)`, `CREATE TABLE notes (k text PRIMARY KEY, v text)`)
	lose := func(i int, err error) error {
		if i == 2 && err == nil {
			return gocql.ErrTimeoutNoResponse
		}
		return err
	}

	counters := loadOne(t, "0001_hits.cql", "UPDATE hits SET n = n + 1 WHERE k = 'one';\nUPDATE hits SET n = n + 1 WHERE k = 'two';\nUPDATE hits SET n = n + 1 WHERE k = 'three';")
	m, err := New(s, []*Migration{counters}, Options{Keyspace: ks, LockTTL: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m.lostAnswer = lose
	_, err = m.Up(ctx)
	var ide *InDoubtError
	if !errors.Is(err, ErrInDoubt) || !errors.As(err, &ide) || ide.Statement != 2 || ide.Cause == nil {
		t.Fatalf("Up: %v, want an InDoubtError at statement 2 carrying the lost answer", err)
	}
	for _, want := range []string{"this run sent it", "no response received", "Migrator.Resolve(1, 2, true)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	m.lostAnswer = nil
	st, err := m.Status(ctx)
	if err != nil || st[0].State != StatusInDoubt {
		t.Fatalf("status after the lost answer: %+v, %v; want in-doubt", st, err)
	}
	// The next run must not send it again: it stops at the same statement.
	if _, err := m.Up(ctx); !errors.Is(err, ErrInDoubt) {
		t.Fatalf("second Up: %v, want in doubt again", err)
	}
	if n := counter(t, s, "two"); n != 1 {
		t.Fatalf("counter two = %d, want 1 (sent once, never again)", n)
	}
	if n := counter(t, s, "three"); n != 0 {
		t.Fatalf("counter three = %d: nothing after the in-doubt statement may run", n)
	}
	if err := m.Resolve(ctx, 1, 2, true); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("Up after resolve --applied: %v", err)
	}
	for k, want := range map[string]int64{"one": 1, "two": 1, "three": 1} {
		if n := counter(t, s, k); n != want {
			t.Errorf("counter %s = %d, want %d", k, n, want)
		}
	}

	// An idempotent statement whose answer was lost is not in doubt: the run stops partway
	// (exit 3) and the next run sends it again.
	plain := loadOne(t, "0002_notes.cql", "INSERT INTO notes (k, v) VALUES ('a', 'x');\nINSERT INTO notes (k, v) VALUES ('b', 'y');")
	m2, err := New(s, []*Migration{counters, plain}, Options{Keyspace: ks, LockTTL: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m2.lostAnswer = lose
	_, err = m2.Up(ctx)
	var pe *PartialError
	if errors.Is(err, ErrInDoubt) || !errors.As(err, &pe) || pe.Statement != 2 {
		t.Fatalf("Up of idempotent inserts: %v, want a PartialError at statement 2", err)
	}
	m2.lostAnswer = nil
	if _, err := m2.Up(ctx); err != nil {
		t.Fatalf("the next run: %v", err)
	}
	var v string
	if err := s.Query(`SELECT v FROM notes WHERE k = 'b'`).Scan(&v); err != nil || v != "y" {
		t.Fatalf("notes b = %q, %v", v, err)
	}
}

// A schema change whose answer was lost is settled within the run: the run waits for
// agreement and finds the ALTER's column there (done), sends the CREATE ... IF NOT EXISTS
// again (it cannot apply twice), and goes on to the end, where before it stopped (exit 3)
// and left the next deploy to finish. The answers of statements 2 and 3 are replaced by
// the driver's timeout after each really reached the node.
func TestLostAnswerOfASchemaChangeIsSettledInTheRun(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mg := loadOne(t, "0001_a.cql", `CREATE TABLE a (k int PRIMARY KEY);
ALTER TABLE a ADD v text;
CREATE TABLE IF NOT EXISTS b (k int PRIMARY KEY);
INSERT INTO a (k, v) VALUES (1, 'x');`)
	var recovered []string
	m, err := New(s, []*Migration{mg}, Options{Keyspace: ks, LockTTL: 5 * time.Second, OnEvent: func(e Event) {
		if e.Kind == Recovered {
			recovered = append(recovered, e.Message)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	m.lostAnswer = func(i int, err error) error {
		if (i == 2 || i == 3) && err == nil {
			return gocql.ErrTimeoutNoResponse
		}
		return err
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("Up with two lost answers of schema changes: %v", err)
	}
	if len(recovered) != 2 || !strings.Contains(recovered[0], "statement 2") || !strings.Contains(recovered[0], "counted as done") ||
		!strings.Contains(recovered[1], "statement 3") || !strings.Contains(recovered[1], "sent again") {
		t.Errorf("recovered events: %q", recovered)
	}
	st, err := m.Status(ctx)
	if err != nil || len(st) != 1 || st[0].State != StatusApplied {
		t.Fatalf("status: %+v, %v; want applied", st, err)
	}
	var v string
	if err := s.Query(`SELECT v FROM a WHERE k = 1`).Scan(&v); err != nil || v != "x" {
		t.Fatalf("a[1].v = %q, %v", v, err)
	}
	if err := s.Query(`SELECT k FROM b LIMIT 1`).Exec(); err != nil {
		t.Fatalf("table b: %v", err)
	}
}
