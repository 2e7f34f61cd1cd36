package accuracy

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/figures"
)

// valueReferences exercise what SZ001 counts (sizing.Partition.StoredValues): columns never
// written, columns written some of the time, and rows with no cell at all.
var valueReferences = []Reference{
	{
		Name:  "values_issue9",
		About: "issue 9: ten text columns, eight never written (unset): 2 cells a row, not 10",
		Schema: `CREATE TABLE values_issue9 (k int, c int, a text, b text, c2 text, d text, e text, f text, g text, h text, i text, j text,
			PRIMARY KEY (k, c))`,
		Workload: `
partitions: 2
rows_per_partition: 1500
avg: {a: 8, b: 8}
nulls: {c2: 1, d: 1, e: 1, f: 1, g: 1, h: 1, i: 1, j: 1}
nulls_as: unset
write_spread: 1h
`,
	},
	{
		Name:   "values_key_only",
		About:  "a key-only table: rows with a liveness and no cell",
		Schema: `CREATE TABLE values_key_only (user_id uuid, follower_id uuid, PRIMARY KEY (user_id, follower_id))`,
		Workload: `
partitions: 2
rows_per_partition: 1500
write_spread: 1h
`,
	},
}

// TestStoredValuesMatchCassandra writes tables whose rows leave columns unset, and a key-only
// table, into the real node and compares the model's cells with the cells sstablepartitions
// counts in the largest partition. SZ001's stored values are those cells plus one liveness for
// each row that has none: for the key-only table, its rows. The cells are held to
// internal/figures' "stored-values" bound (the measured worst plus a margin);
// CQLSIZE_RECORD_FIGURES=1 records the run.
func TestStoredValuesMatchCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("writes data into Cassandra; skipped with -short")
	}
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	files := cassandratest.LocalNode(t, s)
	bound := figures.Bound(t, "stored-values")
	started := time.Now()
	node := &Node{Script: files.Script, DataDir: files.DataDirs}
	refs := append([]Reference{}, valueReferences...)
	for _, r := range References {
		if r.Name == "events_sparse" || r.Name == "wide_sparse" {
			refs = append(refs, r)
		}
	}
	results, err := Run(ctx, s, ks, node, refs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]float64{}
	for _, r := range results {
		model, actual := r.Model.LargestCells, r.Actual.LargestCells
		t.Logf("%s: cells in the largest partition: model %.0f, Cassandra %.0f; stored values %.0f, classic %.0f, rows %.0f",
			r.Ref.Name, model, actual, r.Estimate.Largest.StoredValues, r.Estimate.Largest.ClassicValues, r.Actual.LargeRows)
		// Unset columns are drawn at random, so the model's expected count is off by the draw;
		// none where Cassandra stores none.
		e := rel(model, actual)
		switch {
		case actual == 0 && model != 0:
			t.Errorf("%s: model has %.0f cells in the largest partition, Cassandra none", r.Ref.Name, model)
		case actual > 0:
			held["stored-values/"+r.Ref.Name] = e
			if math.Abs(e) > bound {
				t.Errorf("%s: model has %.0f cells in the largest partition, Cassandra %.0f: %+.2f%%, over %.1f%%", r.Ref.Name, model, actual, 100*e, 100*bound)
			}
		}
		switch r.Ref.Name {
		case "values_issue9":
			if v := r.Estimate.Largest.StoredValues; math.Abs(rel(v, actual)) > bound {
				t.Errorf("%s: %0.f stored values, Cassandra stores %.0f cells (every row has a cell, so they count the same): over %.1f%%", r.Ref.Name, v, actual, 100*bound)
			}
		case "values_key_only":
			if actual != 0 {
				t.Errorf("%s: Cassandra stores %.0f cells in a key-only table", r.Ref.Name, actual)
			}
			if v := r.Estimate.Largest.StoredValues; v != r.Actual.LargeRows {
				t.Errorf("%s: %.0f stored values, want one liveness a row: %.0f rows", r.Ref.Name, v, r.Actual.LargeRows)
			}
		}
	}
	figures.Record(t, started, held, nil, nil)
}
