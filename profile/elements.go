package profile

import (
	"encoding/binary"

	"github.com/cqlsize/cqlsize/cql"
)

// readTimes decodes the element write times of the value just scanned (a non-frozen
// collection's WRITETIME, a list<bigint>) into r.times; nothing for other columns or a null.
func (r *colReader) readTimes() {
	if r.elemWT == nil || r.elemWT.null || r.vals[0].null {
		return
	}
	if times, ok := bigintList(r.elemWT.data); ok {
		r.times = append(r.times[:0], times...)
	}
}

// elementSpan is the oldest and newest element write time of the row just scanned (0, 0
// when it read none).
func (sm *sampler) elementSpan() (lo, hi int64) {
	for _, r := range sm.cols {
		for _, t := range r.times {
			if lo == 0 || t < lo {
				lo = t
			}
			hi = max(hi, t)
		}
	}
	return lo, hi
}

// commonTime is the write time most of the row's (or static row's) collection elements
// share, the oldest of equals; 0 when it read none.
func commonTime(cols []*colReader, static bool) int64 {
	count := map[int64]int{}
	for _, r := range cols {
		if (r.col.Kind == cql.Static) != static {
			continue
		}
		for _, t := range r.times {
			count[t]++
		}
	}
	var best int64
	for t, n := range count {
		if n > count[best] || n == count[best] && t < best {
			best = t
		}
	}
	return best
}

// elementTimes sorts the row just scanned's non-frozen collections into values written with
// the row (every element's write time is the row's: one INSERT wrote them) and values whose
// elements were written apart (element updates), and counts the elements of each kind.
// rowWT is the newest write time of the row's other cells, else the time most of its
// elements share.
func (sm *sampler) elementTimes(rowWT int64) {
	for _, r := range sm.cols {
		if len(r.times) == 0 || r.col.Kind == cql.Static {
			continue
		}
		apart := 0
		for _, t := range r.times {
			if t != rowWT {
				apart++
			}
		}
		r.elemsApart += apart
		r.elemsWithRow += len(r.times) - apart
		switch {
		case apart == len(r.times):
			r.apart++
			r.onlyApart++
		case apart > 0:
			r.apart++
		default:
			r.withRow++
		}
	}
}

// bigintList decodes a list<bigint> in the native protocol's v4 layout: an int32 count, then
// each element as an int32 length and 8 bytes; a null element (length −1) is skipped.
func bigintList(b []byte) ([]int64, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if n < 0 || n > len(b)/4 {
		return nil, false
	}
	out := make([]int64, 0, n)
	p := 4
	for i := 0; i < n; i++ {
		if len(b)-p < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b[p:])))
		p += 4
		if l < 0 {
			continue
		}
		if l != 8 || len(b)-p < 8 {
			return nil, false
		}
		out = append(out, int64(binary.BigEndian.Uint64(b[p:])))
		p += 8
	}
	return out, true
}
