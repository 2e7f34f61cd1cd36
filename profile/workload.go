package profile

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// WriteWorkload writes the profile as a workload file that `cqlsize estimate --workload`
// reads unchanged, through the workload package's writer. Every field carries a comment
// naming where its number comes from and how many partitions, rows or values it rests on, so
// a reader can tell a measurement from a default and edit what they know better.
func (r *Result) WriteWorkload(w io.Writer) error {
	notes := &workload.Notes{Tables: map[string]*workload.TableNotes{}}
	head := fmt.Sprintf("Read at %s, %s rows in %.3gs (%.0f rows/s", r.Consistency, strconv.FormatInt(r.Rows, 10), float64(r.Elapsed), r.RateAchieved)
	if r.RateSet > 0 {
		head += fmt.Sprintf("; --rate %g", r.RateSet)
	}
	notes.Head = []string{fmt.Sprintf("Workload measured by `cqlsize profile` on keyspace %s, %s.", r.Keyspace, r.Started.UTC().Format(time.RFC3339)), head + ")."}
	if r.LocalDC != "" {
		notes.Head = append(notes.Head, LocalDCNote(r.LocalDC, r.Consistency))
	}
	if len(r.Problems) > 0 {
		if r.Partial {
			notes.Head = append(notes.Head, "PARTIAL: not everything could be read:")
		} else {
			notes.Head = append(notes.Head, "Notes:")
		}
		for _, p := range r.Problems {
			notes.Head = append(notes.Head, "  "+oneLine(p))
		}
	} else if r.Partial {
		notes.Head = append(notes.Head, "PARTIAL: not everything could be read:")
	}
	notes.Head = append(notes.Head, "Sizes are the serialized bytes the driver received; rows per partition are exact for",
		"the partitions read (whole partitions).")
	wl := &workload.Workload{}
	for _, t := range r.Tables {
		tw, tn := tableWorkload(t)
		wl.Tables = append(wl.Tables, tw)
		notes.Tables[tw.Name] = tn
	}
	if err := workload.Write(w, wl, notes); err != nil {
		return fmt.Errorf("profile of %s: %w", r.Keyspace, err)
	}
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// num prints a number as the comments quote it: whole numbers as integers, others with up
// to 4 significant digits.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// tableNotes is a table's notes with its maps made.
func tableNotes() *workload.TableNotes {
	return &workload.TableNotes{Before: map[string][]string{}, Line: map[string]string{}, After: map[string][]string{}}
}

// tableWorkload is the workload a profiled table declares, its figures rounded to the four
// significant digits a measurement carries, and the notes that say where each comes from.
func tableWorkload(t *Table) (*workload.TableWorkload, *workload.TableNotes) {
	tw := &workload.TableWorkload{Name: t.Keyspace + "." + t.Name}
	tn := tableNotes()
	if t.Partial {
		tn.Head = append(tn.Head, "PARTIAL: "+oneLine(t.Problem))
	}
	if t.PartitionsSeen == 0 {
		tn.Head = append(tn.Head, "no partition was read: the table is empty or could not be read")
		tw.RowsPerPartition = 1
		return tw, tn
	}
	ttlWritten := ttlWritten(t)
	writePartitions(tw, tn, t, ttlWritten)
	tombs, expired := writeRows(tw, tn, t)
	writeSkew(tw, tn, t)
	writeTombstones(tw, tn, t, tombs)
	writeExpired(tw, tn, t, expired)
	writeTTLs(tw, tn, t)
	if ttlWritten {
		d := time.Duration(math.Round(t.TTL.P50)) * time.Second
		tw.TTL = &d
		tn.Line["ttl"] = fmt.Sprintf("median TTL written, over %d cells (%.0f%% of cells read carry one)", t.TTL.N, 100*t.TTLFraction)
	} else if t.Schema != nil && t.Schema.Options.DefaultTTL == 0 {
		var none time.Duration
		tw.TTL = &none
		tn.Line["ttl"] = fmt.Sprintf("%.0f%% of %d cells read carry a TTL", 100*t.TTLFraction, t.TTL.N)
	}
	if t.Disk.Predicted && t.Disk.Ratio > 0 {
		tw.CompressionRatio = round4(t.Disk.Ratio)
		c := fmt.Sprintf("Data.db compressed/uncompressed: %d sampled partitions laid out and compressed with %s", t.Disk.SamplePartitions, t.Disk.Compressor)
		if t.Disk.ChunkKB > 0 {
			c += fmt.Sprintf(", %d KiB chunks", t.Disk.ChunkKB)
		}
		tn.Line["compression_ratio"] = c
	}
	writeSpread(tw, tn, t)
	if t.WriteSpread.N > 0 && t.WriteSpread.P50 > 0 {
		tn.After["write_spread"] = append(tn.After["write_spread"], fmt.Sprintf("write times within a partition span %s at the median (p99 %s) over %d partitions",
			secs(t.WriteSpread.P50), secs(t.WriteSpread.P99), t.WriteSpread.N))
	}
	writeColumns(tw, tn, t)
	if len(tw.Avg) > 0 {
		tn.Line["avg"] = "average serialized bytes of variable-length values"
	}
	if len(tw.Items) > 0 {
		tn.Line["items"] = "collection elements per value and their bytes"
	}
	writeElementWrites(tw, tn, t)
	if len(tw.Nulls) > 0 {
		tn.Line["nulls"] = "fraction of rows without a value (null and unset read the same)"
		tw.NullsAs = workload.NullUnset
		tn.Line["nulls_as"] = "a read cannot tell a null cell from an unset one; null writes a tombstone"
	}
	if t.Tombstones.WarnResponses > 0 {
		tn.Tail = append(tn.Tail, fmt.Sprintf("%d responses carried warnings (most tombstones in one: %d)", t.Tombstones.WarnResponses, t.Tombstones.Max))
	}
	return tw, tn
}

// writeRows declares rows_per_partition: the live rows, with the tombstones a partition
// holds added when they are taken for deletes; for a bucketed table, the same as write_rate
// per bucket width. It returns those tombstones and the expired
// rows a partition holds, which the deletes and expired_rows fields then declare.
func writeRows(tw *workload.TableWorkload, tn *workload.TableNotes, t *Table) (tombs, expired float64) {
	rp := t.RowsPerPartition
	rows := t.MeanRows
	if rows <= 0 && (t.Schema == nil || len(t.Schema.Clustering) == 0) {
		rows = 1 // a table without clustering columns holds one row a partition
	}
	tombs = round4(t.Tombstones.PerPartition)
	expired = round4(t.Tombstones.ExpiredRows)
	source := t.MeanRowsSource
	if k := t.Keys; k != nil && t.MeanRows > 0 {
		// A bucketed table's rows are a key's in a bucket, empty buckets included, and its
		// tombstones and expired rows follow them: estimate scales them all by the key's
		// activity alike.
		per := k.RowsPerKeyBucket / t.MeanRows
		rows = k.RowsPerKeyBucket
		tombs, expired = round4(t.Tombstones.PerPartition*per), round4(t.Tombstones.ExpiredRows*per)
		source = fmt.Sprintf("rows a key writes in a bucket, empty buckets included (%s); the partitions read hold %s on average",
			k.RowsSource, num(round4(t.MeanRows)))
	}
	const rowsField = "rows_per_partition"
	if expired > 0 {
		tw.RowsPerPartition = round4(rows)
		tn.Line[rowsField] = fmt.Sprintf("live rows; %d partitions read whole: p50 %s, p99 %s, max %s", t.PartitionsSeen, num(rp.P50), num(rp.P99), num(rp.Max))
		tn.After[rowsField] = append(tn.After[rowsField], oneLine(source))
		tombs = 0 // the tombstones are the expired rows' cells (expired_rows below)
	} else if tombs > 0 {
		tw.RowsPerPartition = round4(rows + tombs)
		tn.Line[rowsField] = fmt.Sprintf("%s live rows + %s tombstones a partition (deletes below); %d partitions read whole: p50 %s, p99 %s, max %s",
			num(round4(rows)), num(tombs), t.PartitionsSeen, num(rp.P50), num(rp.P99), num(rp.Max))
		tn.After[rowsField] = append(tn.After[rowsField], oneLine(source))
	} else {
		tw.RowsPerPartition = round4(rows)
		tn.Line[rowsField] = fmt.Sprintf("%s; %d partitions read whole: p50 %s, p99 %s, max %s", source, t.PartitionsSeen, num(rp.P50), num(rp.P99), num(rp.Max))
	}
	if t.WriteRate == 0 && t.RowsSeen > 0 {
		tn.After[rowsField] = append(tn.After[rowsField], "write rate "+oneLine(t.WriteRateSource))
	}
	switch {
	case t.WriteRate > 0 && t.Keys != nil:
		tn.After[rowsField] = append(tn.After[rowsField],
			fmt.Sprintf("while a partition receives writes it takes %s rows/s (%s)", num(round4(t.WriteRate)), t.WriteRateSource))
	case t.WriteRate > 0:
		tn.After[rowsField] = append(tn.After[rowsField],
			fmt.Sprintf("measured write rate %s rows/s per partition (%s); rows_per_partition above", num(round4(t.WriteRate)), t.WriteRateSource),
			fmt.Sprintf("sizes what is stored now. For growth, replace it with write_rate: %s/day.", num(round4(t.WriteRate*86400))))
	}
	if span, _, ok := sizing.TableBucket(t.Schema); ok && t.Keys != nil {
		// The rows a key writes in a bucket are a rate over the bucket's width, and declared
		// as one: estimate then knows how often a key's bucket gets no row (a key writing 0.16
		// rows an hour fills about 15% of its hours) and counts only the partitions that hold
		// rows.
		tw.WriteRate = workload.Rate{Count: tw.RowsPerPartition, Per: span.Avg}
		tw.RowsPerPartition = 0
		const rateField = "write_rate"
		tn.Line[rateField], tn.After[rateField] = tn.Line[rowsField], tn.After[rowsField]
		delete(tn.Line, rowsField)
		delete(tn.After, rowsField)
	}
	return tombs, expired
}

// writeColumns declares the columns' sizes (avg:, items:) and null fractions (nulls:), in
// the table's column order.
func writeColumns(tw *workload.TableWorkload, tn *workload.TableNotes, t *Table) {
	for _, c := range t.Columns {
		col := t.Schema.Column(c.Name)
		if col == nil {
			continue
		}
		tn.Order = append(tn.Order, c.Name)
		switch {
		case col.Type.MultiCell() && col.Type.IsCollection():
			if c.Items != nil && c.Items.N > 0 {
				it := workload.Items{Count: round4(c.Items.Mean)}
				if c.ItemSize != nil && c.ItemSize.N > 0 {
					it.Size = round4(c.ItemSize.Mean) // a map's values, a list's or set's elements
				}
				if c.KeySize != nil && c.KeySize.N > 0 {
					it.KeySize = round4(c.KeySize.Mean)
				}
				setItems(tw, c.Name, it)
				tn.Line["items."+c.Name] = fmt.Sprintf("over %d values", c.Items.N)
			}
		case col.Type.Kind == cql.UDT && !col.Type.Frozen:
			names := make([]string, 0, len(c.Fields))
			for f := range c.Fields {
				names = append(names, f)
			}
			sort.Strings(names)
			for _, f := range names {
				d := c.Fields[f]
				tn.Order = append(tn.Order, c.Name+"."+f)
				setNumber(&tw.Avg, c.Name+"."+f, round4(d.Mean))
				tn.Line["avg."+c.Name+"."+f] = fmt.Sprintf("over %d values", d.N)
			}
		default:
			// A counter reads as a bigint, but Cassandra stores its counter context (a shard
			// of ids, clocks and counts): the model sizes that, not the 8 bytes read.
			if _, fixed := col.Type.FixedSize(); !fixed && c.Size.N > 0 && !isCounter(&col.Type) {
				setNumber(&tw.Avg, c.Name, round4(c.Size.Mean))
				tn.Line["avg."+c.Name] = fmt.Sprintf("mean of %d values, sd %s, max %s", c.Size.N, num(round4(c.Size.Std)), num(c.Size.Max))
			}
		}
		if (c.Kind == "regular" || c.Kind == "static") && c.Rows > 0 {
			setNumber(&tw.Nulls, c.Name, round4(c.NullFraction))
			tn.Line["nulls."+c.Name] = fmt.Sprintf("%d of %d %s", int(math.Round(c.NullFraction*float64(c.Rows))), c.Rows,
				map[bool]string{true: "partitions", false: "rows"}[c.Kind == "static"])
		}
	}
}

func setNumber(m *map[string]float64, k string, v float64) {
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[k] = v
}

func setItems(tw *workload.TableWorkload, k string, it workload.Items) {
	if tw.Items == nil {
		tw.Items = map[string]workload.Items{}
	}
	tw.Items[k] = it
}

func round4(v float64) float64 {
	if v == 0 {
		return 0
	}
	mag := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*mag) / mag
}

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

