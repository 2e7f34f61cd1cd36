package sizing

import "math"

// vIntSize is the number of bytes Cassandra's unsigned vint encoding takes for v
// (org.apache.cassandra.utils.vint.VIntCoding.computeUnsignedVIntSize): 7 bits a byte, so a
// value below 2^(7k) takes k bytes for k = 1..8, and any larger value 9.
func vIntSize(v uint64) int {
	for k := 1; k <= 8; k++ {
		if v < 1<<(7*k) {
			return k
		}
	}
	return 9
}

// vintOf is vIntSize of a non-negative float (a size or a count that is an average), rounded
// to the nearest whole value first.
func vintOf(v float64) float64 {
	if !(v > 0) {
		return 1
	}
	if v >= math.MaxUint64/2 {
		return 9
	}
	return float64(vIntSize(uint64(math.Round(v))))
}

// expectedVIntSize is the average vint size of a value spread uniformly over [0, max]: the
// cost of a timestamp delta when writes are spread over max microseconds. For max below 128
// it is 1; otherwise each band [2^(7(k-1)), 2^(7k)) contributes k times its share.
func expectedVIntSize(max float64) float64 { return expectedVIntRange(0, max) }

// expectedVIntRange is the average vint size of a value spread uniformly over [lo, hi]: the
// k-byte bands it overlaps, each weighted by the share of the range it covers.
func expectedVIntRange(lo, hi float64) float64 {
	if !(hi > lo) {
		return vintOf(lo)
	}
	var e, bandLo float64
	for k := 1; k <= 9; k++ {
		bandHi := math.Ldexp(1, 7*k)
		if k == 9 {
			bandHi = math.Inf(1)
		}
		if overlap := math.Min(hi, bandHi) - math.Max(lo, bandLo); overlap > 0 {
			e += float64(k) * overlap
		}
		bandLo = bandHi
	}
	return e / (hi - lo)
}
