package tombstone_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/tombstone"
)

// TestAbsurdNumbers: numbers far past any cluster come back as a result with readable
// findings, not a stack overflow (a count past an int64 must not recurse in its formatting:
// --rate 1e15/second --delete row:1e15/second), a negative page count or an overflowed
// duration. Each case must finish within the deadline.
func TestAbsurdNumbers(t *testing.T) {
	const perDay = 86400.0
	huge := tombstone.Table{Name: "app.huge", ClusteringColumns: 1, RegularColumns: 3, CollectionColumns: 1,
		GCGraceSeconds: math.MaxInt, DefaultTTLSeconds: 60,
		Compaction: tombstone.Compaction{Strategy: tombstone.TWCS, Window: math.MaxInt64}}
	for name, in := range map[string]tombstone.Input{
		"1e15 rows and deletes a second": {
			Table:   table,
			Writes:  tombstone.Writes{RowsPerDay: 1e15 * perDay, NullFraction: 0.5},
			Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 1e15 * perDay, At: tombstone.Head}},
		},
		"1e300 rows a day, one row a page": {
			Table:  tombstone.Table{Name: "app.tags", ClusteringColumns: 1, RegularColumns: 1, CollectionColumns: 1, GCGraceSeconds: 864000},
			Writes: tombstone.Writes{RowsPerDay: 1e300, Bucket: 24 * time.Hour},
			Read:   tombstone.Read{PageSize: 1, Order: tombstone.NewestFirst},
			Deletes: []tombstone.Delete{{Kind: tombstone.RangeDelete, PerDay: 1e300, Rows: 1e9},
				{Kind: tombstone.ElementDelete, PerDay: 1e300, Cells: 1e9}},
		},
		"gc_grace and a window past time.Duration": {
			Table:   huge,
			Writes:  tombstone.Writes{RowsPerDay: 1e12, ElementsPerCollection: 1e9, CollectionsWhole: true},
			Deletes: []tombstone.Delete{{Kind: tombstone.CellDelete, PerDay: 1e12, Cells: 3, At: tombstone.Tail}},
		},
		"single-row table": {
			Table:   tombstone.Table{Name: "app.one", RegularColumns: 2, GCGraceSeconds: math.MaxInt32},
			Writes:  tombstone.Writes{RowsPerDay: 1e300, NullFraction: 1},
			Deletes: []tombstone.Delete{{Kind: tombstone.CellDelete, PerDay: 1e300}},
		},
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err := tombstone.Estimate(in)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			for _, s := range []tombstone.Snapshot{res.BucketEnd, res.Steady, res.Peak} {
				if s.Pages < 0 || s.Age < 0 || math.IsNaN(s.PerRead) || s.PerRead < 0 || math.IsNaN(s.OnDisk) {
					t.Errorf("%s: snapshot %+v", name, s)
				}
			}
			for _, f := range res.Findings {
				msg := f.String()
				if strings.Contains(msg, "-9223372036") || strings.Contains(msg, "NaN") {
					t.Errorf("%s: overflowed number in %s", name, msg)
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no result within 20s", name)
		}
	}
}

// TestHugeTWCSWindow: a compaction_window_size past what time.Duration holds saturates
// instead of wrapping to a negative window.
func TestHugeTWCSWindow(t *testing.T) {
	tbl := &cql.Table{Name: "t", Options: cql.TableOptions{Compaction: map[string]string{
		"class": "TimeWindowCompactionStrategy", "compaction_window_size": "9223372036854775807", "compaction_window_unit": "DAYS"}}}
	if w := tombstone.TableOf(tbl).Compaction.Window; w != math.MaxInt64 {
		t.Errorf("window %v, want the longest duration", w)
	}
}
