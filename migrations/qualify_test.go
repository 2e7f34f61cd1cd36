package migrations

import (
	"slices"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

func TestQualify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CREATE TABLE t (k int PRIMARY KEY)", "CREATE TABLE app.t (k int PRIMARY KEY)"},
		{"CREATE TABLE other.t (k int PRIMARY KEY)", "CREATE TABLE other.t (k int PRIMARY KEY)"},
		{"INSERT INTO \"T\" (k) VALUES (1)", "INSERT INTO app.\"T\" (k) VALUES (1)"},
		{"UPDATE c SET n = n + 1 WHERE k = 1", "UPDATE app.c SET n = n + 1 WHERE k = 1"},
		{"DELETE FROM t WHERE k = 1", "DELETE FROM app.t WHERE k = 1"},
		{"SELECT * FROM t", "SELECT * FROM app.t"},
		{"BEGIN BATCH INSERT INTO a (k) VALUES (1); UPDATE b SET v = 1 WHERE k = 2; APPLY BATCH",
			"BEGIN BATCH INSERT INTO app.a (k) VALUES (1); UPDATE app.b SET v = 1 WHERE k = 2; APPLY BATCH"},
		{"CREATE INDEX i ON t (v)", "CREATE INDEX i ON app.t (v)"},
		{"DROP INDEX i", "DROP INDEX app.i"},
		{"CREATE MATERIALIZED VIEW v AS SELECT * FROM t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
			"CREATE MATERIALIZED VIEW app.v AS SELECT * FROM app.t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)"},
		{"CREATE TYPE addr (street text)", "CREATE TYPE app.addr (street text)"},
		{"ALTER TABLE t ADD x frozen<addr>", "ALTER TABLE app.t ADD x frozen<addr>"},
		{"TRUNCATE t", "TRUNCATE app.t"},
		{"CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
	}
	for _, tc := range tests {
		// A statement that does not start the file: offsets are relative to it.
		src := "-- lead\n\n" + tc.in
		st, err := cql.Parse("m.cql", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		got, err := qualify(st, "app")
		if err != nil || got != tc.want {
			t.Errorf("qualify(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if got, _ := qualify(mustParse(t, "SELECT * FROM t"), "MixedCase"); got != `SELECT * FROM "MixedCase".t` {
		t.Errorf("mixed-case keyspace: %q", got)
	}
}

func mustParse(t *testing.T, src string) cql.Statement {
	t.Helper()
	st, err := cql.Parse("m.cql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestKeyspaces(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string // nil with all
		all  bool
	}{
		{"unqualified names stay in the target", []string{"CREATE TABLE t (k int PRIMARY KEY)", "INSERT INTO t (k) VALUES (1)"}, []string{"app"}, false},
		{"qualified names add their keyspace, as the node folds them",
			[]string{"INSERT INTO Other.t (k) VALUES (1)", `UPDATE "Q".t SET v = 1 WHERE k = 1`},
			[]string{"app", "other", "Q"}, false},
		{"a view's base and a batch's tables", []string{
			"CREATE MATERIALIZED VIEW v AS SELECT * FROM b.t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
			"BEGIN BATCH INSERT INTO c.a (k) VALUES (1); APPLY BATCH"}, []string{"app", "b", "c"}, false},
		{"keyspace statements name theirs", []string{
			"CREATE KEYSPACE k1 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"ALTER KEYSPACE k2 WITH durable_writes = true", "DROP KEYSPACE k3"}, []string{"app", "k1", "k2", "k3"}, false},
		{"a statement whose names are not known: every keyspace", []string{"CREATE TABLE t (k int PRIMARY KEY)", "GRANT SELECT ON KEYSPACE x TO r"}, nil, true},
	}
	for _, tc := range tests {
		mg := &Migration{File: "1_a.cql"}
		var steps []Step
		for i, src := range tc.in {
			st := mustParse(t, src)
			mg.Parsed = append(mg.Parsed, st)
			mg.Statements = append(mg.Statements, Statement{Text: src})
			steps = append(steps, Step{Migration: mg, Index: i + 1})
		}
		got, all := Keyspaces("app", steps)
		if all != tc.all || !slices.Equal(got, tc.want) {
			t.Errorf("%s: Keyspaces = %q, all %v; want %q, all %v", tc.name, got, all, tc.want, tc.all)
		}
	}
}