// writeElementWrites names the collections whose elements were written apart from their row
// (their write times are not the row's): element_writes: [tags] when most values never had an
// element written with their row (no write replaced them whole, so estimate counts no
// collection tombstone for them), else element_writes: {prefs: 0.34}, the share of elements
// written apart, each of which carries its own timestamp.
func writeElementWrites(tw *workload.TableWorkload, tn *workload.TableNotes, t *Table) {
	var why []string
	whole := true
	for _, c := range t.Columns {
		if c.ElementsChecked == 0 || c.ElementShareApart == 0 {
			continue
		}
		share := 1.0
		if c.ElementsOnlyApart <= 0.5 {
			share, whole = round4(c.ElementShareApart), false
		}
		setNumber(&tw.ElementWrites, c.Name, share)
		why = append(why, fmt.Sprintf("%s: %d of %d values had elements written apart, %d none with it; %.0f%% of elements",
			c.Name, int(math.Round(c.ElementsApart*float64(c.ElementsChecked))), c.ElementsChecked,
			int(math.Round(c.ElementsOnlyApart*float64(c.ElementsChecked))), 100*c.ElementShareApart))
	}
	if len(why) == 0 {
		return
	}
	if whole {
		tn.Line["element_writes"] = "written element by element only (SET m[k] = v), never whole"
	} else {
		tn.Line["element_writes"] = "share of elements written apart from their row (SET m[k] = v); 1: element by element only"
	}
	tn.After["element_writes"] = append(tn.After["element_writes"], "("+strings.Join(why, "; ")+")")
}

