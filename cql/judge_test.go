package cql_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// judgeAfter applies setup, then stmt, to a fresh schema in keyspace app, and fails t unless
// the model agrees with the node's verdict: want is "" when the node applies stmt, else a
// part of the node's refusal.
func judgeAfter(t *testing.T, setup, stmt, want string) {
	t.Helper()
	s := cql.NewSchemaIn("app")
	if err := s.ApplyFile("setup.cql", []byte(setup)); err != nil {
		t.Fatal(err)
	}
	err := s.ApplyFile("m.cql", []byte(stmt))
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: the node applies it, the model says %v", stmt, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: want a refusal saying %q, got %v", stmt, want, err)
	}
}
