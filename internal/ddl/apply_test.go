package ddl_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/ddl"
)

func TestApplyJudges(t *testing.T) {
	id := ddl.TableID("test", "ks", "t")
	for _, c := range []struct {
		stmt, what, text string
		checked          bool
	}{
		{"CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "create keyspace k2", "", true},
		{"DROP KEYSPACE IF EXISTS k2", "drop keyspace k2", "", true},
		{"CREATE TABLE t (k int PRIMARY KEY)", "create table ks.t", "CREATE TABLE t (k int PRIMARY KEY) WITH ID = " + id, true},
		{"CREATE TABLE IF NOT EXISTS ks.t (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC);", "create table ks.t",
			"CREATE TABLE IF NOT EXISTS ks.t (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC) AND ID = " + id, true},
		{"-- the posts (by user, by day)\nCREATE TABLE t (k int PRIMARY KEY) WITH comment = 'x'", "create table ks.t", "CREATE TABLE t (k int PRIMARY KEY) WITH comment = 'x' AND ID = " + id, true},
		{"CREATE TABLE other.t (k int PRIMARY KEY)", "create table other.t", "CREATE TABLE other.t (k int PRIMARY KEY) WITH ID = " + ddl.TableID("test", "other", "t"), true},
		{`CREATE TABLE "Mixed" (k int PRIMARY KEY)`, "create table ks.Mixed", `CREATE TABLE "Mixed" (k int PRIMARY KEY) WITH ID = ` + ddl.TableID("test", "ks", "Mixed"), true},
		{"DROP TABLE t", "drop table ks.t", "", true},
		{"CREATE TYPE addr (street text)", "create type ks.addr", "", true},
		{"DROP TYPE IF EXISTS ks.addr", "drop type ks.addr", "", true},
		{"CREATE INDEX ON t (v)", "create index on ks.t (v)", "", true},
		{"CREATE INDEX by_tag ON t (KEYS(tags))", "create index on ks.t (keys(tags))", "", true},
		{"DROP INDEX by_tag", "drop index ks.by_tag", "", true},
		{"CREATE MATERIALIZED VIEW v AS SELECT * FROM t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)", "create materialized view ks.v", "", true},
		{"DROP MATERIALIZED VIEW v", "drop materialized view ks.v", "", true},
		{"ALTER TABLE t ADD (a int, b text)", "alter table ks.t ADD", "", true},
		{"ALTER TABLE t DROP a", "alter table ks.t DROP", "", true},
		// Not checked: sent once.
		{"ALTER TABLE t WITH gc_grace_seconds = 0", "", "", false},
		{"ALTER TABLE t RENAME k TO k2", "", "", false},
		{"TRUNCATE t", "", "", false},
		{"INSERT INTO t (k) VALUES (1)", "", "", false},
		{"CREATE TABLE (", "", "", false},
	} {
		what, text, checked := ddl.Judged("test", "ks", c.stmt)
		want := c.text
		if want == "" && c.checked {
			want = c.stmt
		}
		if what != c.what || text != want || checked != c.checked {
			t.Errorf("%s:\n got %q, %q, %v\nwant %q, %q, %v", c.stmt, what, text, checked, c.what, want, c.checked)
		}
	}
}

// Each kind of change whose first answer misses the client's timeout: Apply succeeds once
// the effect is there, and sends nothing when it already is.
func TestApplyAfterClientTimeout(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	// Qualified: the first send goes on a session with no keyspace.
	for _, stmt := range []string{
		"CREATE TYPE %s.addr (street text, city text)",
		"CREATE TABLE %s.events (k int, c int, v text, tags map<text, int>, PRIMARY KEY (k, c))",
		"ALTER TABLE %s.events ADD (home frozen<addr>, n int)",
		"CREATE INDEX ON %s.events (v)",
		"CREATE INDEX events_by_tag ON %s.events (KEYS(tags))",
		"CREATE MATERIALIZED VIEW %s.events_by_c AS SELECT k, c FROM events WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
		"DROP MATERIALIZED VIEW %s.events_by_c",
		"DROP INDEX %s.events_by_tag",
		"ALTER TABLE %s.events DROP n",
		"DROP TABLE %s.events",
		"DROP TYPE %s.addr",
	} {
		stmt := fmt.Sprintf(stmt, ks)
		f := newFirstTimesOut(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		err := ddl.ApplySending(ctx, s, "test", ks, stmt, ddl.Options{}, f.send)
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", stmt, err)
		}
		if !errors.Is(f.first, gocql.ErrTimeoutNoResponse) {
			t.Errorf("%s: the first attempt returned %v, not the driver's timeout: the test provoked nothing", stmt, f.first)
		}
		before := f.sends.Load()
		if err := ddl.ApplySending(ctx, s, "test", ks, stmt, ddl.Options{}, f.send); err != nil || f.sends.Load() != before {
			t.Errorf("%s again: %v after %d more sends, want nil after none", stmt, err, f.sends.Load()-before)
		}
		cancel()
		t.Logf("%s: %d sends", stmt, before)
	}
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ?`, ks).Scan(&n); err != nil || n != 0 {
		t.Errorf("tables left in %s: %d, %v", ks, n, err)
	}
}

// A statement Apply cannot check is sent once and its answer returned.
func TestApplyUncheckedIsSentOnce(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	if err := ddl.Apply(context.Background(), s, "test", ks, "CREATE TABLE t (k int PRIMARY KEY, v int)", ddl.Options{}); err != nil {
		t.Fatal(err)
	}
	var sends int
	send := func(ctx context.Context, stmt string) error {
		sends++
		return s.Query(stmt).WithContext(ctx).Exec()
	}
	err := ddl.ApplySending(context.Background(), s, "test", ks, "ALTER TABLE t RENAME v TO w", ddl.Options{}, send)
	var req gocql.RequestError
	if !errors.As(err, &req) || req.Code() != gocql.ErrCodeInvalid || sends != 1 {
		t.Errorf("renaming a regular column: %v after %d sends, want the node's invalid-request answer after 1", err, sends)
	}
}

// A first send lost before it reached the node, and the same change landing (a late copy,
// another process) just before the second: the node refuses the second ("does not exist"),
// and the change counts as done because its effect is there.
func TestApplyRefusedOnceTheEffectIsThereIsDone(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	if err := ddl.Apply(context.Background(), s, "test", ks, "CREATE TABLE t (k int PRIMARY KEY)", ddl.Options{}); err != nil {
		t.Fatal(err)
	}
	var sends int
	var refused error
	send := func(ctx context.Context, stmt string) error {
		sends++
		if sends == 1 {
			return fmt.Errorf("lost on the way: %w", gocql.ErrTimeoutNoResponse)
		}
		if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("the change landing first: %v", err)
		}
		refused = s.Query(stmt).WithContext(ctx).Exec()
		return refused
	}
	if err := ddl.ApplySending(context.Background(), s, "test", ks, "DROP TABLE t", ddl.Options{}, send); err != nil {
		t.Fatalf("DROP TABLE refused after the table was dropped: %v, want done", err)
	}
	if refused == nil || sends != 2 {
		t.Errorf("the second send was answered %v after %d sends: the test provoked nothing", refused, sends)
	}
}

// A table dropped and created again by name gets the same fixed id: the node takes it, and
// the table is empty and takes writes (tests drop and create their tables again).
func TestApplyCreatesATableAgainAfterItsDrop(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	for round := range 2 {
		for _, stmt := range []string{"CREATE TABLE t (k int PRIMARY KEY, v int)", "INSERT INTO t (k, v) VALUES (1, 1)"} {
			if err := ddl.Apply(context.Background(), s, "test", ks, stmt, ddl.Options{}); err != nil {
				t.Fatalf("round %d: %s: %v", round, stmt, err)
			}
		}
		var n int
		if err := s.Query("SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
			t.Fatalf("round %d: %d rows, %v; want 1", round, n, err)
		}
		if err := ddl.Apply(context.Background(), s, "test", ks, "DROP TABLE t", ddl.Options{}); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