// writeTombstones writes the tombstones the traced reads met as row deletes, tombs a
// partition. A read counts a deleted row, each bound of a range tombstone and each expired or
// deleted cell as one tombstone, and each costs Data.db about what a row tombstone does (its
// clustering, flags and a deletion time; an expired cell keeps its timestamp and deletion
// time and loses its value at compaction), so one row tombstone per tombstone counted gives
// estimate both the tombstones a read passes and their bytes, where the kinds cannot be told
// apart from a trace.
func writeTombstones(tw *workload.TableWorkload, tn *workload.TableNotes, t *Table, tombs float64) {
	tb := t.Tombstones
	if tombs <= 0 {
		if tb.TracedReads > 0 {
			tn.After["deletes"] = append(tn.After["deletes"], fmt.Sprintf("no tombstone in %d traced reads (%d live rows)", tb.TracedReads, tb.TracedLiveRows))
		}
		return
	}
	tw.Deletes = []workload.Delete{{Kind: workload.DeleteRow, PerPartition: tombs}}
	tn.Line["deletes"] = fmt.Sprintf("tombstones a partition: %d traced reads passed %d tombstone cells for %d live rows",
		tb.TracedReads, tb.TracedTombstones, tb.TracedLiveRows)
	tn.After["deletes"] = append(tn.After["deletes"],
		"(deleted rows, range tombstone bounds and expired cells count one each, as a read counts them;",
		"each is sized as a row tombstone, and they stay until gc_grace_seconds pass and compaction purges them)")
}

