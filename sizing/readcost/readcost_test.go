package readcost_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/sizing/readcost"
	"github.com/cqlsize/cqlsize/workload"
)

const (
	day  = 24 * time.Hour
	year = 365 * day
)

// zipfShare is the share of the key of rank k among n under Zipf s, summed term by term:
// the test's own harmonic number, not the workload package's Euler-Maclaurin tail.
func zipfShare(n int, s float64, k float64) float64 {
	var h float64
	for i := n; i >= 1; i-- {
		h += math.Pow(float64(i), -s)
	}
	return math.Pow(k, -s) / h
}

// The worked example of docs/reads.md: 1M hashtags, Zipf 1.1, 115.7 rows/s, three years,
// LIMIT 50 newest first at 1,000 reads a second.
func TestOfHashtags(t *testing.T) {
	const n, rate, limit = 1_000_000, 115.7, 50
	zipf := workload.Skew{Kind: workload.Zipf, S: 1.1}
	median := rate * zipfShare(n, 1.1, 500_000) // rank N/2
	p99 := rate * zipfShare(n, 1.1, 10_000)     // rank N/100
	top := rate * zipfShare(n, 1.1, 1)
	// The figures reads.md gives, by hand: median about 0.67 a day, p99 about 49 a day, the
	// busiest about 14 a second.
	if d := median * 86400; d < 0.6 || d > 0.75 {
		t.Fatalf("median tag %.3f rows a day, want about 0.67 (the test's own sum is off)", d)
	}
	life := 3 * year
	hour := time.Hour
	month := 30 * day
	cases := []struct {
		name           string
		bucket         time.Duration
		shards         int
		typ, p, busies float64 // partitions a read visits
	}{
		// hour × 2: the median walks ⌈50 / (r·3600)⌉ hours on both shards (about 1,800 × 2).
		{"hour x 2", hour, 2, 2 * math.Ceil(limit/(median*3600)), 2 * math.Ceil(limit/(p99*3600)), 2 * math.Ceil(limit/(top*3600))},
		// a 30-day bucket: the median in 3, the p99 key in 1.
		{"30 days", month, 0, math.Ceil(limit / (median * month.Seconds())), 1, 1},
		// no bucket: one partition whatever the key.
		{"none", 0, 0, 1, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readcost.Of(readcost.Pattern{Keys: n, Rate: rate, Skew: zipf, Retention: life, Bucket: c.bucket, Shards: c.shards, Limit: limit, ReadRate: 1000})
			if err != nil {
				t.Fatal(err)
			}
			near(t, "typical partitions", got.Typical.Partitions, c.typ)
			near(t, "p99 partitions", got.P99.Partitions, c.p)
			near(t, "busiest partitions", got.Busiest.Partitions, c.busies)
			near(t, "typical rate", got.Typical.Rate, median)
			near(t, "partition reads a second", got.PartitionReads, 1000*c.typ)
			near(t, "typical rows", got.Typical.Rows, limit)
		})
	}
	// The figures, as written there.
	got, _ := readcost.Of(readcost.Pattern{Keys: n, Rate: rate, Skew: zipf, Retention: life, Bucket: hour, Shards: 2, Limit: limit})
	if p := got.Typical.Partitions; p < 3400 || p > 3800 {
		t.Errorf("hour × 2: the median read visits %v partitions, want about 1,800 hours × 2", p)
	}
	if p := got.P99.Partitions; p < 40 || p > 60 {
		t.Errorf("hour × 2: the p99 read visits %v partitions, want about 50", p)
	}
	if s := got.Typical.EmptyShare(); s < 0.98 {
		t.Errorf("hour × 2: %.3f of the median's partitions are empty, want nearly all (it gets 0.67 rows a day over 48 partitions)", s)
	}
}

