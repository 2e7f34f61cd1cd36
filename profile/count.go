package profile

import (
	"fmt"

	"github.com/cqlsize/cqlsize/workload"
)

// extrapolateFrom is the partitions a sample needs before its extrapolation is preferred to
// system.size_estimates: about 1/√400 = 5% error. size_estimates counts flushed sstables
// only, refreshes every 5 minutes, and on a node of a few thousand keys comes in steps of its
// index summary (2,048 for 2,000 keys, 3,072 for 3,000, measured on 5.0.9).
const extrapolateFrom = 400

// partitionCount picks the table's partition count: exact when the walk covered the whole
// ring; else the sample scaled up by the fraction of the ring walked when it saw at least
// extrapolateFrom partitions (Murmur3 spreads keys evenly over tokens, so its error is about
// 1/√(partitions seen)); else system.size_estimates when the node has one; else the
// extrapolation of however few partitions were seen.
func partitionCount(t *Table) {
	if t.RingFraction > 0 {
		t.Extrapolated = float64(t.PartitionsSeen) / t.RingFraction
	}
	switch {
	case t.RingFraction >= 0.999999 && !t.Partial:
		t.Partitions, t.PartitionsSource = float64(t.PartitionsSeen), "every partition read"
	case t.PartitionsSeen >= extrapolateFrom || t.SizeEstimates <= 0 && t.PartitionsSeen > 0:
		t.Partitions = t.Extrapolated
		t.PartitionsSource = fmt.Sprintf("extrapolated: %d partitions in %.3g%% of the token ring", t.PartitionsSeen, 100*t.RingFraction)
		if t.SizeEstimates > 0 {
			t.PartitionsSource += fmt.Sprintf("; system.size_estimates says %.0f", t.SizeEstimates)
		}
	case t.SizeEstimates > 0:
		t.Partitions = t.SizeEstimates
		t.PartitionsSource = fmt.Sprintf("system.size_estimates summed over %d node(s); flushed data only", max(1, t.SizeEstimatesNodes))
	default:
		t.PartitionsSource = "none read"
	}
}

// meanRows picks the rows of an average partition for the workload. A sample of a skewed
// table holds its busiest keys or not by chance, and they carry much of the rows (the top key
// of Zipf 1.1 over 2,000 keys holds 17% of them), so the sample's mean swings by tens of
// percent from walk to walk. Under a Zipf fit the mean comes from the fitted line instead:
// the busiest key's rows (SkewFit.Head) over its activity, C·H(N,s)/N, which leans on the
// whole body of the sample; on synthetic Zipf tables sampled at 32-46% it puts the typical
// partition within 4-6% (rms) where the sample mean is 13-17% off (zipf_test.go). A full
// read, or a uniform table, keeps the exact mean.
func meanRows(t *Table) {
	// fitMeanR2 is how well the power law must fit before its line is trusted over the
	// sample's mean.
	const fitMeanR2 = 0.95
	t.MeanRows, t.MeanRowsSource = t.RowsPerPartition.Mean, fmt.Sprintf("mean of %d partitions read whole", t.PartitionsSeen)
	if t.Skew.Kind != "zipf" || t.Skew.R2 < fitMeanR2 || t.RingFraction >= 0.999999 || !(t.Partitions > 1) {
		return
	}
	head := t.Skew.Head(t.Partitions)
	act := workload.Skew{Kind: workload.Zipf, S: t.Skew.Fitted}.Activity(t.Partitions, 1)
	if !(head > 0) || !(act > 0) {
		return
	}
	t.MeanRows = head / act
	t.MeanRowsSource = fmt.Sprintf("from the Zipf fit: the busiest of %.0f keys %.4g rows × H(N,s)/N (the sample's own mean: %.4g)",
		t.Partitions, head, t.RowsPerPartition.Mean)
}
