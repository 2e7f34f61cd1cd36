package sizing

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/workload"
)

// TestWorkloadBoundsInCode: a workload built in code, which skips the parsers, is held to the
// same bounds by the estimate, and a NaN or a negative number is refused rather than sized.
func TestWorkloadBoundsInCode(t *testing.T) {
	tbl := mustTable("app.inbox", "u uuid pk", "m timeuuid ck", "body text", "tags set<text>")
	neg := -time.Hour
	for name, w := range map[string]*workload.TableWorkload{
		"NaN rows":        {Name: "inbox", RowsPerPartition: math.NaN()},
		"Inf partitions":  {Name: "inbox", RowsPerPartition: 1, Partitions: math.Inf(1)},
		"negative rate":   {Name: "inbox", WriteRate: workload.Rate{Count: -1, Per: workload.Day}},
		"huge rate":       {Name: "inbox", WriteRate: workload.Rate{Count: 1e300, Per: time.Nanosecond}},
		"negative ttl":    {Name: "inbox", RowsPerPartition: 1, TTL: &neg},
		"NaN null share":  {Name: "inbox", RowsPerPartition: 1, Nulls: map[string]float64{"body": math.NaN()}},
		"zipf exponent 0": {Name: "inbox", RowsPerPartition: 1, Partitions: 10, Skew: workload.Skew{Kind: workload.Zipf}},
		"NaN delete rows": {Name: "inbox", RowsPerPartition: 1, Deletes: []workload.Delete{{Kind: workload.DeleteRange, PerPartition: 1, Rows: math.NaN()}}},
		"Inf items":       {Name: "inbox", RowsPerPartition: 1, Items: map[string]workload.Items{"tags": {Count: math.Inf(1)}}},
	} {
		if _, err := EstimateTable(tbl, w, Options{}); err == nil {
			t.Errorf("%s: estimated without an error", name)
		}
	}
}

// TestHistogramBucketHuge: sizes near and past what an int64 holds return at once (a loop
// over the buckets must not wrap around at 1e19), and the buckets only grow.
func TestHistogramBucketHuge(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, tc := range []struct {
			size float64
			want int64
		}{
			{1e19, math.MaxInt64}, {9.3e18, math.MaxInt64}, {1e300, math.MaxInt64}, {math.Inf(1), math.MaxInt64},
			{math.NaN(), 1}, {math.Inf(-1), 1}, {-5, 1},
		} {
			if got := HistogramBucket(tc.size); got != tc.want {
				t.Errorf("HistogramBucket(%v) = %d, want %d", tc.size, got, tc.want)
			}
		}
		// Cassandra's partition size histogram has 150 offsets, the last 1,414,838,745,986;
		// MetadataCollector's comment names the next, 1,697,806,495,183, where its overflow
		// bucket starts.
		offs := histogramOffsets()
		if len(offs) < 151 || offs[149] != 1414838745986 || offs[150] != 1697806495183 {
			t.Errorf("offsets 150 and 151 = %d, %d (of %d), want 1414838745986, 1697806495183", offs[min(149, len(offs)-1)], offs[min(150, len(offs)-1)], len(offs))
		}
		last := int64(0)
		for _, size := range []float64{1, 2, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18, 5e18, 7e18, 9e18, 9.2e18, 1e19} {
			b := HistogramBucket(size)
			if b < last || float64(b) < size && b != math.MaxInt64 {
				t.Errorf("HistogramBucket(%g) = %d: below the size or the previous bucket %d", size, b, last)
			}
			last = b
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("HistogramBucket did not return within 10s")
	}
}

// TestShardsForAbsurdHotKey: a hot key far past the limits gets a write-shard finding with
// no overflowed count (never a negative number of shards), and one that says shards cannot
// fix it.
func TestShardsForAbsurdHotKey(t *testing.T) {
	tbl := mustTable("app.posts_by_hashtag", "hashtag text pk", "month text pk", "post_id timeuuid ck", "content text")
	e := estimate(t, tbl, Options{}, "partitions=1e15", "skew.zipf=3", "write_rate=1e6/s", "avg.content=200", "avg.hashtag=10", "avg.month=7")
	var msg string
	for _, f := range e.Findings {
		if f.Code == CodeShards {
			msg = f.Message
		}
	}
	if msg == "" {
		t.Fatalf("no %s finding: %v", CodeShards, e.Findings)
	}
	if strings.Contains(msg, "-") || !strings.Contains(msg, "a read visits every shard") {
		t.Errorf("%s: %q", CodeShards, msg)
	}
	// A hot key a few times over still gets its shard count.
	e = estimate(t, tbl, Options{}, "partitions=1M", "skew.zipf=1.1", "write_rate=20/day", "avg.content=200", "avg.hashtag=10", "avg.month=7")
	if !hasFinding(e, CodeShards, "write shards (add a shard column") {
		t.Errorf("want a shard count; findings:\n%v", e.Findings)
	}
}

// TestAbsurdTableOptions: gc_grace_seconds and a TWCS window past what time.Duration holds
// are read as the longest ones, not wrapped into negative durations.
func TestAbsurdTableOptions(t *testing.T) {
	tbl := mustTable("app.readings", "sensor uuid pk", "ts timestamp ck", "value double")
	tbl.Options.GCGraceSeconds = math.MaxInt
	tbl.Options.Raw = map[string]any{"gc_grace_seconds": "x"}
	tbl.Options.Compaction = map[string]string{"class": "TimeWindowCompactionStrategy", "compaction_window_size": "9223372036854775807", "compaction_window_unit": "DAYS"}
	e := estimate(t, tbl, Options{}, "write_rate=1/s", "deletes=[{kind: row, rate: 1/s}]")
	if e.GCGrace <= 0 || e.WriteSpread <= 0 {
		t.Errorf("gc grace %v, write spread %v: want positive", e.GCGrace, e.WriteSpread)
	}
	for _, f := range e.Findings {
		if strings.Contains(f.Message, "-9223372036") {
			t.Errorf("overflowed number in %s", f)
		}
	}
}
