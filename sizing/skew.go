package sizing

import "math"

// PercentileRank is the rank of the key at quantile q of partition size among n keys (0.99
// for p99): the one with a fraction 1-q of keys busier, rank ⌈n(1-q)⌉. The design fits its
// key distributions at the ranks the estimate reads them at.
func PercentileRank(n, q float64) float64 {
	if n < 1 {
		return 1
	}
	// Round away the float error of 1-q (1e5 × 0.01 is 1000.0000000000009).
	return math.Max(1, math.Ceil(n*(1-q)-1e-6))
}
