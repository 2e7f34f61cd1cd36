package sizing

import "github.com/cqlsize/cqlsize/workload"

// percentileRank is workload.Rank: the key at quantile q of partition size (0.99 for p99) is
// the one with a fraction 1-q of keys busier, rank ⌈n(1-q)⌉.
func percentileRank(n, q float64) float64 { return workload.Rank(n, q) }
