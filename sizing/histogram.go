package sizing

import (
	"math"
	"sort"
	"sync"
)

// HistogramBucket rounds a partition size up the way Cassandra's EstimatedHistogram does
// (utils/EstimatedHistogram.newOffsets: 1, 2, 3, ..., each offset about 1.2 times the last),
// which is what nodetool tablehistograms and tablestats print: a size is counted in the
// first bucket whose offset is at least the size, and the bucket's offset is reported. Use it
// to compare an estimate with those tools; sstablepartitions prints exact sizes.
//
// Cassandra's partition size histogram stops at its 150th offset, 1,414,838,745,986 bytes
// (larger partitions land in its overflow bucket); the sequence is continued here as far as
// an int64 holds. A size past that returns math.MaxInt64, which is what
// EstimatedHistogram.max reports for an overflowed histogram; so does +Inf. NaN and sizes up
// to 1 return 1. The offsets are computed once, so any size costs a binary search.
func HistogramBucket(size float64) int64 {
	if !(size > 1) { // NaN too
		return 1
	}
	offs := histogramOffsets()
	i := sort.Search(len(offs), func(i int) bool { return float64(offs[i]) >= size })
	if i == len(offs) {
		return math.MaxInt64
	}
	return offs[i]
}

// histogramOffsets is every EstimatedHistogram offset that fits in an int64, in order. The
// sequence is Cassandra's (next = round(last × 1.2), at least last + 1); it stops before
// the first offset that would overflow, about 230 offsets in.
var histogramOffsets = sync.OnceValue(func() []int64 {
	offs := []int64{1}
	for last := int64(1); ; {
		f := math.Round(float64(last) * 1.2)
		if f >= math.MaxInt64 { // float64(MaxInt64) is 2^63: the conversion would overflow
			return offs
		}
		next := int64(f)
		if next == last {
			next++
		}
		offs = append(offs, next)
		last = next
	}
})
