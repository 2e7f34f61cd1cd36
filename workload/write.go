package workload

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Notes are the comments a writer puts in a workload file beside the values: where each
// number comes from, so a reader can tell a measurement from a default. They change no
// value: Parse reads the file the same with or without them.
type Notes struct {
	Head   []string               // comment lines at the top of the file
	Tables map[string]*TableNotes // by TableWorkload.Name
}

// TableNotes are the comments of one table's entry. Fields are named as the file names
// them ("partitions", "rows_per_partition", "skew"), and an entry of a map field by its
// path ("avg.content", "nulls.title", "items.tags").
type TableNotes struct {
	Head   []string            // lines under the table's name
	Before map[string][]string // lines before a field's line, written whether the field is or not
	Line   map[string]string   // a field's own comment, at the end of its line; a field at its zero value with one is written (skew: uniform, ttl: 0, rows_per_partition: 0)
	After  map[string][]string // lines after a field's line, written whether the field is or not
	Tail   []string            // lines at the end of the entry
	// Order is the order of a map field's entries (the columns as the table lists them);
	// keys it does not name follow, sorted.
	Order []string
}

// keysOf are m's keys in tn's order.
func keysOf[V any](m map[string]V, tn *TableNotes) []string {
	keys := sortedKeys(m)
	rank := func(k string) int {
		if i := slices.Index(tn.Order, k); i >= 0 {
			return i
		}
		return len(tn.Order)
	}
	slices.SortStableFunc(keys, func(a, b string) int { return rank(a) - rank(b) })
	return keys
}

// fieldOrder is the order Write writes a table's fields in: the partitions and their
// growth, then how rows are spread and expire, then the values.
var fieldOrder = []string{
	"partitions", "rows_per_partition", "write_rate", "rows", "retention", "columns", "bucket", "shards",
	"skew", "deletes", "expired_rows", "expired_ttl", "ttl_mix", "ttl", "horizon", "compression_ratio", "write_spread",
	"writes", "avg", "items", "element_writes", "overwrites", "nulls", "nulls_as",
}

// Write writes w as a workload file Parse reads back to the same values (the Fields and
// Pos a parse records aside), with the notes as comments (nil for none). Every number is
// written exactly (a rounded figure is the caller's to round); durations in their largest whole
// unit (ttl: 90d), rates per second, hour, day or year where they were given so. A
// declared field at its zero value is left out unless a note asks for it; a table with
// notes is set apart by a blank line, and a map field with notes on its entries is written
// one entry a line.
func Write(out io.Writer, w *Workload, notes *Notes) error {
	b := bufio.NewWriter(out)
	if notes == nil {
		notes = &Notes{}
	}
	for _, l := range notes.Head {
		writeComment(b, "", l)
	}
	b.WriteString("version: 1\ntables:\n")
	for _, t := range w.Tables {
		tn := notes.Tables[t.Name]
		if tn != nil {
			b.WriteString("\n")
		} else {
			tn = &TableNotes{}
		}
		writeTable(b, t, tn)
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("write workload: %w", err)
	}
	return nil
}

// Marshal is Write to a string.
func Marshal(w *Workload, notes *Notes) string {
	var sb strings.Builder
	_ = Write(&sb, w, notes) // a strings.Builder does not fail
	return sb.String()
}

func writeComment(b *bufio.Writer, indent, line string) {
	b.WriteString(indent + "#")
	if line != "" {
		b.WriteString(" " + line)
	}
	b.WriteString("\n")
}

func writeTable(b *bufio.Writer, t *TableWorkload, tn *TableNotes) {
	const ind = "    "
	fmt.Fprintf(b, "  %s:\n", YAMLKey(t.Name))
	for _, l := range tn.Head {
		writeComment(b, ind, l)
	}
	for _, f := range fieldOrder {
		for _, l := range tn.Before[f] {
			writeComment(b, ind, l)
		}
		_, noted := tn.Line[f]
		if v, ok := fieldValue(t, f, tn, noted); ok {
			line := ind + f + ": " + v
			if strings.HasPrefix(v, "\n") { // a block mapping: the note goes on the key's line
				line = ind + f + ":"
			}
			if c := tn.Line[f]; c != "" {
				line += "   # " + c
			}
			b.WriteString(line)
			if strings.HasPrefix(v, "\n") {
				b.WriteString(v)
			}
			b.WriteString("\n")
		}
		for _, l := range tn.After[f] {
			writeComment(b, ind, l)
		}
	}
	for _, l := range tn.Tail {
		writeComment(b, ind, l)
	}
}

