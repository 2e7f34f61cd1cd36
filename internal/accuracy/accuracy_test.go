package accuracy

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/figures"
	"github.com/cqlsize/cqlsize/sizing"
)

// TestModelMatchesCassandra writes every reference workload into the real node, measures
// each partition with sstablepartitions and holds the model to the bound internal/figures
// keeps for it (the measured worst over its recorded runs plus a margin, the figure the
// README states) on the typical and the largest partition of every workload, and the
// tombstones of the largest to theirs. Run with -v to see the table;
// CQLSIZE_RECORD_FIGURES=1 records the run.
func TestModelMatchesCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("writes data into Cassandra; skipped with -short")
	}
	maxError, maxTombstoneError := figures.Bound(t, "model"), figures.Bound(t, "model-tombstones")
	started := time.Now()
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The test reads the node's sstables: cassandratest.LocalNode's policy decides whether they
	// are this machine's to read, and skips saying why when the cluster is remote.
	files := cassandratest.LocalNode(t, s)
	node := &Node{Script: files.Script, DataDir: files.DataDirs}
	results, err := Run(ctx, s, ks, node, References, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteTable(&b, results); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", b.String())
	// What Cassandra's own metrics report is the same figure, rounded to a histogram bucket:
	// tablehistograms' Max is the bucket of the largest partition sstablepartitions measured.
	for _, name := range []string{"chat_messages", "posts_by_hashtag"} {
		for _, r := range results {
			if r.Ref.Name != name {
				continue
			}
			got, err := node.TableHistogramMax(ctx, ks, name)
			if err != nil {
				t.Fatal(err)
			}
			if want := sizing.HistogramBucket(r.ActualMax); got != want {
				t.Errorf("%s: tablehistograms Max partition size %d, want the bucket of the largest measured (%.0f bytes): %d", name, got, r.ActualMax, want)
			}
		}
	}
	for _, r := range results {
		mt, ml := r.ModelError()
		if math.Abs(mt) > maxError || math.Abs(ml) > maxError {
			t.Errorf("%s: model %.0f/%.0f bytes (typical/largest), Cassandra wrote %.0f/%.0f: error %+.1f%%/%+.1f%%, over %.1f%%",
				r.Ref.Name, r.Model.Typical, r.Model.Largest, r.Actual.Typical, r.Actual.Largest, 100*mt, 100*ml, 100*maxError)
		}
		for _, size := range r.DeletedActual {
			if size != r.DeletedModel {
				t.Errorf("%s: a deleted partition is %.0f bytes, the model says %.0f", r.Ref.Name, size, r.DeletedModel)
			}
		}
		// Tombstones as sstablepartitions counts them (row, range, collection and cell): nulls
		// are drawn at random, so the model's expected count is off by the draw. None where
		// Cassandra wrote none.
		if e := rel(r.Model.LargestTombstones, r.Actual.LargestTombstones); r.Actual.LargestTombstones == 0 && r.Model.LargestTombstones != 0 {
			t.Errorf("%s: model has %.0f tombstones in the largest partition, Cassandra none", r.Ref.Name, r.Model.LargestTombstones)
		} else if r.Actual.LargestTombstones > 0 && math.Abs(e) > maxTombstoneError {
			t.Errorf("%s: model has %.0f tombstones in the largest partition, Cassandra %.0f: %+.1f%%, over %.1f%%",
				r.Ref.Name, r.Model.LargestTombstones, r.Actual.LargestTombstones, 100*e, 100*maxTombstoneError)
		}
		// The generator writes the rows the workload declares; a mismatch is a harness bug.
		if d := math.Abs(r.Model.LargeRows - r.Actual.LargeRows); d > 0.01*r.Actual.LargeRows+1 {
			t.Errorf("%s: model has %.0f rows in the largest partition, Cassandra %.0f", r.Ref.Name, r.Model.LargeRows, r.Actual.LargeRows)
		}
	}
	held, shown, why := ModelFigures(results)
	figures.Record(t, started, held, shown, why)
}
