package profile

import (
	"math"
	"sort"
)

// reservoirSize bounds the values kept for quantiles, so a --full scan of a billion rows
// still runs in bounded memory; mean, spread, minimum and maximum stay exact.
const reservoirSize = 20000

// Dist summarizes a set of observations: exact count, mean, spread (standard deviation),
// minimum and maximum, and quantiles from a bounded uniform reservoir of the values.
type Dist struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Min  float64 `json:"min"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// acc accumulates observations into a Dist (Welford's update for the moments, Vitter's
// algorithm R for the reservoir with a fixed-seed generator, so a run is reproducible).
type acc struct {
	n        int
	mean, m2 float64
	min, max float64
	keep     []float64
	rng      uint64
}

func (a *acc) add(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return
	}
	a.n++
	if a.n == 1 {
		a.min, a.max = x, x
	} else {
		a.min, a.max = math.Min(a.min, x), math.Max(a.max, x)
	}
	d := x - a.mean
	a.mean += d / float64(a.n)
	a.m2 += d * (x - a.mean)
	if len(a.keep) < reservoirSize {
		a.keep = append(a.keep, x)
		return
	}
	if j := a.next() % uint64(a.n); j < reservoirSize {
		a.keep[j] = x
	}
}

// next is a xorshift64* step: enough to pick reservoir slots, with no global state.
func (a *acc) next() uint64 {
	if a.rng == 0 {
		a.rng = 0x9E3779B97F4A7C15
	}
	a.rng ^= a.rng >> 12
	a.rng ^= a.rng << 25
	a.rng ^= a.rng >> 27
	return a.rng * 2685821657736338717
}

func (a *acc) dist() Dist {
	if a.n == 0 {
		return Dist{}
	}
	d := Dist{N: a.n, Mean: a.mean, Min: a.min, Max: a.max}
	if a.n > 1 {
		d.Std = math.Sqrt(a.m2 / float64(a.n-1))
	}
	s := append([]float64(nil), a.keep...)
	sort.Float64s(s)
	d.P50, d.P99 = Quantile(s, 0.5), Quantile(s, 0.99)
	return d
}

// Quantile returns the q-quantile of sorted values the way sizing ranks partitions: the
// value of rank ⌈n(1−q)⌉ counted from the largest, so the p99 of 1,000 partitions is the 10th
// largest, the partition `cqlsize estimate` calls p99 (1% of keys are at or above it). The
// nearest-rank rule would pick the 11th, and a profile fed to estimate would then disagree
// with it by one rank: 10% on a Zipf 1.1 head. It is always a value that was actually seen.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	q = math.Min(math.Max(q, 0), 1)
	r := int(math.Ceil(float64(n)*(1-q) - 1e-9)) // rank from the top, 1 = the largest
	if r < 1 {
		r = 1
	}
	if r > n {
		r = n
	}
	return sorted[n-r]
}

// Summarize returns the Dist of xs.
func Summarize(xs []float64) Dist {
	var a acc
	for _, x := range xs {
		a.add(x)
	}
	return a.dist()
}
