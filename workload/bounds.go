package workload

import (
	"fmt"
	"math"
	"time"
)

// Bounds on what a workload may declare. Past one of them a workload describes more than
// any Cassandra cluster holds or takes, and the numbers derived from it (rows × bytes ×
// seconds) leave the range where an estimate means anything, so the workload is refused
// with an error naming the field and the bound (the CLI exits 2, naming the flag). Each is
// orders of magnitude above a real design: a bad but possible design is still estimated and
// gets its FAIL verdicts and fixes.
const (
	// MaxPartitions is the most partition keys a table may declare (partitions), 10^15. Each
	// partition costs every replica at least its key, a partition index entry and a header,
	// tens of bytes, so 10^15 keys alone are tens of petabytes before a single row: more than
	// the largest clusters hold.
	MaxPartitions = 1e15

	// MaxRows is the most rows one partition may be declared to hold (rows_per_partition),
	// and the most rows a range delete may cover or a partition may receive deletes over its
	// life (per_partition), 10^12: 500 times the 2 billion cells a partition can hold.
	MaxRows = 1e12

	// MaxPerSecond is the fastest one partition key may be written, deleted from or have a
	// collection overwritten (write_rate, deletes[].rate, overwrites), 10^9 a second. Every
	// write of a key goes to the same replicas, and a node takes on the order of 10^5 writes
	// a second.
	MaxPerSecond = 1e9

	// MaxValueBytes is the largest value (avg, items size and key), 2 GiB: Cassandra writes a
	// value's length as a signed 32-bit integer.
	MaxValueBytes = 2 << 30

	// MaxItems is the most elements a collection may hold (items count), 2 billion: the cells
	// a partition can hold.
	MaxItems = 2e9
)

