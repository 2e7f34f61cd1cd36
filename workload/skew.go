package workload

import "math"

// Skew of writes over partition keys, computed analytically.
//
// Under Zipf(s) over N keys the key of rank k (1 = busiest) receives the share
//
//	share(k) = k^-s / H(N, s),   H(N, s) = Σ_{j=1..N} j^-s  (the generalized harmonic number)
//
// of all writes, so relative to the average key (share 1/N) it is N·k^-s / H(N, s) times as
// busy. The largest partition is rank 1, the p99 partition rank ⌈N/100⌉ (1% of keys are
// busier), the typical (median) partition rank ⌈N/2⌉.
//
// H(N, s) is summed exactly up to zipfExact terms; beyond, the Euler–Maclaurin formula gives
// the tail from a = zipfExact to b = N:
//
//	Σ_{j=a..b} f(j) ≈ ∫_a^b f + (f(a)+f(b))/2 + (f'(b)-f'(a))/12 - (f'''(b)-f'''(a))/720
//
// with f(x) = x^-s, f'(x) = -s·x^(-s-1), f'''(x) = -s(s+1)(s+2)·x^(-s-3) and
// ∫ = (b^(1-s) - a^(1-s))/(1-s), or ln(b/a) when s = 1. With a = 64 the next term is below
// 10^-12 of the sum, so a billion keys cost the same as a thousand.

// zipfExact is how many terms of H(N, s) are summed directly.
const zipfExact = 64

// harmonic returns the generalized harmonic number H(n, s) = Σ_{k=1..n} k^-s.
func harmonic(n, s float64) float64 {
	if n < 1 {
		return 0
	}
	n = math.Floor(n)
	if n <= zipfExact {
		var h float64
		for k := n; k >= 1; k-- { // smallest terms first
			h += math.Pow(k, -s)
		}
		return h
	}
	var h float64
	for k := float64(zipfExact - 1); k >= 1; k-- {
		h += math.Pow(k, -s)
	}
	a, b := float64(zipfExact), n
	f := func(x float64) float64 { return math.Pow(x, -s) }
	f1 := func(x float64) float64 { return -s * math.Pow(x, -s-1) }
	f3 := func(x float64) float64 { return -s * (s + 1) * (s + 2) * math.Pow(x, -s-3) }
	var integral float64
	if math.Abs(s-1) < 1e-12 {
		integral = math.Log(b / a)
	} else {
		integral = (math.Pow(b, 1-s) - math.Pow(a, 1-s)) / (1 - s)
	}
	return h + integral + (f(a)+f(b))/2 + (f1(b)-f1(a))/12 - (f3(b)-f3(a))/720
}

// Activity returns how many times busier than the average key the key of rank k is, among n
// keys under skew. Uniform skew (or fewer than two keys) gives 1 for every rank.
func (s Skew) Activity(n, rank float64) float64 {
	if s.Kind != Zipf || n < 2 {
		return 1
	}
	if rank < 1 {
		rank = 1
	}
	return n * math.Pow(rank, -s.S) / harmonic(n, s.S)
}

// Capped returns the activity of the key of rank k among n keys when no key may be more than
// limit times busier than the average (limit ≤ 0: no cap): min(Activity, limit).
func (s Skew) Capped(n, rank, limit float64) float64 {
	a := s.Activity(n, rank)
	if limit > 0 && a > limit {
		return limit
	}
	return a
}

// CappedMean is the mean activity over n keys when each is capped at limit times the
// uncapped average (limit ≤ 0: no cap, mean 1). Under Zipf the K busiest keys, those with
// n·k^-s/H(n,s) > limit, are capped, and the rest keep their share:
//
//	mean = (K·limit + n·(H(n,s) - H(K,s))/H(n,s)) / n
//
// Under uniform skew every key is the average one: min(1, limit).
func (s Skew) CappedMean(n, limit float64) float64 {
	if limit <= 0 {
		return 1
	}
	if s.Kind != Zipf || n < 2 {
		return math.Min(1, limit)
	}
	h := harmonic(n, s.S)
	// n·k^-s/h > limit  ⇔  k < (n/(h·limit))^(1/s)
	k := math.Min(n, math.Floor(math.Pow(n/(h*limit), 1/s.S)))
	if k < 1 {
		return 1
	}
	return (k*limit + n*(h-harmonic(k, s.S))/h) / n
}

// Rank is the rank of the key at quantile q of activity (0.5 for the median, 0.99 for the
// p99): the key with a fraction 1-q of the keys busier, ⌈n(1-q)⌉. The sizing estimate's
// typical and p99 partitions and the read cost's typical and p99 keys are these ranks.
func Rank(n, q float64) float64 {
	if n < 1 {
		return 1
	}
	// Round away the float error of 1-q (1e5 × 0.01 is 1000.0000000000009).
	return math.Max(1, math.Ceil(n*(1-q)-1e-6))
}
