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
// its time bucket column (a room of a (room, day) table). Writes are skewed over keys, and a
// key starts a partition in a bucket only when it writes a row there: in an hour-bucketed
// table most hours of a quiet key hold no row, so no partition. The workload therefore
// declares the keys (partitions:), the rows a key writes in a bucket averaged over every key
// and bucket, empty ones included (rows_per_partition:, below 1 for a sparse table), and the
// skew fitted over keys to each key's rows. A fit over the (key, bucket) partitions read
// instead takes a key's 14 days for 14 keys, and a fit over each key's rows per partition it
// has flattens every sparse key to one row a partition (a key writing one row a day in hour
// buckets has one-row partitions, like one writing one an hour): both bend the skew toward
// uniform and put the busiest key far off.
type KeyFit struct {
	// Column is the bucket column left out of the key.
	Column string `json:"bucket_column"`
	// Seen is how many distinct keys the sample read; Keys how many write to the table: Seen
	// after a full read, else Seen and the keys a sample of this size misses (see chao1).
	Seen int     `json:"keys_seen"`
	Keys float64 `json:"keys"`
	// Buckets is how many buckets the table's rows span: the distinct values of Column after
	// a full read, else those seen and the ones the sample missed (see chao1).
	Buckets float64 `json:"buckets"`
	// PerBucket is the partitions (keys with a row) a bucket holds on average: the table's
	// partitions over Buckets.
	PerBucket float64 `json:"partitions_per_bucket"`
	// RowsPerKeyBucket is the table's rows over Keys × Buckets: the rows an average key
	// writes in a bucket, buckets it writes nothing in included. The workload's
	// rows_per_partition.
	RowsPerKeyBucket float64 `json:"rows_per_key_bucket"`
	RowsSource       string  `json:"rows_per_key_bucket_source"`
	// ClosedPartitions are the partitions read outside the newest bucket seen: their buckets
	// are over, so they hold all they will (ClosedRows is their rows per partition).
	ClosedPartitions int  `json:"closed_partitions"`
	ClosedRows       Dist `json:"closed_rows_per_partition"`
	// Head is the rows the busiest key writes in a bucket on the fit (RowsPerKeyBucket times
	// its Zipf activity among Keys): estimate's largest partition on the workload. A key's
	// buckets vary around its rate, so the largest partition read can hold more.
	Head       float64 `json:"busiest_key_rows"`
	HeadSource string  `json:"busiest_key_rows_source"`
}

// keyRows is what the sample read of one key across its buckets.
type keyRows struct {
	rows, parts int
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
}

// keySample is the bucketed sample's raw figures, kept until the table's partition count is
// known (keyFit).
type keySample struct {
	column     string
	keyRows    []float64 // each key's rows read, over all its partitions read
	keyParts   []int     // each key's partitions read
	bucketPart []int     // each bucket's partitions read
	closed     []float64 // rows of the partitions read outside the newest bucket
}

