package profile

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// KeyFit is what a bucketed table's sample says about its keys: the partition key without
// its time bucket column (a room of a (room, day) table). Writes are skewed over keys, and
// every bucket starts one partition per key written in it, so the workload's partitions are
// the partitions a bucket holds and its skew is fitted over keys, not over (key, bucket)
// partitions: those repeat each key once a bucket, and a fit over them takes a key's 14 days
// for 14 keys, placing the busiest key's partition far past any the table holds.
type KeyFit struct {
	// Column is the bucket column left out of the key.
	Column string `json:"bucket_column"`
	// Seen is how many distinct keys the sample read; PerBucket the partitions a bucket holds
	// (the table's partitions over the buckets seen): the workload's partitions.
	Seen      int     `json:"keys_seen"`
	PerBucket float64 `json:"partitions_per_bucket"`
	// ClosedPartitions are the partitions read outside the newest bucket seen: their buckets
	// are over, so they hold all they will (ClosedRows is their rows per partition).
	ClosedPartitions int  `json:"closed_partitions"`
	ClosedRows       Dist `json:"closed_rows_per_partition"`
	// Head is the rows of the busiest key's partition the workload implies, and HeadSource
	// how it was found: the largest partition read (a full read), or the fit over keys, never
	// under the largest read nor over what the fastest measured key can write in a bucket
	// (RateCap, 0 when no key's rate could be measured).
	Head       float64 `json:"busiest_key_rows"`
	HeadSource string  `json:"busiest_key_rows_source"`
	RateCap    float64 `json:"rate_cap_rows,omitempty"`
}

// keyRows is what the sample read of one key across its buckets.
type keyRows struct {
	rows, parts        int
	rateRows, rateSpan float64 // Σ(rows−1) and Σ write-time span over its partitions of two rows or more
}

// startBucketed notes the bucket and the bucketless key of the partition being started.
func (sm *sampler) startBucketed() {
	b := string(sm.cols[sm.bucketCol].vals[0].data)
	idx, ok := sm.buckets[b]
	switch {
	case ok:
	case len(sm.buckets) < maxBuckets:
		idx = len(sm.buckets)
		sm.buckets[b] = idx
	default:
		idx = -1
	}
	sm.curBucket = int32(idx)
	var k []byte
	for i, r := range sm.cols[:sm.pkCount] {
		if i != sm.bucketCol {
			k = append(k, r.vals[0].data...)
			k = append(k, 0xff)
		}
	}
	sm.curKeyNB = string(k)
}

// endBucketed adds the partition just read to its key.
func (sm *sampler) endBucketed() {
	sm.partBucket = append(sm.partBucket, sm.curBucket)
	kr := sm.keys[sm.curKeyNB]
	if kr == nil {
		if len(sm.keys) >= maxBuckets {
			return
		}
		kr = &keyRows{}
		sm.keys[sm.curKeyNB] = kr
	}
	kr.rows += sm.curRows
	kr.parts++
	if sm.curRows >= 2 && sm.curMaxWT > sm.curMinWT {
		kr.rateRows += float64(sm.curRows - 1)
		kr.rateSpan += float64(sm.curMaxWT-sm.curMinWT) / 1e6
	}
}

// keySample is the bucketed sample's raw figures, kept until the table's partition count is
// known (keyFit).
type keySample struct {
	column  string
	perKey  []float64 // each key's rows per partition (its rows over its partitions read)
	closed  []float64 // rows of the partitions read outside the newest bucket
	fastest float64   // rows a second of the fastest key with enough rows to tell (0: none)
}

// minRateRows is how many rows after the first a key needs before its write rate caps the
// busiest key: two rows a minute apart would claim 1,440 a day.
const minRateRows = 10

func (sm *sampler) keySummary() *keySample {
	ks := &keySample{}
	for _, c := range sm.cols[:sm.pkCount] {
		if c == sm.cols[sm.bucketCol] {
			ks.column = c.col.Name
		}
	}
	for _, kr := range sm.keys {
		ks.perKey = append(ks.perKey, float64(kr.rows)/float64(kr.parts))
		if kr.rateRows >= minRateRows && kr.rateSpan > 0 {
			ks.fastest = math.Max(ks.fastest, kr.rateRows/kr.rateSpan)
		}
	}
	sort.Float64s(ks.perKey) // map order is random: keep the fit's input reproducible
	// The newest bucket is the one still written: bucket values of one type order as their
	// bytes (date and timestamp big-endian, ISO labels), so it is the greatest.
	newest, newestIdx := "", -1
	for b, i := range sm.buckets {
		if newestIdx < 0 || bytes.Compare([]byte(b), []byte(newest)) > 0 {
			newest, newestIdx = b, i
		}
	}
	for i, b := range sm.partBucket {
		if b >= 0 && int(b) != newestIdx && i < len(sm.rowsList) {
			ks.closed = append(ks.closed, sm.rowsList[i])
		}
	}
	return ks
}