// bounds lists the fields of t over the bounds above. It needs no schema, and runs both when
// a workload file is read and before an estimate, so a workload built in code is held to
// the same bounds.
func (t *TableWorkload) bounds() []fieldProblem {
	var out []fieldProblem
	add := func(field, format string, args ...any) {
		out = append(out, fieldProblem{field, fmt.Sprintf(format, args...)})
	}
	// A workload built in code skips the parsers, which refuse these.
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	numbers := []namedNumber{
		{"partitions", t.Partitions}, {"rows_per_partition", t.RowsPerPartition}, {"write_rate", t.WriteRate.Count},
		{"write_rate", float64(t.WriteRate.Per)}, {"horizon", float64(t.Horizon)}, {"write_spread", float64(t.WriteSpread)},
		{"skew.max_rate", t.Skew.MaxRate.Count}, {"skew.max_rate", float64(t.Skew.MaxRate.Per)},
	}
	if t.TTL != nil {
		numbers = append(numbers, namedNumber{"ttl", float64(*t.TTL)})
	}
	for _, col := range sortedKeys(t.Avg) {
		numbers = append(numbers, namedNumber{"avg." + col, t.Avg[col]})
	}
	for _, col := range sortedKeys(t.Items) {
		it := t.Items[col]
		for _, v := range []float64{it.Count, it.Size, it.KeySize} {
			numbers = append(numbers, namedNumber{"items." + col, v})
		}
	}
	for _, col := range sortedKeys(t.Nulls) {
		if f := t.Nulls[col]; bad(f) || f > 1 {
			add("nulls."+col, "nulls.%s: want a fraction from 0 to 1, got %v", col, f)
		}
	}
	for _, col := range sortedKeys(t.Overwrites) {
		r := t.Overwrites[col]
		numbers = append(numbers, namedNumber{"overwrites." + col, r.Count}, namedNumber{"overwrites." + col, float64(r.Per)})
	}
	for i, d := range t.Deletes {
		f := fmt.Sprintf("deletes[%d]", i)
		for _, v := range []float64{d.Rate.Count, float64(d.Rate.Per), d.PerPartition, d.Rows} {
			numbers = append(numbers, namedNumber{f, v})
		}
	}
	for _, n := range numbers {
		if bad(n.v) {
			add(n.field, "%s: want a finite number of zero or more, got %v", n.field, n.v)
			return out // the bounds below assume finite numbers
		}
	}
	if t.Skew.Kind == Zipf && !(t.Skew.S > 0 && t.Skew.S <= 10) {
		add("skew", "skew: want a Zipf exponent above 0 and at most 10, got %v", t.Skew.S)
	}
	if len(out) > 0 {
		return out
	}

	if t.Partitions > MaxPartitions {
		add("partitions", "partitions: %s partition keys is over the bound of %s: no cluster holds that many (tens of bytes of key and index each, petabytes before a single row)",
			FormatBound(t.Partitions), FormatBound(MaxPartitions))
	}
	if t.RowsPerPartition > MaxRows {
		add("rows_per_partition", "rows_per_partition: %s rows is over the bound of %s rows a partition (500 times the 2 billion cells a partition can hold)",
			FormatBound(t.RowsPerPartition), FormatBound(MaxRows))
	}
	rate := func(field string, r Rate) {
		if ps := r.PerSecond(); ps > MaxPerSecond {
			add(field, "%s: %s is over the bound of %s a second to one partition key: every write of a key goes to the same replicas, and a node takes on the order of 100,000 writes a second",
				field, perSecondText(r, ps), FormatBound(MaxPerSecond))
		}
	}
	rate("write_rate", t.WriteRate)
	rate("skew.max_rate", t.Skew.MaxRate)
	for _, col := range sortedKeys(t.Overwrites) {
		rate("overwrites."+col, t.Overwrites[col])
	}
	for _, col := range sortedKeys(t.Avg) {
		if n := t.Avg[col]; n > MaxValueBytes {
			add("avg."+col, "avg.%s: %s bytes is over the bound of 2 GiB (%d bytes) a value: Cassandra writes a value's length as a signed 32-bit integer",
				col, FormatBound(n), int64(MaxValueBytes))
		}
	}
	for _, col := range sortedKeys(t.Items) {
		it := t.Items[col]
		if it.Count > MaxItems {
			add("items."+col, "items.%s: %s elements is over the bound of 2 billion elements a collection (the cells a partition can hold)", col, FormatBound(it.Count))
		}
		for _, s := range []struct {
			what string
			v    float64
		}{{"element size", it.Size}, {"key size", it.KeySize}} {
			if s.v > MaxValueBytes {
				add("items."+col, "items.%s: %s %s bytes is over the bound of 2 GiB (%d bytes) a value", col, s.what, FormatBound(s.v), int64(MaxValueBytes))
			}
		}
	}
	for i, d := range t.Deletes {
		f := fmt.Sprintf("deletes[%d]", i)
		if !d.Rate.IsZero() {
			if ps := d.Rate.PerSecond(); ps > MaxPerSecond {
				add(f+".rate", "%s.rate: %s is over the bound of %s deletes a second to one partition key",
					f, perSecondText(d.Rate, ps), FormatBound(MaxPerSecond))
			}
		}
		if d.PerPartition > MaxRows {
			add(f+".per_partition", "%s.per_partition: %s is over the bound of %s deletes a partition", f, FormatBound(d.PerPartition), FormatBound(MaxRows))
		}
		if d.Rows > MaxRows {
			add(f+".rows", "%s.rows: %s rows is over the bound of %s rows a partition", f, FormatBound(d.Rows), FormatBound(MaxRows))
		}
	}
	return out
}

// perSecondText renders a rate for a bound's message, with its value a second when the
// rate is given per another span: "1e+15/s", "1e+12/ms (1e+15 a second)".
func perSecondText(r Rate, ps float64) string {
	if r.Per == time.Second {
		return r.String()
	}
	return fmt.Sprintf("%s (%s a second)", r, FormatBound(ps))
}

// namedNumber is a workload number and the field it is in.
type namedNumber struct {
	field string
	v     float64
}

// FormatBound renders a large number compactly and exactly enough for a message: 1e+15,
// 2.5e+09, 50000.
func FormatBound(v float64) string {
	if math.Abs(v) < 1e6 {
		return FormatNumber(v)
	}
	return fmt.Sprintf("%.3g", v)
}