func TestOfShapes(t *testing.T) {
	uniform := workload.Skew{}
	cases := []struct {
		name            string
		p               readcost.Pattern
		parts, rows, em float64 // the typical key's
	}{
		// 100 keys, 100 rows a second: each key 1 row/s, 86,400 a day.
		{"range 7d on day x 3", readcost.Pattern{Keys: 100, Rate: 100, Skew: uniform, Retention: year, Bucket: day, Shards: 3, Range: 7 * day},
			7 * 3, 7 * 86400, 21 * math.Exp(-86400.0/3)},
		// A range wider than the retention stops at the retention: 10 days kept, 10 buckets.
		{"range past retention", readcost.Pattern{Keys: 100, Rate: 100, Skew: uniform, Retention: 10 * day, Bucket: day, Range: 30 * day},
			10, 10 * 86400, 0},
		// LIMIT and range: the LIMIT is met in the first hour bucket.
		{"limit within range", readcost.Pattern{Keys: 100, Rate: 100, Skew: uniform, Retention: year, Bucket: time.Hour, Range: 7 * day, Limit: 20},
			1, 20, math.Exp(-3600)},
		// A key of 1 row a day on hour buckets with 1 year kept, LIMIT 1000: the walk reaches
		// the retention (8,760 hours) before 1,000 rows (it holds 365).
		{"walk to retention", readcost.Pattern{Keys: 1, Rate: 1.0 / 86400, Skew: uniform, Retention: year, Bucket: time.Hour, Limit: 1000},
			8760, 365, 8760 * math.Exp(-1.0/24)},
		// Neither LIMIT nor range: every bucket kept.
		{"whole key", readcost.Pattern{Keys: 10, Rate: 10, Skew: uniform, Retention: 90 * day, Bucket: 30 * day},
			3, 90 * 86400, 3 * math.Exp(-30*86400)},
		// No bucket, shards: every shard once.
		{"shards only", readcost.Pattern{Keys: 10, Rate: 10, Skew: uniform, Retention: year, Shards: 4, Limit: 10},
			4, 10, 0},
		// Half the partitions empty: r·w/S = ln 2.
		{"half empty", readcost.Pattern{Keys: 1, Rate: math.Ln2 / 3600, Skew: uniform, Retention: year, Bucket: time.Hour, Range: 10 * time.Hour},
			10, 10 * math.Ln2, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readcost.Of(c.p)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "partitions", got.Typical.Partitions, c.parts)
			near(t, "rows", got.Typical.Rows, c.rows)
			near(t, "empty", got.Typical.Empty, c.em)
		})
	}
}

// A per-key cap truncates the head: the busiest key gets max_rate, not its Zipf share.
func TestOfMaxRate(t *testing.T) {
	p := readcost.Pattern{Keys: 1000, Rate: 100, Retention: year, Bucket: day, Limit: 20,
		Skew: workload.Skew{Kind: workload.Zipf, S: 1.1, MaxRate: workload.Rate{Count: 25, Per: day}}}
	got, err := readcost.Of(p)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "busiest rate", got.Busiest.Rate, 25.0/86400)
	near(t, "busiest partitions", got.Busiest.Partitions, 1) // 25 a day: LIMIT 20 in one day
}

func TestOfRefusesBadPatterns(t *testing.T) {
	for _, c := range []struct {
		p    readcost.Pattern
		want string
	}{
		{readcost.Pattern{Keys: 0, Rate: 1, Retention: year}, "keys"},
		{readcost.Pattern{Keys: math.NaN(), Rate: 1, Retention: year}, "keys"},
		{readcost.Pattern{Keys: 1, Rate: math.NaN(), Retention: year}, "rate"},
		{readcost.Pattern{Keys: 1, Rate: 1}, "retention"},
		{readcost.Pattern{Keys: 1, Rate: 1, Retention: year, Limit: -1}, "negative"},
	} {
		if _, err := readcost.Of(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Of(%+v) = %v, want an error naming %s", c.p, err, c.want)
		}
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}