// keyFit fits the skew of a bucketed table over its keys and sets the rows of the average
// partition so that the estimate's busiest key is the head found here: estimate sizes the
// busiest of PerBucket keys as MeanRows × Activity(PerBucket, 1). A full read knows the head
// (the largest partition read); a sample extrapolates it from the fit over keys, floored at
// the largest partition read and capped at what the fastest key measured writes in a
// bucket. It returns false when the table is not bucketed or nothing was read.
func keyFit(t *Table) bool {
	ks := t.keySample
	if ks == nil || t.BucketsSeen == 0 || t.PartitionsSeen == 0 || t.Schema == nil {
		return false
	}
	span, _, ok := sizing.TableBucket(t.Schema)
	if !ok {
		return false
	}
	kf := &KeyFit{Column: ks.column, Seen: len(ks.perKey), ClosedPartitions: len(ks.closed), ClosedRows: Summarize(ks.closed)}
	kf.PerBucket = math.Max(1, math.Round(t.Partitions/float64(t.BucketsSeen)))
	census := t.RingFraction >= 0.999999 && !t.Partial
	fraction := t.RingFraction
	if census {
		fraction = 1
	}
	fit := FitSkew(ks.perKey, fraction)
	if fit.Note != "" {
		fit.Note = "over keys: " + fit.Note
	}
	t.Skew = fit
	largest := t.RowsPerPartition.Max
	if ks.fastest > 0 && t.WriteRate > 0 {
		kf.RateCap = math.Max(largest, math.Round(ks.fastest*span.Max.Seconds()))
	}
	switch {
	case fit.Kind != "zipf":
		kf.Head, kf.HeadSource = largest, "the largest partition read (uniform keys)"
		t.MeanRows, t.MeanRowsSource = t.RowsPerPartition.Mean, fmt.Sprintf("mean of %d partitions read whole", t.PartitionsSeen)
		t.Keys = kf
		return true
	case census:
		kf.Head, kf.HeadSource = largest, "the largest partition: every partition read"
	default:
		keys := math.Max(float64(kf.Seen), kf.PerBucket)
		kf.Head = fit.Head(keys)
		kf.HeadSource = fmt.Sprintf("the busiest of %.0f keys on the fit over %d keys read", keys, kf.Seen)
		if kf.Head < largest {
			kf.Head, kf.HeadSource = largest, fmt.Sprintf("the largest partition read (the fit over %d keys gave less)", kf.Seen)
		}
		if kf.RateCap > 0 && kf.Head > kf.RateCap {
			kf.Head, kf.HeadSource = kf.RateCap, fmt.Sprintf("what the fastest key measured writes in a %s (the fit over %d keys gave more)", span, kf.Seen)
		}
	}
	act := workload.Skew{Kind: workload.Zipf, S: fit.S}.Activity(kf.PerBucket, 1)
	t.MeanRows = kf.Head / act
	t.MeanRowsSource = fmt.Sprintf("set so the busiest of %s partitions a bucket holds %s rows (%s); the sample's own mean: %.4g",
		num(kf.PerBucket), num(math.Round(kf.Head)), kf.HeadSource, t.RowsPerPartition.Mean)
	t.Keys = kf
	return true
}

// bulkSpan is the shortest write history a rate is measured over: rows all written within
// it came from a load (a bulk load, a backfill, a test), not the application's writes, and
// their rate says how fast the loader ran.
const bulkSpan = time.Hour

// unmeasurableRate says why the write times read cannot give the application's write rate,
// or "" when they can: every row was written within bulkSpan, or the buckets seen were
// written in less time than one bucket spans (a load of past days).
func unmeasurableRate(spanSeconds float64, buckets int, bucket workload.Span) string {
	span := time.Duration(spanSeconds * float64(time.Second)).Round(time.Second)
	if buckets > 1 && !bucket.IsZero() && spanSeconds < bucket.Avg.Seconds() {
		return fmt.Sprintf("unknown: the %d %s buckets read were all written within %s (a bulk load or a backfill), so their write times do not tell the rate the application writes at",
			buckets, bucket, span)
	}
	if spanSeconds < bulkSpan.Seconds() {
		return fmt.Sprintf("unknown: every row read was written within %s (a bulk load or a backfill), so the write times do not tell the rate the application writes at", span)
	}
	return ""
}
