package design

import (
	"errors"
	"math"
	"sort"

	"github.com/cqlsize/cqlsize/workload"
)

// A partition key of several columns does not take the skew of its most skewed column over
// all its keys: under independent columns the key (a, b) receives the table's rate times
// a's share times b's share, and each column's cap (max_rate: 25/day on a driver) bounds
// that column's share before the product is taken. A hot tag spread over 500k drivers makes
// 500k keys of one tag, each no busier than its driver allows, never one key with the tag's
// whole rate.
//
// The distribution is kept as bins of keys with the same rate, sorted busiest first: a
// column's head ranks one bin each, its tail in blocks whose ranks differ by under 1%, so a
// product of two columns of millions of values stays a few hundred thousand bins before it is
// merged back to a few thousand.

// errCapBelowRows is a column whose values, each at its cap, cannot receive the table's rows.
var errCapBelowRows = errors.New("the cap cannot hold the rows")

// bin is count keys that each receive rate rows a second.
type bin struct{ rate, count float64 }

// keyDist is how a table's rate spreads over its keys, busiest bin first.
type keyDist []bin

// exactRanks is how many of a column's busiest ranks get a bin of their own.
const exactRanks = 256

// columnDist spreads total rows a second over n values of a column under skew, each value
// capped at limit rows a second (0: no cap). A cap keeps the declared total: the rows a
// capped value cannot take go to the others in proportion to their shares (the rows: of an
// entity are what the table receives, the cap says only who cannot receive more). The cap
// cannot hold total when n values at the cap receive less: that is an error for the caller
// to place.
func columnDist(total, n float64, skew workload.Skew, limit float64) (keyDist, error) {
	n = math.Max(1, math.Round(n))
	var d keyDist
	if skew.Kind != workload.Zipf || n < 2 {
		d = keyDist{{total / n, n}}
	} else {
		// Activity is the rate relative to the average key, total/n.
		at := func(rank float64) float64 { return total / n * skew.Activity(n, rank) }
		for k := 1.0; k <= math.Min(n, exactRanks); k++ {
			d = append(d, bin{at(k), 1})
		}
		for a := float64(exactRanks + 1); a <= n; {
			b := math.Min(n, math.Floor(a*1.01)) // ranks a..b
			mid := math.Sqrt(a * b)              // x^-s is near-geometric over a block
			d = append(d, bin{at(mid), b - a + 1})
			a = b + 1
		}
		d.scale(total) // the blocks' midpoints miss the sum by a hair; the total is declared
	}
	if limit <= 0 {
		return d, nil
	}
	if n*limit < total*(1-1e-9) {
		return nil, errCapBelowRows
	}
	if d[0].rate <= limit {
		return d, nil
	}
	// Water filling: rate(k) = min(g·share(k), limit) with g ≥ 1 raised until the sum is the
	// total again; the sum rises with g, so bisection finds it.
	sum := func(g float64) float64 {
		var s float64
		for _, b := range d {
			s += math.Min(g*b.rate, limit) * b.count
		}
		return s
	}
	lo, hi := 1.0, 2.0
	for sum(hi) < total && hi < 1e300 {
		lo, hi = hi, hi*2
	}
	for i := 0; i < 200 && hi-lo > lo*1e-12; i++ {
		if mid := (lo + hi) / 2; sum(mid) < total {
			lo = mid
		} else {
			hi = mid
		}
	}
	out := make(keyDist, len(d))
	for i, b := range d {
		out[i] = bin{math.Min(hi*b.rate, limit), b.count}
	}
	return out, nil
}

// product is the distribution of the keys (a, b) of two independent columns over the same
// table rate total: key (a, b) receives rate(a)·rate(b)/total.
func (d keyDist) product(e keyDist, total float64) keyDist {
	out := make(keyDist, 0, len(d)*len(e))
	for _, a := range d {
		for _, b := range e {
			out = append(out, bin{a.rate * b.rate / total, a.count * b.count})
		}
	}
	return out.merged()
}

