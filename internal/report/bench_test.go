package report_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/workload"
)

// bigSchema generates a schema of n tables of four shapes (time series with a bucket and a
// TTL, a wide table with collections, a single-row table, a queue with deletes) and a
// workload for each.
func bigSchema(n int) (cqlSrc, yamlSrc string) {
	var c, y strings.Builder
	c.WriteString("CREATE KEYSPACE big WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};\n")
	y.WriteString("version: 1\ntables:\n")
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&c, "CREATE TABLE big.t%d (id uuid, day date, at timeuuid, v double, note text, PRIMARY KEY ((id, day), at)) WITH CLUSTERING ORDER BY (at DESC) AND default_time_to_live = 604800;\n", i)
			fmt.Fprintf(&y, "  t%d:\n    partitions: 10k\n    write_rate: 1/min\n    bucket: day\n    avg: {note: 30}\n    nulls: {note: 0.5}\n", i)
		case 1:
			fmt.Fprintf(&c, "CREATE TABLE big.t%d (id uuid, k int, a text, b text, tags set<text>, attrs map<text, text>, PRIMARY KEY (id, k));\n", i)
			fmt.Fprintf(&y, "  t%d:\n    partitions: 1M\n    rows_per_partition: 200\n    avg: {a: 20, b: 200}\n    items: {tags: {count: 3, size: 8}, attrs: {count: 5, key: 8, value: 16}}\n    skew: {zipf: 1.1}\n", i)
		case 2:
			fmt.Fprintf(&c, "CREATE TABLE big.t%d (id uuid PRIMARY KEY, name text, email text, bio text);\n", i)
			fmt.Fprintf(&y, "  t%d:\n    partitions: 5M\n    rows_per_partition: 1\n    avg: {name: 12, email: 24, bio: 140}\n", i)
		case 3:
			fmt.Fprintf(&c, "CREATE TABLE big.t%d (q text, id timeuuid, payload blob, PRIMARY KEY (q, id));\n", i)
			fmt.Fprintf(&y, "  t%d:\n    partitions: 100\n    write_rate: 1000/day\n    avg: {q: 8, payload: 500}\n    deletes:\n      - kind: row\n        rate: 990/day\n", i)
		}
	}
	return c.String(), y.String()
}

// BenchmarkEstimate1000Tables parses a generated 1,000-table schema and its workload,
// estimates every table (sizes, growth, tombstones, findings) and renders the text report:
// what `cqlsize estimate` does for a large schema. It must stay well under a second.
func BenchmarkEstimate1000Tables(b *testing.B) {
	cqlSrc, yamlSrc := bigSchema(1000)
	b.SetBytes(int64(len(cqlSrc) + len(yamlSrc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := estimateBig(b, cqlSrc, yamlSrc)
		if len(r.Tables) != 1000 {
			b.Fatalf("%d tables", len(r.Tables))
		}
		if err := report.WriteText(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

func estimateBig(tb testing.TB, cqlSrc, yamlSrc string) *report.Report {
	tb.Helper()
	stmts, err := cql.ParseFile("big.cql", []byte(cqlSrc))
	if err != nil {
		tb.Fatal(err)
	}
	schema := cql.NewSchema()
	for _, st := range stmts {
		if err := schema.Apply(st); err != nil {
			tb.Fatal(err)
		}
	}
	w, err := workload.Parse("big.yaml", []byte(yamlSrc))
	if err != nil {
		tb.Fatal(err)
	}
	r, err := report.Build(schema, w, report.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestBigSchema keeps the benchmark's input valid in the ordinary test run (100 tables).
func TestBigSchema(t *testing.T) {
	cqlSrc, yamlSrc := bigSchema(100)
	r := estimateBig(t, cqlSrc, yamlSrc)
	if len(r.Tables) != 100 || r.Summary.Warn == 0 {
		t.Errorf("%d tables, %d warnings; want 100 tables and the queues warning", len(r.Tables), r.Summary.Warn)
	}
}
