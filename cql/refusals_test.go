package cql_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// nodeRefusals are statements a 5.0 node refuses that the model once passed, each after
// the setup it needs, with the node's words (TestNodeRefusalsOnTheNode asks the node) and
// the words the model must say.
var nodeRefusals = []struct{ setup, stmt, node, model string }{
	{"", "CREATE SCHEMA s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "no viable alternative at input 'SCHEMA'", "write CREATE KEYSPACE"},
	{"", "DROP SCHEMA IF EXISTS s", "no viable alternative at input 'SCHEMA'", "write DROP KEYSPACE"},
	{"", "ALTER SCHEMA s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "no viable alternative at input 'SCHEMA'", "write ALTER KEYSPACE"},
	{"CREATE TABLE c1 (id int PRIMARY KEY, n counter)", "CREATE INDEX ON c1 (n)", "Secondary indexes on counter tables aren't supported", "counter tables"},
	{"CREATE TABLE c2 (id int, k int, n counter, PRIMARY KEY (id, k))", "CREATE INDEX ON c2 (k)", "Secondary indexes on counter tables aren't supported", "counter tables"},
	{"CREATE TABLE c3 (id int PRIMARY KEY, n counter)", "CREATE INDEX c3_n ON c3 (n) USING 'sai'", "Secondary indexes on counter tables aren't supported", "counter tables"},
}

func TestNodeRefusalsOffline(t *testing.T) {
	for _, tc := range nodeRefusals {
		s := cql.NewSchemaIn("app")
		if tc.setup != "" {
			if err := s.ApplyFile("setup.cql", []byte(tc.setup)); err != nil {
				t.Fatal(err)
			}
		}
		err := s.ApplyFile("m.cql", []byte(tc.stmt))
		if err == nil || !strings.Contains(err.Error(), tc.model) || !strings.Contains(err.Error(), "m.cql:1:") {
			t.Errorf("%s: want a refusal at m.cql:1 saying %q, got %v", tc.stmt, tc.model, err)
		}
	}
}

// TestMissingSemicolonIsNamed: two statements with no ';' between them are one error
// placed where the ';' belongs, naming it and the statement that follows.
func TestMissingSemicolonIsNamed(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"CREATE TABLE t (k int PRIMARY KEY)\nCREATE TABLE u (k int PRIMARY KEY);", "m.cql:1:35: missing ';' at the end of the statement: the next statement (CREATE at 2:1)"},
		{"SELECT * FROM t WHERE k = ? SELECT * FROM u", "m.cql:1:28: missing ';' at the end of the statement: the next statement (SELECT at 1:29)"},
		{"INSERT INTO t (k) VALUES (1)\n  update t SET v = 1 WHERE k = 1;", "m.cql:1:29: missing ';' at the end of the statement: the next statement (UPDATE at 2:3)"},
		// Not a statement's first word: the parser's own words stay.
		{"CREATE TABLE t (k int PRIMARY KEY) nonsense", "m.cql:1:36: expected end of statement"},
	} {
		_, err := cql.ParseFile("m.cql", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}
