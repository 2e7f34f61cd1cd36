package sizing

import (
	"fmt"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// thousandTables builds a schema of 1,000 tables of varied shape (keys, clustering, text,
// collections, static columns, TTLs, Zipf skew, deletes) and a workload for each.
func thousandTables() (*cql.Schema, *workload.Workload) {
	var tables []*cql.Table
	w := &workload.Workload{}
	for i := 0; i < 1000; i++ {
		name := fmt.Sprintf("t%04d", i)
		specs := []string{"id uuid pk"}
		if i%3 == 0 {
			specs = append(specs, "day date pk")
		}
		specs = append(specs, "at timeuuid ck desc", "body text", "n int", "score double")
		if i%4 == 0 {
			specs = append(specs, "tags set<text>", "attrs map<text,int>")
		}
		if i%5 == 0 {
			specs = append(specs, "owner text static")
		}
		for j := 0; j < i%7; j++ {
			specs = append(specs, fmt.Sprintf("extra%d text", j))
		}
		tables = append(tables, mustTable("bench."+name, specs...))
		pairs := []string{"partitions=1M", "avg.body=200"}
		if i%2 == 0 {
			pairs = append(pairs, "write_rate=100/day")
		} else {
			pairs = append(pairs, "rows=5000")
		}
		if i%6 == 0 {
			pairs = append(pairs, "skew.zipf=1.1")
		}
		if i%7 == 0 {
			pairs = append(pairs, "ttl=30d", "nulls=0.2")
		}
		if i%8 == 0 {
			pairs = append(pairs, "deletes=[{kind: row, rate: 2/day}]")
		}
		tw, err := fromSettings(name, pairs...)
		if err != nil {
			panic(err)
		}
		w.Tables = append(w.Tables, tw)
	}
	return schemaOf(tables...), w
}

// BenchmarkEstimateThousandTables estimates a 1,000-table schema: every table's typical, p99
// and largest partition, growth series, crossings, verdicts and recommendations.
func BenchmarkEstimateThousandTables(b *testing.B) {
	s, w := thousandTables()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ests, err := EstimateAll(s, w, Options{})
		if err != nil || len(ests) != 1000 {
			b.Fatal(err, len(ests))
		}
	}
}
