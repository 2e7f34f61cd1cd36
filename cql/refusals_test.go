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
