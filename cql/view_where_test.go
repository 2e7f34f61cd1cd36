package cql_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// TestViewWhere: a view's key columns must each be restricted (IS NOT NULL, or a value),
// and a column outside the base table's key takes IS NOT NULL only.
func TestViewWhere(t *testing.T) {
	const base = "CREATE TABLE u (id int, region text, name text, PRIMARY KEY (id, region));"
	for _, tc := range []struct{ stmt, want string }{ // want "" when the node applies it
		{"CREATE MATERIALIZED VIEW v AS SELECT * FROM u WHERE region = 'eu' AND id IS NOT NULL PRIMARY KEY (region, id)", ""},
		{"CREATE MATERIALIZED VIEW v AS SELECT * FROM u WHERE region IS NOT NULL AND id IS NOT NULL AND name IS NOT NULL PRIMARY KEY (region, id)", ""},
		{"CREATE MATERIALIZED VIEW v AS SELECT * FROM u WHERE id IS NOT NULL PRIMARY KEY (region, id)", "must be restricted with IS NOT NULL"},
		{"CREATE MATERIALIZED VIEW v AS SELECT * FROM u WHERE name = 'x' AND region IS NOT NULL AND id IS NOT NULL PRIMARY KEY (region, id)", "Non-primary key columns can only be restricted with 'IS NOT NULL'"},
	} {
		judgeAfter(t, base, tc.stmt, tc.want)
	}
}

// TestIndexShortClassNames: 5.0 knows SAI's short names only; another name without a
// package is a class it cannot load (a dotted one may be on the node's classpath).
func TestIndexShortClassNames(t *testing.T) {
	for _, tc := range []struct{ stmt, want string }{
		{"CREATE INDEX ON t (v) USING 'sai'", ""},
		{"CREATE CUSTOM INDEX ON t (v) USING 'StorageAttachedIndex'", ""},
		{"CREATE CUSTOM INDEX ON t (v) USING 'org.example.MyIndex'", ""},
		{"CREATE INDEX ON t (v) USING 'btree'", "Unable to find custom indexer class 'btree'"},
	} {
		s := cql.NewSchemaIn("app")
		if err := s.ApplyFile("setup.cql", []byte("CREATE TABLE t (k int PRIMARY KEY, v text)")); err != nil {
			t.Fatal(err)
		}
		err := s.ApplyFile("m.cql", []byte(tc.stmt))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: the node applies it, the model says %v", tc.stmt, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: want a refusal saying %q, got %v", tc.stmt, tc.want, err)
		}
	}
}

// TestTypeInAPartitionKeyTakesNoNewField: a field added to a type a partition key uses
// would change the key's bytes, and so its token: the node refuses it, naming the tables.
func TestTypeInAPartitionKeyTakesNoNewField(t *testing.T) {
	for _, tc := range []struct{ setup, want string }{
		{"CREATE TABLE byaddr (a frozen<address> PRIMARY KEY, v int);", "as the type is being used in partition key by the following tables: app.byaddr"},
		{"CREATE TABLE clustered (k int, a frozen<address>, PRIMARY KEY (k, a));", ""},
		{"CREATE TABLE plain (k int PRIMARY KEY, a frozen<address>);", ""},
	} {
		s := cql.NewSchemaIn("app")
		if err := s.ApplyFile("setup.cql", []byte("CREATE TYPE address (street text);\n"+tc.setup)); err != nil {
			t.Fatal(err)
		}
		err := s.ApplyFile("m.cql", []byte("ALTER TYPE address ADD city text"))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: the node applies it, the model says %v", tc.setup, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: want a refusal saying %q, got %v", tc.setup, tc.want, err)
		}
	}
}