func (sm *sampler) keySummary() *keySample {
	ks := &keySample{}
	for _, c := range sm.cols[:sm.pkCount] {
		if c == sm.cols[sm.bucketCol] {
			ks.column = c.col.Name
		}
	}
	for _, kr := range sm.keys {
		ks.keyRows = append(ks.keyRows, float64(kr.rows))
		ks.keyParts = append(ks.keyParts, kr.parts)
	}
	sort.Float64s(ks.keyRows) // map order is random: keep the fit's input reproducible
	sort.Ints(ks.keyParts)
	ks.bucketPart = make([]int, len(sm.buckets))
	for _, b := range sm.partBucket {
		if b >= 0 {
			ks.bucketPart[b]++
		}
	}
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

// chao1 estimates how many classes (keys, buckets) a sample of partitions saw part of:
// the classes seen plus those it missed, f1(f1−1) / (2(f2+1)), where f1 classes were met in
// one partition read and f2 in two (Chao's bias-corrected estimator). A class the sample met
// once stands for the ones it met none of: a full read misses none, so it is not used then.
// Under skew the rarest keys are the ones missed, and they hold the fewest rows.
func chao1(parts []int) float64 {
	var f1, f2 float64
	for _, n := range parts {
		switch n {
		case 1:
			f1++
		case 2:
			f2++
		}
	}
	return float64(len(parts)) + f1*math.Max(0, f1-1)/(2*(f2+1))
}

// keyFit fits a bucketed table over its keys: the skew over each key's rows read (a sample
// reads each of a key's partitions with the same chance, so a key's rows read are its rows
// thinned alike, and their ranks are the keys' ranks), the keys and buckets the table holds,
// and the rows a key writes in a bucket, empty buckets included. It returns false when the
// table is not bucketed or nothing was read.
func keyFit(t *Table) bool {
	ks := t.keySample
	if ks == nil || t.BucketsSeen == 0 || t.PartitionsSeen == 0 || t.Schema == nil {
		return false
	}
	span, _, ok := sizing.TableBucket(t.Schema)
	if !ok {
		return false
	}
	kf := &KeyFit{Column: ks.column, Seen: len(ks.keyRows), ClosedPartitions: len(ks.closed), ClosedRows: Summarize(ks.closed)}
	census := t.RingFraction >= 0.999999 && !t.Partial
	kf.Keys, kf.Buckets = float64(kf.Seen), float64(t.BucketsSeen)
	how := "every partition read"
	if !census {
		kf.Keys, kf.Buckets = math.Round(chao1(ks.keyParts)), math.Round(chao1(ks.bucketPart))
		how = fmt.Sprintf("%d keys and %d %s buckets seen, and those a sample this size misses", kf.Seen, t.BucketsSeen, span)
	}
	kf.Keys, kf.Buckets = math.Max(1, kf.Keys), math.Max(1, kf.Buckets)
	kf.PerBucket = t.Partitions / kf.Buckets
	rows := t.Partitions * t.RowsPerPartition.Mean
	kf.RowsPerKeyBucket = rows / (kf.Keys * kf.Buckets)
	// Every key's rows are thinned alike, and a key the sample missed is among the quietest:
	// the ranks of the keys seen are exact, as in a full read.
	fit := FitSkew(ks.keyRows, 1)
	if fit.Note != "" {
		fit.Note = "over keys: " + fit.Note
	}
	// The fit says each key writes at a steady rate in every bucket. Keys that live in a
	// few buckets only (a sensor replaced each day, one batch a day per id) fill far fewer
	// partitions than such a rate would, each far fuller: their table is sized by its
	// partitions as read, not by a rate over keys.
	sk := workload.Skew{Kind: workload.Uniform}
	if fit.Kind == "zipf" {
		sk = workload.Skew{Kind: workload.Zipf, S: fit.S}
	}
	if steady := steadyPartitions(kf.Keys, kf.Buckets, kf.RowsPerKeyBucket, sk); t.Partitions < steady/3 {
		return false
	}
	t.Skew = fit
	t.MeanRows, t.MeanRowsSource = t.RowsPerPartition.Mean, fmt.Sprintf("mean of %d partitions read whole", t.PartitionsSeen)
	kf.Head = kf.RowsPerKeyBucket * workload.Skew{Kind: workload.Zipf, S: fit.S}.Activity(kf.Keys, 1)
	if fit.Kind != "zipf" {
		kf.Head = kf.RowsPerKeyBucket
	}
	kf.RowsSource = fmt.Sprintf("%s rows over %s keys × %s %s buckets, %s", num(math.Round(rows)), num(kf.Keys), num(kf.Buckets), span, how)
	kf.HeadSource = fmt.Sprintf("the busiest key's share of the rows on the fit over keys (uniform keys: the average key's); a key's buckets vary around its rate, and the largest partition read holds %s",
		num(t.RowsPerPartition.Max))
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

// steadyPartitions is how many of keys × buckets partitions hold a row when each key writes
// at a steady rate, the key of rank k mean·Activity(k) rows a bucket on average (Poisson):
// a bucket of it is empty with probability exp(-that).
func steadyPartitions(keys, buckets, mean float64, sk workload.Skew) float64 {
	n := math.Min(keys, 1e6) // past a million keys the ranks are summed in steps
	step := math.Max(1, keys/n)
	var sum float64
	for k := 1.0; k <= keys; k += step {
		sum += step * -math.Expm1(-mean*sk.Activity(keys, k))
	}
	return sum * buckets
}
