package profile

import "encoding/binary"

// elementTimes sorts the row just scanned's non-frozen collections into values written with
// the row (every element's write time is the row's: one INSERT wrote them) and values whose
// elements were written apart (element updates). rowWT is the newest write time of the row's
// other cells.
func (sm *sampler) elementTimes(rowWT int64) {
	for _, r := range sm.cols {
		if r.elemWT == nil || r.elemWT.null || r.vals[0].null {
			continue
		}
		times, ok := bigintList(r.elemWT.data)
		if !ok || len(times) == 0 {
			continue
		}
		apart := false
		for _, t := range times {
			if t != rowWT {
				apart = true
			}
		}
		if apart {
			r.apart++
		} else {
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
