package migrations_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/migrations"
)

// Every statement the model refuses is named in one run, each at its file:line:col; a
// statement refused only because an earlier refused CREATE made nothing is counted with
// that CREATE, not reported as a refusal of its own.
func TestApplyEachNamesEveryRefusal(t *testing.T) {
	src := "CREATE TABLE a (k int PRIMARY KEY) WITH read_repair_chance = 0.1;\n" +
		"ALTER TABLE a ADD v text;\n" +
		"CREATE INDEX ON a (v);\n" +
		"CREATE TABLE b (k int PRIMARY KEY);\n" +
		"CREATE TABLE c (k int PRIMARY KEY) WITH compaction = {'class': 'DateTieredCompactionStrategy'};\n" +
		"CREATE TABLE d (k int PRIMARY KEY, v nosuch);\n"
	stmts, err := cql.ParseFile("h.cql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sch := cql.NewSchemaIn("ks")
	err = migrations.ApplyEach(sch, stmts)
	if err == nil {
		t.Fatal("no refusal")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{"h.cql:1:", "h.cql:5:", "h.cql:6:"}
	if len(lines) != len(want) {
		t.Fatalf("%d refusals, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("refusal %d: %q, want it at %s", i+1, lines[i], w)
		}
	}
	if !strings.Contains(lines[0], "2 later statements that use a are refused with it") {
		t.Errorf("the cascade is not counted with the CREATE: %q", lines[0])
	}
	if sch.Keyspaces["ks"].Tables["b"] == nil {
		t.Error("the statement after a refusal was not applied")
	}
}
