package profile

import (
	"math"
	"sort"
)

// maxTTLs is how many distinct TTLs a table's cells may carry for them to be listed as
// populations (an hour, a day, a week); more is a spread, not a mix.
const maxTTLs = 16

// TTLShare is one TTL population: the TTL cells were written with (0: none) and the share of
// the cells read that carry it.
type TTLShare struct {
	Seconds int64   `json:"seconds"`
	Cells   int64   `json:"cells"`
	Share   float64 `json:"share"`
}

// ttlWritten counts a cell's TTL as written: the remaining TTL plus the time since the write,
// to the nearest second (TTL() is whole seconds, the write time microseconds). Past maxTTLs
// distinct values the count stops: the TTLs are a spread.
func (sm *sampler) ttlWritten(written float64) {
	if sm.ttlSeen == nil {
		sm.ttlSeen = map[int64]int64{}
	}
	if len(sm.ttlSeen) > maxTTLs {
		return
	}
	sec := int64(math.Round(written))
	// A TTL read within a couple of seconds (or a thousandth) of a population already seen is
	// that population: TTL() truncates to the second, and the age is measured at the client,
	// whose clock and read time are not the node's.
	for ttl := range sm.ttlSeen {
		if d := ttl - sec; d >= -ttlSlack(ttl) && d <= ttlSlack(ttl) {
			sm.ttlSeen[ttl]++
			return
		}
	}
	sm.ttlSeen[sec] = 1
}

// ttlPopulations lists the TTLs seen over cells read (cells WRITETIME could be read of), with
// the cells without one as TTL 0; nil when there are too many distinct TTLs to list or no TTL
// at all.
func ttlPopulations(seen map[int64]int64, cells int64) []TTLShare {
	if len(seen) == 0 || len(seen) > maxTTLs || cells <= 0 {
		return nil
	}
	var out []TTLShare
	var with int64
	for sec, n := range seen {
		out = append(out, TTLShare{Seconds: sec, Cells: n})
		with += n
	}
	if cells > with {
		out = append(out, TTLShare{Seconds: 0, Cells: cells - with})
	}
	for i := range out {
		out[i].Share = float64(out[i].Cells) / float64(cells)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Cells != out[j].Cells {
			return out[i].Cells > out[j].Cells
		}
		return out[i].Seconds < out[j].Seconds
	})
	return out
}

// ttlSlack is how far apart two TTLs read may be and still be one TTL written.
func ttlSlack(ttl int64) int64 { return max(2, ttl/1000) }