// merged sorts the bins busiest first and joins neighbours within 0.1% of the rate of the
// bin they join; the busiest bin takes only keys exactly as busy, so the head stays exact.
func (d keyDist) merged() keyDist {
	sort.Slice(d, func(i, j int) bool { return d[i].rate > d[j].rate })
	var out keyDist
	var top float64 // the rate of the first key in the current bin
	for _, b := range d {
		if n := len(out); n > 0 && (b.rate == out[n-1].rate || n > 1 && b.rate >= top/1.001) {
			last := &out[len(out)-1]
			c := last.count + b.count
			last.rate = (last.rate*last.count + b.rate*b.count) / c
			last.count = c
			continue
		}
		out = append(out, b)
		top = b.rate
	}
	return out
}

// scale multiplies every rate so the keys receive total in all.
func (d keyDist) scale(total float64) {
	var s float64
	for _, b := range d {
		s += b.rate * b.count
	}
	if s > 0 {
		for i := range d {
			d[i].rate *= total / s
		}
	}
}

// keys is how many keys the distribution holds.
func (d keyDist) keys() float64 {
	var n float64
	for _, b := range d {
		n += b.count
	}
	return n
}

// at is the rate of the key of rank (1 = busiest).
func (d keyDist) at(rank float64) float64 {
	var seen float64
	for _, b := range d {
		seen += b.count
		if seen >= rank-1e-9 {
			return b.rate
		}
	}
	return d[len(d)-1].rate
}

// zipfFit is the single capped Zipf the sizing estimate and the workload file speak, fitted
// to a distribution over n keys receiving total rows a second: the busiest key's rate is the
// cap (exact), the median key's rate is matched by the exponent, and the average key's
// uncapped rate (avg, write_rate in the file) is set so the keys receive total in all. The
// p99 key falls between, within the shapes a capped Zipf can take.
type zipfFit struct {
	skew workload.Skew
	avg  float64 // rows a second of the average key before the cap
}

// fit finds the capped Zipf that matches d's busiest and median keys over n keys.
func (d keyDist) fit(n, total float64) zipfFit {
	// The cap as the file will state it (four digits), so the estimate reads what was fitted.
	top, med := perKey(d.at(1)).PerSecond(), d.at(workload.Rank(n, 0.5))
	mean := total / n
	if n < 2 || med >= mean*(1-1e-9) || top <= mean*(1+1e-9) {
		return zipfFit{avg: mean} // every key alike
	}
	// For exponent s: the average a that makes min(a·Activity(k), top) sum to total, and
	// the median that follows.
	avgFor := func(sk workload.Skew) float64 { return avgUnderCap(sk, n, total, top) }
	medFor := func(s float64) (float64, workload.Skew, float64) {
		sk := workload.Skew{Kind: workload.Zipf, S: s}
		a := avgFor(sk)
		return math.Min(top, a*sk.Activity(n, workload.Rank(n, 0.5))), sk, a
	}
	// The median falls as s rises (more of the rate goes to the head).
	lo, hi := 0.0, 10.0
	for i := 0; i < 60; i++ {
		mid := (lo + hi) / 2
		if m, _, _ := medFor(mid); m > med {
			lo = mid
		} else {
			hi = mid
		}
	}
	_, sk, a := medFor((lo + hi) / 2)
	sk.S = round4(sk.S)
	a = avgFor(sk) // the rounded exponent's average, so the file and the estimate agree
	if a*sk.Activity(n, 1) > top*(1+1e-9) {
		sk.MaxRate = perKey(top)
	}
	return zipfFit{skew: sk, avg: a}
}

// avgUnderCap is the average key's rate a (write_rate) at which the n keys under skew, each
// receiving min(a·Activity, limit), receive total in all: the rows a capped key cannot take
// go to the others. The sum rises with a, so bisection finds it.
func avgUnderCap(sk workload.Skew, n, total, limit float64) float64 {
	mean := total / n
	got := func(a float64) float64 { return a * n * sk.CappedMean(n, limit/a) }
	lo, hi := mean, mean*2
	for got(hi) < total && hi < 1e300 {
		lo, hi = hi, hi*2
	}
	for i := 0; i < 100 && hi-lo > lo*1e-10; i++ {
		if mid := (lo + hi) / 2; got(mid) < total {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
