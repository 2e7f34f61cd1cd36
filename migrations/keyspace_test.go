package migrations_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/migrations"
)

// A session bound to keyspace A with Options.Keyspace B is refused before anything is
// created: the files would go to A and the history to B.
func TestSessionBoundToAnotherKeyspaceIsRefused(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	other := "other_" + ks[len(ks)-8:]
	_, err := migrations.New(s, load(t, basic), migrations.Options{Keyspace: other,
		Replication: "{'class': 'SimpleStrategy', 'replication_factor': 1}"})
	var we *migrations.WrongKeyspaceError
	if !errors.Is(err, migrations.ErrWrongKeyspace) || !errors.As(err, &we) || we.Session != ks || we.Keyspace != other {
		t.Fatalf("New with a session bound to %s and keyspace %s: %v", ks, other, err)
	}
	if !strings.Contains(err.Error(), "bound to keyspace "+ks) || !strings.Contains(err.Error(), "target keyspace is "+other) {
		t.Errorf("message does not name both keyspaces: %v", err)
	}
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.keyspaces WHERE keyspace_name = ?`, other).Scan(&n); err != nil || n != 0 {
		t.Fatalf("keyspace %s exists (%d, %v): something was created", other, n, err)
	}
	// The same keyspace is fine.
	if _, err := migrations.New(s, load(t, basic), migrations.Options{Keyspace: ks}); err != nil {
		t.Fatal(err)
	}
}

// qualifiedSet touches every kind of name an unqualified file uses.
var qualifiedSet = map[string]string{
	"0001_schema.cql": `CREATE TYPE address (street text, city text);
CREATE TABLE users (id int PRIMARY KEY, name text, home frozen<address>, tags set<text>);
CREATE TABLE hits (k text PRIMARY KEY, n counter);
CREATE INDEX users_by_name ON users (name);`,
	"0002_data.cql": `INSERT INTO users (id, name, home) VALUES (1, 'ann', {street: 'main', city: 'x'});
UPDATE users SET tags = tags + {'a'} WHERE id = 1;
BEGIN BATCH
  INSERT INTO users (id, name) VALUES (2, 'bob');
  DELETE tags FROM users WHERE id = 1;
APPLY BATCH;
UPDATE hits SET n = n + 1 WHERE k = 'once';
ALTER TABLE users ADD email text;
DROP INDEX users_by_name;`,
}

// An unbound session with Options.Replication: the keyspace is created, every statement of
// the files runs in it, and the history is recorded there.
func TestUnboundSessionRunsInTheTargetKeyspace(t *testing.T) {
	s := cassandratest.Session(t)
	ks := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := migrations.New(s, load(t, qualifiedSet), migrations.Options{Keyspace: ks,
		Replication: "{'class': 'SimpleStrategy', 'replication_factor': 1}"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Up(ctx)
	if err != nil || len(res.Applied) != 2 {
		t.Fatalf("Up with an unbound session: %+v, %v", res, err)
	}
	tables := map[string]bool{}
	iter := s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?`, ks).Iter()
	var name string
	for iter.Scan(&name) {
		tables[name] = true
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"users", "hits", "cqlsize_migrations", "cqlsize_migrations_lock"} {
		if !tables[want] {
			t.Errorf("table %s.%s missing (have %v)", ks, want, tables)
		}
	}
	var email int
	if err := s.Query(`SELECT count(*) FROM system_schema.columns WHERE keyspace_name = ? AND table_name = 'users' AND column_name = 'email'`, ks).Scan(&email); err != nil || email != 1 {
		t.Errorf("ALTER TABLE users ADD email did not land in %s: %d, %v", ks, email, err)
	}
	var users int
	if err := s.Query(`SELECT count(*) FROM ` + ks + `.users`).Scan(&users); err != nil || users != 2 {
		t.Errorf("%s.users has %d rows (%v), want 2", ks, users, err)
	}
	var n int64
	if err := s.Query(`SELECT n FROM ` + ks + `.hits WHERE k = 'once'`).Consistency(gocql.One).Scan(&n); err != nil || n != 1 {
		t.Errorf("%s.hits once = %d (%v)", ks, n, err)
	}
	st, err := m.Status(ctx)
	if err != nil || len(st) != 2 || st[0].State != migrations.StatusApplied || st[1].State != migrations.StatusApplied {
		t.Fatalf("status: %+v, %v", st, err)
	}
	// A session bound to the keyspace sees the same history: nothing left to apply.
	cfg := cassandratest.Config(t)
	cfg.Keyspace = ks
	bound, err := connect.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer bound.Close()
	m2, err := migrations.New(bound, load(t, qualifiedSet), migrations.Options{Keyspace: ks})
	if err != nil {
		t.Fatal(err)
	}
	if steps, err := m2.Plan(ctx, 0); err != nil || len(steps) != 0 {
		t.Fatalf("plan through a bound session: %d steps, %v", len(steps), err)
	}
}
