package sizing

import (
	"math"

	"github.com/cqlsize/cqlsize/workload"
)

// occupied is the fraction of key slots (a bucket of one shard of one key) that receive at
// least one row, when the average key receives mean rows in a slot: the key of rank k
// receives mean·Capped(n, k, limit) (limit as in Capped), a Poisson count, so its slot is
// empty with probability exp(-that). The n keys are summed rank by rank up to exactRanks and
// then in blocks of ranks within 1% of each other, whose rates differ by under 1% too.
func occupied(skew workload.Skew, n, limit, mean float64) float64 {
	fill := func(rank float64) float64 { return -math.Expm1(-mean * skew.Capped(n, rank, limit)) }
	if skew.Kind != workload.Zipf || n < 2 {
		return fill(1)
	}
	var sum float64
	for k := 1.0; k <= math.Min(n, occupiedExact); k++ {
		sum += fill(k)
	}
	for a := float64(occupiedExact + 1); a <= n; {
		b := math.Min(n, math.Floor(a*1.01))
		sum += (b - a + 1) * fill(math.Sqrt(a*b))
		a = b + 1
	}
	return sum / n
}

// occupiedExact is how many of the busiest keys occupied sums one by one.
const occupiedExact = 1024
