package sizing

import "math"

// HistogramBucket rounds a partition size up the way Cassandra's EstimatedHistogram does
// (utils/EstimatedHistogram.newOffsets: 1, 2, 3, ..., each offset about 1.2 times the last),
// which is what nodetool tablehistograms and tablestats print: a size is counted in the
// first bucket whose offset is at least the size, and the bucket's offset is reported. Use it
// to compare an estimate with those tools; sstablepartitions prints exact sizes.
func HistogramBucket(size float64) int64 {
	if size <= 1 {
		return 1
	}
	last := int64(1)
	for float64(last) < size {
		next := int64(math.Round(float64(last) * 1.2))
		if next == last {
			next++
		}
		last = next
	}
	return last
}
