package profile

import (
	"bufio"
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
// reads unchanged. Every field carries a comment naming where its number comes from and how
// many partitions, rows or values it rests on, so a reader can tell a measurement from a
// default and edit what they know better.
func (r *Result) WriteWorkload(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# Workload measured by `cqlsize profile` on keyspace %s, %s.\n", r.Keyspace, r.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(b, "# Read at %s, %s rows in %.3gs (%.0f rows/s", r.Consistency, strconv.FormatInt(r.Rows, 10), float64(r.Elapsed), r.RateAchieved)
	if r.RateSet > 0 {
		fmt.Fprintf(b, "; --rate %g", r.RateSet)
	}
	fmt.Fprintf(b, ").\n")
	if r.Partial {
		fmt.Fprintf(b, "# PARTIAL: not everything could be read:\n")
		for _, p := range r.Problems {
			fmt.Fprintf(b, "#   %s\n", oneLine(p))
		}
	} else if len(r.Problems) > 0 {
		fmt.Fprintf(b, "# Notes:\n")
		for _, p := range r.Problems {
			fmt.Fprintf(b, "#   %s\n", oneLine(p))
		}
	}
	fmt.Fprintf(b, "# Sizes are the serialized bytes the driver received; rows per partition are exact for\n# the partitions read (whole partitions).\nversion: 1\ntables:\n")
	for _, t := range r.Tables {
		writeTable(b, t)
	}
	return b.Flush()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// yamlKey quotes a name YAML would read as something else.
func yamlKey(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`- ") || strings.ToLower(s) == "null" ||
		strings.ToLower(s) == "true" || strings.ToLower(s) == "false" || s == "~" {
		return strconv.Quote(s)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.Quote(s)
	}
	return s
}

// num prints a number the workload parser reads: whole numbers as integers, others with up
// to 4 significant digits.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func writeTable(b *bufio.Writer, t *Table) {
	fmt.Fprintf(b, "\n  %s:\n", yamlKey(t.Keyspace+"."+t.Name))
	if t.Partial {
		fmt.Fprintf(b, "    # PARTIAL: %s\n", oneLine(t.Problem))
	}
	if t.PartitionsSeen == 0 {
		fmt.Fprintf(b, "    # no partition was read: the table is empty or could not be read\n    rows_per_partition: 1\n")
		return
	}
	ttlWritten := ttlWritten(t)
	writePartitions(b, t, ttlWritten)
	rp := t.RowsPerPartition
	rows := t.MeanRows
	if rows <= 0 && (t.Schema == nil || len(t.Schema.Clustering) == 0) {
		rows = 1 // a table without clustering columns holds one row a partition
	}
	tombs := round4(t.Tombstones.PerPartition)
	expired := round4(t.Tombstones.ExpiredRows)
	if expired > 0 {
		fmt.Fprintf(b, "    rows_per_partition: %s   # live rows; %d partitions read whole: p50 %s, p99 %s, max %s\n",
			num(round4(rows)), t.PartitionsSeen, num(rp.P50), num(rp.P99), num(rp.Max))
		fmt.Fprintf(b, "    # %s\n", oneLine(t.MeanRowsSource))
		tombs = 0 // the tombstones are the expired rows' cells (expired_rows below)
	} else if tombs > 0 {
		fmt.Fprintf(b, "    rows_per_partition: %s   # %s live rows + %s tombstones a partition (deletes below); %d partitions read whole: p50 %s, p99 %s, max %s\n",
			num(round4(rows+tombs)), num(round4(rows)), num(tombs), t.PartitionsSeen, num(rp.P50), num(rp.P99), num(rp.Max))
		fmt.Fprintf(b, "    # %s\n", oneLine(t.MeanRowsSource))
	} else {
		fmt.Fprintf(b, "    rows_per_partition: %s   # %s; %d partitions read whole: p50 %s, p99 %s, max %s\n",
			num(round4(rows)), t.MeanRowsSource, t.PartitionsSeen, num(rp.P50), num(rp.P99), num(rp.Max))
	}
	if t.WriteRate == 0 && t.RowsSeen > 0 {
		fmt.Fprintf(b, "    # write rate %s\n", oneLine(t.WriteRateSource))
	}
	if t.WriteRate > 0 {
		fmt.Fprintf(b, "    # measured write rate %s rows/s per partition (%s); rows_per_partition above\n    # sizes what is stored now. For growth, replace it with write_rate: %s/day.\n",
			num(round4(t.WriteRate)), t.WriteRateSource, num(round4(t.WriteRate*86400)))
	}
	writeSkew(b, t)
	writeTombstones(b, t, tombs)
	writeExpired(b, t, expired)
	writeTTLs(b, t)
	if ttlWritten {
		fmt.Fprintf(b, "    ttl: %ds   # median TTL written, over %d cells (%.0f%% of cells read carry one)\n",
			int64(math.Round(t.TTL.P50)), t.TTL.N, 100*t.TTLFraction)
	} else if t.Schema != nil && t.Schema.Options.DefaultTTL == 0 {
		fmt.Fprintf(b, "    ttl: 0   # %.0f%% of %d cells read carry a TTL\n", 100*t.TTLFraction, t.TTL.N)
	}
	if t.Disk.Predicted && t.Disk.Ratio > 0 {
		fmt.Fprintf(b, "    compression_ratio: %s   # Data.db compressed/uncompressed: %d sampled partitions laid out and compressed with %s",
			num(round4(t.Disk.Ratio)), t.Disk.SamplePartitions, t.Disk.Compressor)
		if t.Disk.ChunkKB > 0 {
			fmt.Fprintf(b, ", %d KiB chunks", t.Disk.ChunkKB)
		}
		b.WriteString("\n")
	}
	writeSpread(b, t)
	if t.WriteSpread.N > 0 && t.WriteSpread.P50 > 0 {
		fmt.Fprintf(b, "    # write times within a partition span %s at the median (p99 %s) over %d partitions\n",
			secs(t.WriteSpread.P50), secs(t.WriteSpread.P99), t.WriteSpread.N)
	}
	var avg, nulls, items []string
	for _, c := range t.Columns {
		col := t.Schema.Column(c.Name)
		if col == nil {
			continue
		}
		name := yamlKey(c.Name)
		switch {
		case col.Type.MultiCell() && col.Type.IsCollection():
			if c.Items != nil && c.Items.N > 0 {
				it := fmt.Sprintf("%s: {count: %s", name, num(round4(c.Items.Mean)))
				if c.ItemSize != nil && c.ItemSize.N > 0 {
					if col.Type.Kind == cql.Map {
						it += ", value: " + num(round4(c.ItemSize.Mean))
					} else {
						it += ", size: " + num(round4(c.ItemSize.Mean))
					}
				}
				if c.KeySize != nil && c.KeySize.N > 0 {
					it += ", key: " + num(round4(c.KeySize.Mean))
				}
				it += fmt.Sprintf("}   # over %d values", c.Items.N)
				items = append(items, it)
			}
		case col.Type.Kind == cql.UDT && !col.Type.Frozen:
			names := make([]string, 0, len(c.Fields))
			for f := range c.Fields {
				names = append(names, f)
			}
			sort.Strings(names)
			for _, f := range names {
				d := c.Fields[f]
				avg = append(avg, fmt.Sprintf("%s: %s   # over %d values", yamlKey(c.Name+"."+f), num(round4(d.Mean)), d.N))
			}
		default:
			// A counter reads as a bigint, but Cassandra stores its counter context (a shard
			// of ids, clocks and counts): the model sizes that, not the 8 bytes read.
			if _, fixed := col.Type.FixedSize(); !fixed && c.Size.N > 0 && !isCounter(&col.Type) {
				avg = append(avg, fmt.Sprintf("%s: %s   # mean of %d values, sd %s, max %s", name, num(round4(c.Size.Mean)), c.Size.N, num(round4(c.Size.Std)), num(c.Size.Max)))
			}
		}
		if (c.Kind == "regular" || c.Kind == "static") && c.Rows > 0 {
			nulls = append(nulls, fmt.Sprintf("%s: %s   # %d of %d %s", name, num(round4(c.NullFraction)),
				int(math.Round(c.NullFraction*float64(c.Rows))), c.Rows, map[bool]string{true: "partitions", false: "rows"}[c.Kind == "static"]))
		}
	}
	section(b, "avg", "average serialized bytes of variable-length values", avg)
	section(b, "items", "collection elements per value and their bytes", items)
	writeElementWrites(b, t)
	section(b, "nulls", "fraction of rows without a value (null and unset read the same)", nulls)
	if len(nulls) > 0 {
		fmt.Fprintf(b, "    nulls_as: unset   # a read cannot tell a null cell from an unset one; null writes a tombstone\n")
	}
	if t.Tombstones.WarnResponses > 0 {
		fmt.Fprintf(b, "    # %d responses carried warnings (most tombstones in one: %d)\n", t.Tombstones.WarnResponses, t.Tombstones.Max)
	}
}

func section(b *bufio.Writer, name, what string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "    %s:   # %s\n", name, what)
	for _, l := range lines {
		fmt.Fprintf(b, "      %s\n", l)
	}
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
func writeElementWrites(b *bufio.Writer, t *Table) {
	var names, shares, why []string
	whole := true
	for _, c := range t.Columns {
		if c.ElementsChecked == 0 || c.ElementShareApart == 0 {
			continue
		}
		share := "1"
		if c.ElementsOnlyApart <= 0.5 {
			share, whole = num(round4(c.ElementShareApart)), false
		}
		names = append(names, yamlKey(c.Name))
		shares = append(shares, yamlKey(c.Name)+": "+share)
		why = append(why, fmt.Sprintf("%s: %d of %d values had elements written apart, %d none with it; %.0f%% of elements",
			c.Name, int(math.Round(c.ElementsApart*float64(c.ElementsChecked))), c.ElementsChecked,
			int(math.Round(c.ElementsOnlyApart*float64(c.ElementsChecked))), 100*c.ElementShareApart))
	}
	if len(names) == 0 {
		return
	}
	if whole {
		fmt.Fprintf(b, "    element_writes: [%s]   # written element by element only (SET m[k] = v), never whole\n", strings.Join(names, ", "))
	} else {
		fmt.Fprintf(b, "    element_writes: {%s}   # share of elements written apart from their row (SET m[k] = v); 1: element by element only\n", strings.Join(shares, ", "))
	}
	fmt.Fprintf(b, "    # (%s)\n", strings.Join(why, "; "))
}

// writeTombstones writes the tombstones the traced reads met as row deletes, tombs a
// partition. A read counts a deleted row, each bound of a range tombstone and each expired or
// deleted cell as one tombstone, and each costs Data.db about what a row tombstone does (its
// clustering, flags and a deletion time; an expired cell keeps its timestamp and deletion
// time and loses its value at compaction), so one row tombstone per tombstone counted gives
// estimate both the tombstones a read passes and their bytes, where the kinds cannot be told
// apart from a trace.
func writeTombstones(b *bufio.Writer, t *Table, tombs float64) {
	tb := t.Tombstones
	if tombs <= 0 {
		if tb.TracedReads > 0 {
			fmt.Fprintf(b, "    # no tombstone in %d traced reads (%d live rows)\n", tb.TracedReads, tb.TracedLiveRows)
		}
		return
	}
	fmt.Fprintf(b, "    deletes: [{kind: row, per_partition: %s}]   # tombstones a partition: %d traced reads passed %d tombstone cells for %d live rows\n",
		num(tombs), tb.TracedReads, tb.TracedTombstones, tb.TracedLiveRows)
	fmt.Fprintf(b, "    # (deleted rows, range tombstone bounds and expired cells count one each, as a read counts them;\n"+
		"    # each is sized as a row tombstone, and they stay until gc_grace_seconds pass and compaction purges them)\n")
}

// writeExpired writes the rows past their TTL a partition holds (see expiredRows).
func writeExpired(b *bufio.Writer, t *Table, expired float64) {
	if expired <= 0 {
		return
	}
	tb := t.Tombstones
	fmt.Fprintf(b, "    expired_rows: %s   # rows past their TTL a partition holds: %d traced reads passed %d tombstone cells for %d live rows,\n",
		num(expired), tb.TracedReads, tb.TracedTombstones, tb.TracedLiveRows)
	fmt.Fprintf(b, "    # %s a partition, taken for expired cells (the table is written with a TTL), %s a row;\n"+
		"    # they stay, their cells as tombstones, until gc_grace_seconds pass and compaction purges them\n",
		num(round4(tb.PerPartition)), num(round4(cellsPerRow(t))))
	if tb.ExpiredTTL > 0 {
		fmt.Fprintf(b, "    expired_ttl: %ds   # at most: the oldest live row was written %s ago, under half the TTL, so the expired rows had a shorter one\n",
			tb.ExpiredTTL, secs(float64(tb.ExpiredTTL)))
	}
}

// writeTTLs lists the TTL populations the cells read carry, when there is more than one.
func writeTTLs(b *bufio.Writer, t *Table) {
	if len(t.TTLs) < 2 {
		return
	}
	parts := make([]string, len(t.TTLs))
	var cells int64
	for i, p := range t.TTLs {
		cells += p.Cells
		d := "none"
		if p.Seconds > 0 {
			d = secs(float64(p.Seconds))
		}
		parts[i] = fmt.Sprintf("%s %.1f%%", d, 100*p.Share)
	}
	fmt.Fprintf(b, "    # TTLs written, share of %d cells read: %s\n", cells, strings.Join(parts, ", "))
	mix := make([]string, len(t.TTLs))
	for i, p := range t.TTLs {
		k := "none"
		if p.Seconds > 0 {
			k = fmt.Sprintf("%ds", p.Seconds)
		}
		mix[i] = fmt.Sprintf("%s: %s", k, num(round4(p.Share)))
	}
	fmt.Fprintf(b, "    ttl_mix: {%s}   # each TTL's own expiry and TTL deltas cost bytes a single TTL does not\n", strings.Join(mix, ", "))
}

// writePartitions writes partitions: (and, for a bucketed table without a TTL, the horizon
// keeping the buckets seen). A bucketed table's is the partitions one bucket holds, the
// meaning estimate gives it.
func writePartitions(b *bufio.Writer, t *Table, ttlWritten bool) {
	if span, col, ok := sizing.TableBucket(t.Schema); ok && t.BucketsSeen > 0 {
		// partitions: is what one bucket holds; estimate keeps as many buckets as the TTL
		// (or the horizon) lasts.
		perBucket := math.Max(1, math.Round(t.Partitions/float64(t.BucketsSeen)))
		fmt.Fprintf(b, "    partitions: %s   # partitions a %s bucket holds: %s partitions (%s) over the %d values of %s seen\n",
			num(perBucket), span.Name, num(math.Round(t.Partitions)), t.PartitionsSource, t.BucketsSeen, col)
		if ttlWritten {
			fmt.Fprintf(b, "    # the TTL below keeps about TTL / %s buckets; the table holds the %d seen now\n", span.Name, t.BucketsSeen)
		} else {
			fmt.Fprintf(b, "    horizon: %ds   # the %d %s buckets seen are kept\n", int64((time.Duration(t.BucketsSeen) * span.Avg).Seconds()), t.BucketsSeen, span.Name)
		}
	} else {
		fmt.Fprintf(b, "    partitions: %s   # %s\n", num(math.Round(t.Partitions)), t.PartitionsSource)
	}
}

// writeSkew writes skew: with where the fit comes from and, for a sample, what rests on it.
func writeSkew(b *bufio.Writer, t *Table) {
	rp := t.RowsPerPartition
	switch {
	case t.Skew.Kind == "zipf" && t.Keys != nil:
		fmt.Fprintf(b, "    skew: {zipf: %s}   # fitted over %d keys (the partition key without %s) to each key's rows per partition, R² %.3f\n",
			num(t.Skew.S), t.Skew.Points, t.Keys.Column, t.Skew.R2)
		fmt.Fprintf(b, "    # the busiest key's partition: %s rows, %s\n", num(math.Round(t.Keys.Head)), oneLine(t.Keys.HeadSource))
	case t.Skew.Kind == "zipf":
		fmt.Fprintf(b, "    skew: {zipf: %s}   # fitted to rows per partition of %d partitions, R² %.3f\n", num(t.Skew.S), t.Skew.Points, t.Skew.R2)
		if float64(t.PartitionsSeen) < t.Partitions {
			// A sample catches the few busiest keys or misses them, so the head is the fitted
			// curve extrapolated to rank 1: over simulated samples it moved by -31%..+51%. The
			// mean rows and the exponent every size of the table is estimated from vary with the
			// sample too, so the note names them all: none of them is held to a bound when sampled.
			fmt.Fprintf(b, "    # sampled: every size estimated from this table (typical, p99, busiest key, on disk) rests on the\n"+
				"    # sample's mean rows and fitted exponent, which vary from sample to sample; the busiest key's\n"+
				"    # partition is extrapolated from the fit (the largest read had %s rows);\n"+
				"    # profile with --full to measure the head of a skewed table\n", num(rp.Max))
		}
	default:
		fmt.Fprintf(b, "    skew: uniform   # %s (fitted exponent %s, R² %.3f)\n", oneLine(t.Skew.Note), num(t.Skew.Fitted), t.Skew.R2)
	}
}

// writeSpread declares the span of the write times read, first to last, as write_spread:
// Cassandra writes each timestamp as a delta from its sstable's oldest, so the span costs
// bytes in every row (3 within a second, 6 within a day), and estimate otherwise assumes a
// day. A table compacted into one sstable spans them all; one kept in several sstables spans
// less in each, so this is the most its timestamps cost.
func writeSpread(b *bufio.Writer, t *Table) {
	if t.FirstWrite.IsZero() || t.LastWrite.IsZero() {
		return
	}
	span := t.LastWrite.Sub(t.FirstWrite).Round(time.Second)
	if span < time.Second {
		span = time.Second
	}
	fmt.Fprintf(b, "    write_spread: %s   # the write times read span %s to %s\n",
		workload.FormatDuration(span), t.FirstWrite.Format(time.RFC3339), t.LastWrite.Format(time.RFC3339))
}

func isCounter(t *cql.Type) bool { return t != nil && t.Kind == cql.Native && t.Name == "counter" }