// writeExpired writes the rows past their TTL a partition holds (see expiredRows).
func writeExpired(tw *workload.TableWorkload, tn *workload.TableNotes, t *Table, expired float64) {
	if expired <= 0 {
		return
	}
	tb := t.Tombstones
	tw.ExpiredRows = expired
	tn.Line["expired_rows"] = fmt.Sprintf("rows past their TTL a partition holds: %d traced reads passed %d tombstone cells for %d live rows,",
		tb.TracedReads, tb.TracedTombstones, tb.TracedLiveRows)
	tn.After["expired_rows"] = append(tn.After["expired_rows"],
		fmt.Sprintf("%s a partition, taken for expired cells (the table is written with a TTL), %s a row;", num(round4(tb.PerPartition)), num(round4(cellsPerRow(t)))),
		"they stay, their cells as tombstones, until gc_grace_seconds pass and compaction purges them")
	if tb.ExpiredTTL > 0 {
		tw.ExpiredTTL = time.Duration(tb.ExpiredTTL) * time.Second
		tn.Line["expired_ttl"] = fmt.Sprintf("at most: the oldest live row was written %s ago, under half the TTL, so the expired rows had a shorter one",
			secs(float64(tb.ExpiredTTL)))
	}
}

// writeTTLs lists the TTL populations the cells read carry, when there is more than one.
func writeTTLs(tw *workload.TableWorkload, tn *workload.TableNotes, t *Table) {
	if len(t.TTLs) < 2 {
		return
	}
	parts := make([]string, len(t.TTLs))
	var cells int64
	tw.TTLMix = map[time.Duration]float64{}
	for i, p := range t.TTLs {
		cells += p.Cells
		d := "none"
		if p.Seconds > 0 {
			d = secs(float64(p.Seconds))
		}
		parts[i] = fmt.Sprintf("%s %.1f%%", d, 100*p.Share)
		tw.TTLMix[time.Duration(p.Seconds)*time.Second] += round4(p.Share)
	}
	tn.Before["ttl_mix"] = append(tn.Before["ttl_mix"], fmt.Sprintf("TTLs written, share of %d cells read: %s", cells, strings.Join(parts, ", ")))
	tn.Line["ttl_mix"] = "each TTL's own expiry and TTL deltas cost bytes a single TTL does not"
}

