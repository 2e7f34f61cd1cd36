package sizing

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// PartitionLimits are the rules of thumb a whole partition is kept under, bucket or shards:
// the target's soft limits on its values, rows and bytes (100,000 values and 100 MB on
// Cassandra; 100,000 rows and 1,000 MB on ScyllaDB), counts first.
func PartitionLimits(t Target) []Limit {
	var out []Limit
	for _, l := range Limits(t) {
		switch l.Measure {
		case Values, Rows, Bytes:
			if !l.Hard {
				out = append(out, l)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Measure != Bytes && out[j].Measure == Bytes })
	return out
}

// LimitsText names a target's partition limits for a sentence, joined by conj ("and" or
// "or"): "100,000 values and 100 MB" on Cassandra, "100,000 rows and 1,000 MB" on ScyllaDB.
// Every message that says what a partition is kept under renders it here, so the text is
// the limits the verdicts use.
func LimitsText(t Target, conj string) string {
	var parts []string
	for _, l := range PartitionLimits(t) {
		parts = append(parts, l.Short())
	}
	switch len(parts) {
	case 0:
		return "the limits"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " " + conj + " " + parts[len(parts)-1]
}

// Short is a limit's threshold as the rules of thumb state it: "100,000 values", "100 MB"
// (decimal megabytes, grouped by thousands: "1,000 MB"), "16 MiB", "65,535 bytes".
func (l Limit) Short() string {
	switch l.Measure {
	case Values:
		return grouped(l.Value) + " values"
	case Rows:
		return grouped(l.Value) + " rows"
	case Cells:
		return grouped(l.Value) + " cells"
	}
	switch {
	case l.Value >= mb && math.Mod(l.Value, mb) == 0:
		return grouped(l.Value/mb) + " MB"
	case l.Value >= mib && math.Mod(l.Value, mib) == 0:
		return grouped(l.Value/mib) + " MiB"
	}
	return grouped(l.Value) + " bytes"
}

// grouped writes a whole number with commas between thousands: 100,000.
func grouped(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// OverLimits is how many times over its target's partition limits p is: the largest
// ratio of its values, rows or bytes to the limit on them (1 or more is over one).
func OverLimits(p Partition, t Target) float64 { return over(p, PartitionLimits(t)) }
