package design_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/workload"
)

// BenchmarkDesign50Entities200Queries designs 50 entities with 4 access patterns each: by
// id, by an owner (no bucket), by a busy owner (a bucket) and by a Zipf tag (shards).
func BenchmarkDesign50Entities200Queries(b *testing.B) {
	var ents, qs strings.Builder
	var vols []*design.Entity
	for i := range 50 {
		fmt.Fprintf(&ents, "CREATE TABLE e%d (id timeuuid PRIMARY KEY, owner_id uuid, group_id int, created_at timestamp, body text, tags set<text>);\n", i)
		fmt.Fprintf(&qs, "SELECT * FROM e%d WHERE id = ?;\n", i)
		fmt.Fprintf(&qs, "SELECT id, created_at, body FROM e%d WHERE owner_id = ? ORDER BY created_at DESC LIMIT 20;\n", i)
		fmt.Fprintf(&qs, "SELECT id, created_at, body FROM e%d WHERE group_id = ? AND created_at > ?;\n", i)
		fmt.Fprintf(&qs, "SELECT id, created_at, body FROM e%d WHERE tags CONTAINS ? ORDER BY created_at DESC LIMIT 20;\n", i)
		vols = append(vols, &design.Entity{Name: fmt.Sprintf("e%d", i), Rows: rate("1M/day"), Retention: 2 * workload.Year,
			Avg: map[string]float64{"body": 200}, Items: map[string]workload.Items{"tags": {Count: 2, Size: 10}},
			Columns: map[string]design.ColumnVolume{"owner_id": {Distinct: 1e6}, "group_id": {Distinct: 100}, "tags": {Distinct: 1e5, Skew: workload.Skew{Kind: workload.Zipf, S: 1.2}}}})
	}
	schema, err := parseSchema("entities.cql", ents.String(), "app")
	if err != nil {
		b.Fatal(err)
	}
	stmts, err := cql.ParseFile("queries.cql", []byte(qs.String()))
	if err != nil {
		b.Fatal(err)
	}
	in := design.Input{Schema: schema, Volumes: &design.Volumes{File: "workload.yaml", Entities: vols}}
	for i, st := range stmts {
		in.Queries = append(in.Queries, design.Query{Name: fmt.Sprintf("q%d", i), Stmt: st.(*cql.Select)})
	}
	b.ResetTimer()
	for b.Loop() {
		d, err := design.Run(in)
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Queries) != 200 || len(d.Tables) != 200 { // the by-id tables are the homes
			b.Fatalf("%d queries, %d tables", len(d.Queries), len(d.Tables))
		}
	}
}