// writePartitions declares partitions (and, for a bucketed table without a TTL, the horizon
// keeping the buckets it spans). A bucketed table's is its keys, each of which starts a
// partition in a bucket it writes a row in (KeyFit).
func writePartitions(tw *workload.TableWorkload, tn *workload.TableNotes, t *Table, ttlWritten bool) {
	if span, col, ok := sizing.TableBucket(t.Schema); ok && t.Keys != nil {
		k := t.Keys
		tw.Partitions = k.Keys
		tn.Line["partitions"] = fmt.Sprintf("keys (the partition key without %s): %d read, %s in all", col, k.Seen, num(k.Keys))
		tn.After["partitions"] = append(tn.After["partitions"], fmt.Sprintf("a key with no row in one %s bucket has no partition there: %s partitions (%s) over %s buckets, %s a bucket",
			span.Name, num(math.Round(t.Partitions)), t.PartitionsSource, num(k.Buckets), num(round4(k.PerBucket))))
		if ttlWritten {
			tn.After["partitions"] = append(tn.After["partitions"], fmt.Sprintf("the TTL below keeps about TTL / %s buckets; the table spans %s now", span.Name, num(k.Buckets)))
		} else {
			tw.Horizon = (time.Duration(k.Buckets) * span.Avg).Truncate(time.Second)
			tn.Line["horizon"] = fmt.Sprintf("the %s %s buckets the table spans are kept", num(k.Buckets), span.Name)
		}
	} else {
		tw.Partitions = math.Round(t.Partitions)
		tn.Line["partitions"] = t.PartitionsSource
	}
}

