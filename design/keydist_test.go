package design

import (
	"math"
	"sort"
	"testing"

	"github.com/cqlsize/cqlsize/workload"
)

// zipfRates is each rank's rate under Zipf s over n values sharing total, summed directly.
func zipfRates(n int, s, total float64) []float64 {
	out := make([]float64, n)
	var h float64
	for k := 1; k <= n; k++ {
		h += math.Pow(float64(k), -s)
	}
	for k := 1; k <= n; k++ {
		out[k-1] = total * math.Pow(float64(k), -s) / h
	}
	return out
}

// capByRounds caps rates at limit the slow way: cap, hand the excess to the uncapped values
// in proportion to their rates, and repeat until nothing is over.
func capByRounds(rates []float64, limit float64) []float64 {
	r := append([]float64(nil), rates...)
	for round := 0; round < 1000; round++ {
		var excess, free float64
		for i, x := range r {
			if x > limit {
				excess += x - limit
				r[i] = limit
			} else if x < limit {
				free += x
			}
		}
		if excess < 1e-12 {
			break
		}
		for i, x := range r {
			if x < limit {
				r[i] = x + excess*x/free
			}
		}
	}
	return r
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

func TestColumnDistCapKeepsTheRows(t *testing.T) {
	const n, total, limit = 2000, 400.0, 4.0 // average 0.2, the head's uncapped share 47
	want := capByRounds(zipfRates(n, 1.0, total), limit)
	d, err := columnDist(total, n, workload.Skew{Kind: workload.Zipf, S: 1.0}, limit)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.keys(); got != n {
		t.Fatalf("%v keys, want %d", got, n)
	}
	var sum float64
	for _, b := range d {
		sum += b.rate * b.count
	}
	if !near(sum, total, 1e-9) {
		t.Errorf("the values receive %v, want the declared %v", sum, total)
	}
	for _, rank := range []int{1, 10, 50, 100, 256, 500, 1000, 2000} {
		if got := d.at(float64(rank)); !near(got, want[rank-1], 0.01) {
			t.Errorf("rank %d: %v, want %v", rank, got, want[rank-1])
		}
	}
	if _, err := columnDist(total, n, workload.Skew{}, total/n*0.99); err != errCapBelowRows {
		t.Errorf("values at their cap below the rows: %v, want errCapBelowRows", err)
	}
}

func TestProductIsEachKeysShareTimesTheOther(t *testing.T) {
	const total = 1000.0
	drivers := capByRounds(zipfRates(3000, 1.0, total), 2.0)
	tags := zipfRates(25, 1.35, total)
	var pairs []float64
	for _, a := range drivers {
		for _, b := range tags {
			pairs = append(pairs, a*b/total)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(pairs)))
	dd, err := columnDist(total, 3000, workload.Skew{Kind: workload.Zipf, S: 1.0}, 2.0)
	if err != nil {
		t.Fatal(err)
	}
	td, _ := columnDist(total, 25, workload.Skew{Kind: workload.Zipf, S: 1.35}, 0)
	d := dd.product(td, total)
	if d.keys() != float64(len(pairs)) {
		t.Fatalf("%v keys, want %d", d.keys(), len(pairs))
	}
	for _, rank := range []int{1, 2, 750, 7500, 37500, 75000} {
		if got := d.at(float64(rank)); !near(got, pairs[rank-1], 0.02) {
			t.Errorf("rank %d: %v, want %v", rank, got, pairs[rank-1])
		}
	}
	// The fit the estimate reads: its busiest and median keys are the product's, and its
	// keys receive the table's rows. Its Zipf is summed here directly.
	n := float64(len(pairs))
	f := d.fit(n, total)
	if f.skew.Kind != workload.Zipf {
		t.Fatalf("fit %v, want a Zipf", f.skew)
	}
	z := zipfRates(len(pairs), f.skew.S, f.avg*n)
	limit := f.skew.MaxRate.PerSecond()
	var sum float64
	for i := range z {
		if limit > 0 {
			z[i] = math.Min(z[i], limit)
		}
		sum += z[i]
	}
	if !near(sum, total, 1e-3) {
		t.Errorf("fitted keys receive %v, want %v", sum, total)
	}
	if !near(z[0], pairs[0], 1e-3) {
		t.Errorf("fitted busiest %v, want %v", z[0], pairs[0])
	}
	if med := len(pairs) / 2; !near(z[med-1], pairs[med-1], 0.01) {
		t.Errorf("fitted median %v, want %v", z[med-1], pairs[med-1])
	}
	// The p99 key is not fitted: a capped Zipf through the busiest and the median key
	// places it above the product's (31% here, 25% on the ratings case), sized larger,
	// never smaller.
	if p := len(pairs) / 100; z[p-1] < pairs[p-1] || z[p-1] > 1.5*pairs[p-1] {
		t.Errorf("fitted p99 %v, product's %v", z[p-1], pairs[p-1])
	}
}

// TestRatingsFactsRateAt holds the facts the reads are costed from to the ratings case: the
// busiest (driver, tag) key receives the cap × the busiest tag's share, 25/day / H(25, 1.35).
func TestRatingsFactsRateAt(t *testing.T) {
	var h float64
	for k := 1; k <= 25; k++ {
		h += math.Pow(float64(k), -1.35)
	}
	want := 25.0 / h / 86400
	f := facts{keys: 12.5e6}
	var bad int
	f.skew, f.avg, bad = keySkew([]ColumnVolume{
		{Distinct: 500e3, Skew: workload.Skew{Kind: workload.Zipf, S: 1.0, MaxRate: workload.Rate{Count: 25, Per: workload.Day}}},
		{Distinct: 25, Skew: workload.Skew{Kind: workload.Zipf, S: 1.35}},
	}, 2e6/86400.0, f.keys)
	if bad >= 0 {
		t.Fatalf("column %d refused", bad)
	}
	if got := f.rateAt(1); !near(got, want, 1e-3) {
		t.Errorf("busiest key %v rows/s, want %v", got, want)
	}
	if f.rateAt(1) < f.rateAt(125000) || f.rateAt(125000) < f.rateAt(6.25e6) {
		t.Errorf("rates do not fall with rank: %v, %v, %v", f.rateAt(1), f.rateAt(125000), f.rateAt(6.25e6))
	}
}
