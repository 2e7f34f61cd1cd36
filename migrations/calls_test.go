package migrations_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

// A registered call runs in its place: after the statements above its line and before
// the ones below it, once; an unregistered one stops the run before anything is applied.
func TestGocqlxCallsRunBetweenStatements(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	set, err := migrations.LoadSetAs(mapFS(map[string]string{
		"001_a.cql": "CREATE TABLE a (k int PRIMARY KEY, v text);\n-- CALL fill_a;\nCREATE TABLE b (k int PRIMARY KEY);\n",
	}), "m", migrations.LayoutGocqlx)
	if err != nil {
		t.Fatal(err)
	}
	exists := func(table string) bool {
		var n int
		if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, ks, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	m, _ := newMigrator(t, s, ks, set.Migrations, migrations.Options{})
	_, err = m.Up(ctx)
	var ce *migrations.CallError
	if !errors.As(err, &ce) || !errors.Is(err, migrations.ErrUnknownCall) || ce.Call.Name != "fill_a" || exists("a") {
		t.Fatalf("an unregistered call: %v (table a exists: %v)", err, exists("a"))
	}

	calls := 0
	fill := func(ctx context.Context, s *gocql.Session) error {
		calls++
		if !exists("a") || exists("b") {
			return fmt.Errorf("called out of place: a %v, b %v", exists("a"), exists("b"))
		}
		return s.Query(`INSERT INTO ` + ks + `.a (k, v) VALUES (1, 'filled')`).WithContext(ctx).Exec()
	}
	m, _ = newMigrator(t, s, ks, set.Migrations, migrations.Options{Calls: map[string]migrations.CallFunc{"fill_a": fill}})
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := s.Query(`SELECT v FROM a WHERE k = 1`).Scan(&v); err != nil || v != "filled" || calls != 1 || !exists("b") {
		t.Fatalf("v = %q (%v), %d calls, table b %v", v, err, calls, exists("b"))
	}
	// Up to date: the call does not run again.
	if _, err := m.Up(ctx); err != nil || calls != 1 {
		t.Fatalf("second up: %v, %d calls", err, calls)
	}
}

// A failing call stops the file at its place; the next run, with the call fixed, calls
// it again and goes on from the statement after it.
func TestGocqlxFailedCallResumes(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	set, err := migrations.LoadSetAs(mapFS(map[string]string{
		"001_a.cql": "CREATE TABLE a (k int PRIMARY KEY);\n-- CALL step;\nCREATE TABLE b (k int PRIMARY KEY);\n",
	}), "m", migrations.LayoutGocqlx)
	if err != nil {
		t.Fatal(err)
	}
	fail := true
	calls := 0
	step := func(context.Context, *gocql.Session) error {
		calls++
		if fail {
			return errors.New("not yet")
		}
		return nil
	}
	m, _ := newMigrator(t, s, ks, set.Migrations, migrations.Options{Calls: map[string]migrations.CallFunc{"step": step}})
	if _, err := m.Up(ctx); err == nil || !strings.Contains(err.Error(), "-- CALL step; failed: not yet") {
		t.Fatalf("failing call: %v", err)
	}
	fail = false
	if _, err := m.Up(ctx); err != nil || calls != 2 {
		t.Fatalf("resumed: %v, %d calls", err, calls)
	}
	st, err := m.Status(ctx)
	if err != nil || len(st) != 1 || st[0].State != migrations.StatusApplied || st[0].Record.Applied != 2 {
		t.Fatalf("status %+v, %v", st, err)
	}
}
