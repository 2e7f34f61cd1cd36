package profile

import (
	"math"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/workload"
)

// TestKeyFit: a bucketed table's busiest key is the largest partition read after a full
// read; after a sample it is the fit over keys, floored at the largest read and capped by what
// the fastest key measured writes in a bucket. The workload's partitions are the partitions a
// bucket holds, and estimate's busiest key on them is that head.
func TestKeyFit(t *testing.T) {
	const ddl = "CREATE TABLE ks.messages (room int, day date, at timestamp, body text, PRIMARY KEY ((room, day), at));"
	for _, tc := range []struct {
		name     string
		ring     float64
		largest  float64
		fastest  float64 // rows/s of the fastest key (0: none measured)
		wantHead func(fit float64) float64
		source   string
	}{
		{"full read", 1, 480, 0, func(float64) float64 { return 480 }, "every partition read"},
		{"sample, fit above the largest read", 0.3, 200, 0, func(fit float64) float64 { return fit }, "the busiest of"},
		{"sample, largest read above the fit", 0.3, 5000, 0, func(float64) float64 { return 5000 }, "the largest partition read"},
		{"sample, capped by the fastest key", 0.3, 200, 250.0 / 86400, func(float64) float64 { return 250 }, "fastest key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perKey := zipfRows(300, 500, 1.1) // each key's rows a partition
			rows := Dist{N: 1000, Mean: 10, P50: 3, P99: 150, Max: tc.largest}
			_, tb := growthTable(t, ddl, rows, 0.001)
			tb.Partitions, tb.BucketsSeen, tb.RingFraction, tb.PartitionsSeen = 4200, 14, tc.ring, 1000
			tb.keySample = &keySample{column: "day", perKey: perKey, fastest: tc.fastest}
			if !keyFit(tb) {
				t.Fatal("keyFit: not a bucketed table")
			}
			k := tb.Keys
			fit := tb.Skew.Head(math.Max(float64(k.Seen), k.PerBucket))
			if want := tc.wantHead(fit); math.Abs(k.Head-want) > 1e-6*want || !strings.Contains(k.HeadSource, tc.source) {
				t.Errorf("head %v (%s), want %v (%s); the fit alone gives %v", k.Head, k.HeadSource, want, tc.source, fit)
			}
			if k.PerBucket != 300 || tb.Skew.Kind != "zipf" || math.Abs(tb.Skew.S-1.1) > 0.1 {
				t.Errorf("partitions a bucket %v (want 4200/14 = 300), skew %+v (want zipf 1.1 over keys)", k.PerBucket, tb.Skew)
			}
			// estimate's busiest key on the workload is the head.
			busiest := tb.MeanRows * workload.Skew{Kind: workload.Zipf, S: tb.Skew.S}.Activity(k.PerBucket, 1)
			if math.Abs(busiest-k.Head) > 1e-6*k.Head {
				t.Errorf("mean rows %v × activity = %v, want the head %v", tb.MeanRows, busiest, k.Head)
			}
		})
	}
}

// TestUnmeasurableRate: rows all written within an hour, or buckets written in less than a
// bucket, give no rate; a history written over its buckets does.
func TestUnmeasurableRate(t *testing.T) {
	day, _ := workload.ParseSpan("day")
	for _, tc := range []struct {
		span    float64
		buckets int
		bucket  workload.Span
		bulk    bool
	}{
		{47, 0, workload.Span{}, true},
		{3000, 0, workload.Span{}, true},
		{7200, 0, workload.Span{}, false},
		{6 * 3600, 14, day, true},
		{13 * 86400, 14, day, false},
		{6 * 3600, 1, day, false},
	} {
		got := unmeasurableRate(tc.span, tc.buckets, tc.bucket)
		if (got != "") != tc.bulk || tc.bulk && !strings.Contains(got, "bulk load") {
			t.Errorf("span %gs over %d buckets: %q, want bulk %v", tc.span, tc.buckets, got, tc.bulk)
		}
	}
}
