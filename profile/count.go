package profile

import "fmt"

// partitionCount picks the table's partition count: exact when the walk covered the whole
// ring, else system.size_estimates when the node has one (it counts flushed sstables), else
// the sample scaled up by the fraction of the ring walked (Murmur3 spreads keys evenly over
// tokens, so its error is about 1/√(partitions seen)).
func partitionCount(t *Table) {
	if t.RingFraction > 0 {
		t.Extrapolated = float64(t.PartitionsSeen) / t.RingFraction
	}
	switch {
	case t.RingFraction >= 0.999999 && !t.Partial:
		t.Partitions, t.PartitionsSource = float64(t.PartitionsSeen), "every partition read"
	case t.SizeEstimates > 0:
		t.Partitions = t.SizeEstimates
		t.PartitionsSource = fmt.Sprintf("system.size_estimates (%d node(s); flushed data only)", max(1, t.SizeEstimatesNodes))
	case t.PartitionsSeen > 0:
		t.Partitions = t.Extrapolated
		t.PartitionsSource = fmt.Sprintf("extrapolated: %d partitions in %.3g%% of the token ring", t.PartitionsSeen, 100*t.RingFraction)
	default:
		t.PartitionsSource = "none read"
	}
}
