package profile

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// TestKeyFit: a sparse hour-bucketed table, 300 keys writing 2,000·k^-1.1 rows each over
// 720 hour buckets. The workload declares the keys, the rows a key writes in a bucket with
// the empty buckets counted, and the skew over each key's rows; estimate's busiest key is
// then the busiest key's rows over the buckets. The expected figures are summed here by hand.
func TestKeyFit(t *testing.T) {
	const ddl = "CREATE TABLE ks.events (device int, hour timestamp, at timestamp, body text, PRIMARY KEY ((device, hour), at));"
	const keys, buckets = 300, 720
	keyRows := zipfRows(keys, 2000, 1.1)
	total, h := 0.0, 0.0
	for k, r := range keyRows {
		total += r
		h += math.Pow(float64(k+1), -1.1)
	}
	for _, tc := range []struct {
		name        string
		ring        float64
		parts       []int // partitions read per key (a sample's f1 and f2 add unseen keys)
		wantKeys    float64
		bucketsSeen int
		bucketParts []int
		wantBuckets float64
		partitions  float64
	}{
		// A full read: every key and bucket is seen, nothing is added.
		{"full read", 1, []int{1, 1, 1, 2}, keys, buckets, []int{1, 1, 2}, buckets, 12000},
		// A sample: 40 keys met once and 10 twice stand for 40·39/(2·11) = 70.9 unseen keys;
		// 200 buckets met once and 100 twice for 200·199/(2·101) = 197.0 unseen buckets.
		{"sample", 0.25, append(repeat(1, 40), repeat(2, 10)...), keys + math.Round(40*39/22.0), 523, append(repeat(1, 200), repeat(2, 100)...), 523 + math.Round(200*199/202.0), 12000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mean := total / tc.partitions
			rows := Dist{N: 1000, Mean: mean, P50: 1, P99: 12, Max: 31}
			_, tb := growthTable(t, ddl, rows, 0)
			tb.Partitions, tb.BucketsSeen, tb.RingFraction, tb.PartitionsSeen = tc.partitions, tc.bucketsSeen, tc.ring, 1000
			kp := append(tc.parts, repeat(5, keys-len(tc.parts))...)
			bp := append(tc.bucketParts, repeat(5, tc.bucketsSeen-len(tc.bucketParts))...)
			tb.keySample = &keySample{column: "hour", keyRows: keyRows, keyParts: kp, bucketPart: bp}
			if !keyFit(tb) {
				t.Fatal("keyFit: not a bucketed table")
			}
			k := tb.Keys
			if k.Keys != tc.wantKeys || k.Buckets != tc.wantBuckets {
				t.Errorf("keys %v, buckets %v; want %v and %v", k.Keys, k.Buckets, tc.wantKeys, tc.wantBuckets)
			}
			perKeyBucket := total / (tc.wantKeys * tc.wantBuckets)
			if math.Abs(k.RowsPerKeyBucket/perKeyBucket-1) > 1e-9 {
				t.Errorf("rows a key a bucket %v, want %v rows / (%v keys × %v buckets) = %v", k.RowsPerKeyBucket, total, tc.wantKeys, tc.wantBuckets, perKeyBucket)
			}
			if tb.Skew.Kind != "zipf" || math.Abs(tb.Skew.S-1.1) > 0.03 {
				t.Errorf("skew %+v, want zipf 1.1 over keys", tb.Skew)
			}
			// The busiest key's share of every key's rows, under the fitted exponent.
			hk := 0.0
			for j := 1; j <= int(tc.wantKeys); j++ {
				hk += math.Pow(float64(j), -tb.Skew.S)
			}
			if want := perKeyBucket * tc.wantKeys / hk; math.Abs(k.Head/want-1) > 1e-6 {
				t.Errorf("busiest key %v rows a bucket, want %v", k.Head, want)
			}
			if tb.MeanRows != mean {
				t.Errorf("mean rows %v, want the partitions' own mean %v", tb.MeanRows, mean)
			}
			if tc.ring == 1 {
				// Against the loader's view: the busiest key's own rows over the buckets.
				if got, want := k.Head, keyRows[0]/buckets; math.Abs(got/want-1) > 0.05 {
					t.Errorf("busiest key %v rows a bucket, it wrote %v", got, want)
				}
			}
		})
	}
}

// TestSparseWorkloadEstimates: estimate on the workload a sparse hour-bucketed profile
// writes sizes the typical partition at one row (the median key writes 0.1 rows an hour:
// its hours hold one row or none) and the largest at the busiest key's rows an hour, its
// Zipf share of every key's rows summed here by hand.
func TestSparseWorkloadEstimates(t *testing.T) {
	const ddl = "CREATE TABLE ks.events (device int, hour timestamp, at timestamp, body text, PRIMARY KEY ((device, hour), at));"
	const keys, buckets = 300, 720
	keyRows := zipfRows(keys, 7200, 1.1) // the busiest key: 10 rows an hour
	total := 0.0
	for _, r := range keyRows {
		total += r
	}
	const partitions = 20000
	r, tb := growthTable(t, ddl, Dist{N: partitions, Mean: total / partitions, P50: 1, P99: 12, Max: 22}, 0)
	tb.Partitions, tb.BucketsSeen, tb.RingFraction, tb.PartitionsSeen = partitions, buckets, 1, partitions
	tb.keySample = &keySample{column: "hour", keyRows: keyRows, keyParts: repeat(60, keys), bucketPart: repeat(28, buckets)}
	if !keyFit(tb) {
		t.Fatal("keyFit: not a bucketed table")
	}
	var b bytes.Buffer
	if err := r.WriteWorkload(&b); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Parse("w.yaml", b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	tw := w.Tables[0]
	perHour := total / (keys * buckets)
	if tw.Partitions != keys || math.Abs(tw.WriteRate.Count/perHour-1) > 1e-3 || tw.WriteRate.Per != time.Hour || tw.RowsPerPartition != 0 {
		t.Errorf("partitions %v, write_rate %v, rows_per_partition %v; want %d keys writing %.4g rows an hour\n%s", tw.Partitions, tw.WriteRate, tw.RowsPerPartition, keys, perHour, b.String())
	}
	est, err := sizing.EstimateTable(tb.Schema, tw, sizing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(est.Typical.Rows-1) > 1e-9 {
		t.Errorf("typical partition %v rows, want 1\n%s", est.Typical.Rows, b.String())
	}
	if want := keyRows[0] / buckets; math.Abs(est.Largest.Rows/want-1) > 0.05 {
		t.Errorf("largest partition %v rows, want the busiest key's %v an hour\n%s", est.Largest.Rows, want, b.String())
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestChao1: keys a sample read once stand for the ones it did not read.
func TestChao1(t *testing.T) {
	for _, tc := range []struct {
		parts []int
		want  float64
	}{
		{[]int{3, 4, 5}, 3},
		{[]int{1, 3}, 2},                    // f1 = 1: 1·0/(2·1) = 0
		{[]int{1, 1, 1, 2}, 4 + 3*2/4.0},    // f1 = 3, f2 = 1
		{[]int{1, 1, 1, 1, 7}, 5 + 4*3/2.0}, // f2 = 0
	} {
		if got := chao1(tc.parts); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("chao1(%v) = %v, want %v", tc.parts, got, tc.want)
		}
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