// writeSkew declares skew: with where the fit comes from and, for a sample, what rests on it.
func writeSkew(tw *workload.TableWorkload, tn *workload.TableNotes, t *Table) {
	rp := t.RowsPerPartition
	switch {
	case t.Skew.Kind == "zipf" && t.Keys != nil:
		tw.Skew = workload.Skew{Kind: workload.Zipf, S: round4(t.Skew.S)}
		tn.Line["skew"] = fmt.Sprintf("fitted over %d keys (the partition key without %s) to each key's rows read, R² %.3f", t.Skew.Points, t.Keys.Column, t.Skew.R2)
		tn.After["skew"] = append(tn.After["skew"], fmt.Sprintf("the busiest key writes %s rows a bucket: %s", num(round4(t.Keys.Head)), oneLine(t.Keys.HeadSource)))
	case t.Skew.Kind == "zipf":
		tw.Skew = workload.Skew{Kind: workload.Zipf, S: round4(t.Skew.S)}
		tn.Line["skew"] = fmt.Sprintf("fitted to rows per partition of %d partitions, R² %.3f", t.Skew.Points, t.Skew.R2)
		if float64(t.PartitionsSeen) < t.Partitions {
			// A sample catches the few busiest keys or misses them, so the head is the fitted
			// curve extrapolated to rank 1: over simulated samples it moved by -31%..+51%. The
			// mean rows and the exponent every size of the table is estimated from vary with the
			// sample too, so the note names them all: none of them is held to a bound when sampled.
			tn.After["skew"] = append(tn.After["skew"],
				"sampled: every size estimated from this table (typical, p99, busiest key, on disk) rests on the",
				"sample's mean rows and fitted exponent, which vary from sample to sample; the busiest key's",
				fmt.Sprintf("partition is extrapolated from the fit (the largest read had %s rows);", num(rp.Max)),
				"profile with --full to measure the head of a skewed table")
		}
	default:
		tn.Line["skew"] = fmt.Sprintf("%s (fitted exponent %s, R² %.3f)", oneLine(t.Skew.Note), num(t.Skew.Fitted), t.Skew.R2)
	}
}

// writeSpread declares the span of the write times read, first to last, as write_spread:
// Cassandra writes each timestamp as a delta from its sstable's oldest, so the span costs
// bytes in every row (3 within a second, 6 within a day), and estimate otherwise assumes a
// day. A table compacted into one sstable spans them all; one kept in several sstables spans
// less in each, so this is the most its timestamps cost.
func writeSpread(tw *workload.TableWorkload, tn *workload.TableNotes, t *Table) {
	if t.FirstWrite.IsZero() || t.LastWrite.IsZero() {
		return
	}
	span := t.LastWrite.Sub(t.FirstWrite).Round(time.Second)
	if span < time.Second {
		span = time.Second
	}
	tw.WriteSpread = span
	tn.Line["write_spread"] = fmt.Sprintf("the write times read span %s to %s", t.FirstWrite.Format(time.RFC3339), t.LastWrite.Format(time.RFC3339))
}

func isCounter(t *cql.Type) bool { return t != nil && t.Kind == cql.Native && t.Name == "counter" }

// LocalDCNote is the one sentence every output of a profile of one data center carries.
func LocalDCNote(dc, consistency string) string {
	return fmt.Sprintf("Sampled in data center %s only (--local-dc: every read routed there, at %s): rows not yet there (hints or repair pending) are not counted.", dc, consistency)
}