// fieldValue renders field f of t, or false when it is not declared (at its zero value
// with no note asking for it).
func fieldValue(t *TableWorkload, f string, tn *TableNotes, noted bool) (string, bool) {
	count := func(v float64) (string, bool) { return FormatCountYAML(v), v != 0 || noted }
	dur := func(d time.Duration) (string, bool) { return FormatDurationYAML(d), d != 0 || noted }
	rate := func(r Rate) (string, bool) { return FormatRateYAML(r), !r.IsZero() }
	switch f {
	case "partitions":
		return count(t.Partitions)
	case "horizon":
		return dur(t.Horizon)
	case "rows_per_partition":
		return count(t.RowsPerPartition)
	case "write_rate":
		return rate(t.WriteRate)
	case "rows":
		return rate(t.TableRate)
	case "retention":
		return dur(t.Retention)
	case "bucket":
		switch {
		case !t.Bucket.IsZero():
			return t.Bucket.Name, true
		case t.NoBucket:
			return "none", true
		}
		return "", false
	case "shards":
		return strconv.Itoa(t.Shards), t.Shards > 1
	case "skew":
		return skewYAML(t.Skew), t.Skew.Kind != Uniform || !t.Skew.MaxRate.IsZero() || noted
	case "deletes":
		if len(t.Deletes) == 0 {
			return "", false
		}
		parts := make([]string, len(t.Deletes))
		for i, d := range t.Deletes {
			parts[i] = deleteYAML(d)
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case "expired_rows":
		return count(t.ExpiredRows)
	case "expired_ttl":
		return dur(t.ExpiredTTL)
	case "ttl_mix":
		if len(t.TTLMix) == 0 {
			return "", false
		}
		ds := make([]time.Duration, 0, len(t.TTLMix))
		for d := range t.TTLMix {
			ds = append(ds, d)
		}
		slices.Sort(ds)
		parts := make([]string, len(ds))
		for i, d := range ds {
			k := "none"
			if d > 0 {
				k = FormatDurationYAML(d)
			}
			parts[i] = k + ": " + FormatCountYAML(t.TTLMix[d])
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	case "ttl":
		if t.TTL == nil {
			return "", false
		}
		return FormatDurationYAML(*t.TTL), true
	case "compression_ratio":
		return count(t.CompressionRatio)
	case "write_spread":
		return dur(t.WriteSpread)
	case "writes":
		return t.Writes.String(), t.Writes != Insert || noted
	case "nulls_as":
		return t.NullsAs.String(), t.NullsAs != NullTombstone || noted
	}
	return mapFieldValue(t, f, tn)
}

// mapFieldValue renders a field that maps columns to figures (columns:, avg:, nulls:,
// items:, element_writes:, overwrites:), or false when it holds none.
func mapFieldValue(t *TableWorkload, f string, tn *TableNotes) (string, bool) {
	switch f {
	case "columns":
		if len(t.Columns) == 0 {
			return "", false
		}
		var parts []string
		for _, c := range keysOf(t.Columns, tn) {
			v := t.Columns[c]
			s := "distinct: " + FormatCountYAML(v.Distinct)
			if v.Skew.Kind != Uniform || !v.Skew.MaxRate.IsZero() {
				s += ", skew: " + skewYAML(v.Skew)
			}
			parts = append(parts, YAMLKey(c)+": {"+s+"}")
		}
		return mapping(f, parts, nil, tn), true
	case "avg":
		return numberMap(f, t.Avg, tn)
	case "nulls":
		return numberMap(f, t.Nulls, tn)
	case "items":
		if len(t.Items) == 0 {
			return "", false
		}
		keys := keysOf(t.Items, tn)
		parts := make([]string, len(keys))
		for i, k := range keys {
			it := t.Items[k]
			s := "count: " + FormatCountYAML(it.Count)
			if it.Size > 0 {
				if it.KeySize > 0 {
					s += ", value: " + FormatCountYAML(it.Size) // a map: its values' bytes
				} else {
					s += ", size: " + FormatCountYAML(it.Size)
				}
			}
			if it.KeySize > 0 {
				s += ", key: " + FormatCountYAML(it.KeySize)
			}
			parts[i] = YAMLKey(k) + ": {" + s + "}"
		}
		return mapping(f, parts, keys, tn), true
	case "element_writes":
		if len(t.ElementWrites) == 0 {
			return "", false
		}
		keys := keysOf(t.ElementWrites, tn)
		names, shares := make([]string, len(keys)), make([]string, len(keys))
		whole := true
		for i, k := range keys {
			names[i] = YAMLKey(k)
			shares[i] = YAMLKey(k) + ": " + FormatCountYAML(t.ElementWrites[k])
			whole = whole && t.ElementWrites[k] == 1
		}
		if whole {
			return "[" + strings.Join(names, ", ") + "]", true
		}
		return "{" + strings.Join(shares, ", ") + "}", true
	case "overwrites":
		if len(t.Overwrites) == 0 {
			return "", false
		}
		keys := keysOf(t.Overwrites, tn)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = YAMLKey(k) + ": " + FormatRateYAML(t.Overwrites[k])
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	return "", false
}

// numberMap renders a map of column to number (avg:, nulls:).
func numberMap(f string, m map[string]float64, tn *TableNotes) (string, bool) {
	if len(m) == 0 {
		return "", false
	}
	keys := keysOf(m, tn)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = YAMLKey(k) + ": " + FormatCountYAML(m[k])
	}
	return mapping(f, parts, keys, tn), true
}

// mapping writes a map field's entries: one a line (a block, led by a newline) when any
// has a note, else as a flow mapping on the field's line.
func mapping(f string, parts, keys []string, tn *TableNotes) string {
	block := false
	for _, k := range keys {
		if _, ok := tn.Line[f+"."+k]; ok {
			block = true
		}
	}
	if !block {
		return "{" + strings.Join(parts, ", ") + "}"
	}
	var sb strings.Builder
	for i, p := range parts {
		sb.WriteString("\n      " + p)
		if c := tn.Line[f+"."+keys[i]]; c != "" {
			sb.WriteString("   # " + c)
		}
	}
	return sb.String()
}

func skewYAML(s Skew) string {
	var parts []string
	if s.Kind == Zipf {
		parts = append(parts, "zipf: "+FormatCountYAML(s.S))
	}
	if !s.MaxRate.IsZero() {
		parts = append(parts, "max_rate: "+FormatRateYAML(s.MaxRate))
	}
	if len(parts) == 0 {
		return "uniform"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func deleteYAML(d Delete) string {
	s := "kind: " + d.Kind.String()
	if !d.Rate.IsZero() {
		s += ", rate: " + FormatRateYAML(d.Rate)
	} else {
		s += ", per_partition: " + FormatCountYAML(d.PerPartition)
	}
	if d.Rows > 0 {
		s += ", rows: " + FormatCountYAML(d.Rows)
	}
	if d.Column != "" {
		s += ", column: " + YAMLKey(d.Column)
	}
	if d.At != "" {
		s += ", at: " + d.At
	}
	return "{" + s + "}"
}

// FormatCountYAML writes a number so ParseCount reads it back exactly: whole numbers as
// integers (2000000), others in the shortest form that is the same float64 (0.1235, 1.5e-05).
func FormatCountYAML(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// FormatDurationYAML writes a duration as ParseDuration reads it back, in the largest unit
// it is a whole number of: 10y, 90d, 6h, 2m, 129617s (0 for none; Go's form below a second).
func FormatDurationYAML(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"y", Year}, {"d", Day}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}} {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.name
		}
	}
	return d.String()
}

// FormatRateYAML writes a rate as ParseRate reads it back: the count per second, hour,
// day or year (10000/s, 2/day), or per the span it was given over (3/6h).
func FormatRateYAML(r Rate) string {
	c := FormatCountYAML(r.Count)
	switch r.Per {
	case time.Second:
		return c + "/s"
	case time.Hour:
		return c + "/hour"
	case Day:
		return c + "/day"
	case Year:
		return c + "/year"
	}
	return c + "/" + FormatDurationYAML(r.Per)
}

// YAMLKey quotes a name YAML would read as something else (a number, true, a name with a
// colon or a space).
func YAMLKey(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`- ") || strings.EqualFold(s, "null") ||
		strings.EqualFold(s, "true") || strings.EqualFold(s, "false") || s == "~" {
		return strconv.Quote(s)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.Quote(s)
	}
	return s
}
