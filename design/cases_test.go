package design_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/check"
	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/workload"
)

// load reads one case folder: entities, queries and volumes, as the command does.
func load(t testing.TB, dir, keyspace string) design.Input {
	t.Helper()
	schema, err := cql.LoadSchemaIn(filepath.Join(dir, "entities.cql"), keyspace)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := check.LoadQueries(filepath.Join(dir, "queries.cql"))
	if err != nil {
		t.Fatal(err)
	}
	in := design.Input{Schema: schema}
	for _, q := range qs {
		in.Queries = append(in.Queries, design.Query{Name: q.Name, Rate: q.Rate, P99: q.P99, Range: q.Range, Stmt: q.Statement()})
	}
	if _, err := os.Stat(filepath.Join(dir, "workload.yaml")); err == nil {
		w, err := workload.Load(filepath.Join(dir, "workload.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		in.Volumes, err = design.FromWorkload(w)
		if err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// TestSeedCases designs each case and compares the tables with the ones written down in
// expected.cql before the engine first ran on them: names, keys, clustering order, columns,
// TTL and compaction.
func TestSeedCases(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/cases/*/expected.cql")
	if len(dirs) < 4 {
		t.Fatalf("cases: %v", dirs)
	}
	for _, file := range dirs {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			d, err := design.Run(load(t, dir, "app"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := cql.LoadSchemaIn(filepath.Join(dir, "expected.cql"), "app")
			if err != nil {
				t.Fatal(err)
			}
			wantTables := want.Tables()
			if len(wantTables) != len(d.Tables) {
				var got []string
				for _, tb := range d.Tables {
					got = append(got, tb.Table.Name)
				}
				t.Errorf("%d tables (%s), want %d", len(d.Tables), strings.Join(got, ", "), len(wantTables))
			}
			for _, tb := range d.Tables {
				w, _ := want.FindTable(tb.Table.Name)
				if w == nil {
					t.Errorf("unexpected table:\n%s\n%s", tb.Table.CreateStatement(false), strings.Join(tb.Reasons, "\n"))
					continue
				}
				if got, exp := shapeText(tb.Table), shapeText(w); got != exp {
					t.Errorf("%s:\n got  %s\n want %s\nreasons:\n%s", tb.Table.Name, got, exp, strings.Join(tb.Reasons, "\n"))
				}
			}
		})
	}
}

// shapeText is what the comparison holds a table to.
func shapeText(t *cql.Table) string {
	var b strings.Builder
	b.WriteString("pk(")
	for _, c := range t.PartitionKey {
		b.WriteString(c.Name + " " + c.Type.String() + ",")
	}
	b.WriteString(") ck(")
	for _, c := range t.Clustering {
		b.WriteString(c.Name + " " + c.Type.String() + " " + c.Order.String() + ",")
	}
	b.WriteString(") cols(")
	var regs []string
	for _, c := range t.Columns {
		if c.Kind == cql.Regular || c.Kind == cql.Static {
			regs = append(regs, c.Name+" "+c.Type.String())
		}
	}
	b.WriteString(strings.Join(sortStrings(regs), ","))
	b.WriteString(") ttl=" + itoa(t.Options.DefaultTTL) + " compaction=" + t.Options.CompactionClass() + "/" + t.Options.Compaction["compaction_window_unit"] + "/" + t.Options.Compaction["compaction_window_size"])
	return b.String()
}
