package sizing

import "math"

// Percentile ranks: the key at quantile q of partition size (0.99 for p99) is the one with a
// fraction 1-q of keys busier, rank ⌈n(1-q)⌉.
func percentileRank(n, q float64) float64 {
	if n < 1 {
		return 1
	}
	// Round away the float error of 1-q (1e5 × 0.01 is 1000.0000000000009).
	return math.Max(1, math.Ceil(n*(1-q)-1e-6))
}
