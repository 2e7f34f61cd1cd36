package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/cqlsize/cqlsize/sizing"
)

// WriteText renders the report for a terminal: one aligned line per table to read at a
// glance, then each table's findings with what to do, then the statements' findings.
func WriteText(w io.Writer, r *Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "cqlsize estimate (%s): %s\n", r.Target, headline(r))
	var src []string
	if r.Schema != "" {
		src = append(src, "schema "+r.Schema)
	}
	if r.Workload != "" {
		src = append(src, "workload "+r.Workload)
	}
	if r.Live != nil {
		src = append(src, "cluster "+r.Live.Hosts)
	}
	if len(src) > 0 {
		fmt.Fprintf(&b, "%s\n", strings.Join(src, ", "))
	}
	fmt.Fprintf(&b, "limits: %s\n\n", limitsLine(r))

	rows := [][]string{{"TABLE", "PARTITIONS", "BUCKET", "ROWS p50/max", "VALUES max stored/classic", "BYTES p50", "BYTES p99", "BYTES max", "CLASSIC max", "TOMBSTONES/READ", "VERDICT"}}
	for _, t := range r.Tables {
		bucket := t.Bucket
		if bucket == "" {
			bucket = "-"
		}
		rows = append(rows, []string{t.Name, Count(t.Partitions), bucket, rowsCell(t), valuesCell(t),
			sizing.FormatBytes(float64(t.Typical.Bytes)), sizing.FormatBytes(float64(t.P99.Bytes)), sizing.FormatBytes(float64(t.Largest.Bytes)), sizing.FormatBytes(float64(t.Largest.ClassicBytes)),
			tombstoneCell(t), severityWord(t.Verdict)})
	}
	writeColumns(&b, rows)

	for _, t := range r.Tables {
		fmt.Fprintf(&b, "\n%s", t.Name)
		if t.Position != "" {
			fmt.Fprintf(&b, " (%s)", t.Position)
		}
		fmt.Fprintf(&b, ": %s\n", severityWord(t.Verdict))
		writeTextSize(&b, t)
		fmt.Fprintf(&b, "  values: typical %s stored (classic %s), largest %s stored (classic %s); the limit counts stored values (cells written; a row with no cell counts its liveness)\n",
			Count(t.Typical.StoredValues), Count(t.Typical.ClassicValues), Count(t.Largest.StoredValues), Count(t.Largest.ClassicValues))
		fmt.Fprintf(&b, "  tombstones: %s a read (%s", Count(t.Tombstones.PerRead), t.Tombstones.Read)
		if t.Tombstones.Query != "" {
			fmt.Fprintf(&b, ", query %s", t.Tombstones.Query)
		}
		fmt.Fprintf(&b, "), %s in the largest partition; %s readable in the typical partition; on disk at least %s in the typical partition, %s in the largest",
			Count(t.Tombstones.LargestPerRead), Count(t.Tombstones.PerPartition), Count(t.Typical.TombstonesOnDisk), Count(t.Largest.TombstonesOnDisk))
		if t.Tombstones.PeakPerRead > t.Tombstones.PerRead+0.5 {
			fmt.Fprintf(&b, "; worst %s a read at %s", Count(t.Tombstones.PeakPerRead), Duration(t.Tombstones.PeakAgeSeconds))
		}
		b.WriteString("\n")
		for _, c := range t.Crossings {
			switch {
			case c.TypicalNever && c.LargestNever:
			case c.TypicalNever:
				fmt.Fprintf(&b, "  crosses %s: largest partition after %s (typical never)\n", c.Limit, Duration(c.LargestSeconds))
			default:
				fmt.Fprintf(&b, "  crosses %s: typical partition after %s, largest after %s\n", c.Limit, Duration(c.TypicalSeconds), Duration(c.LargestSeconds))
			}
		}
		if t.Live != nil {
			fmt.Fprintf(&b, "  cluster: %s; tombstones a read max %s, p99 %s over %d reads\n",
				liveSizes(t.Live), Count(t.Live.TombstonesPerReadMax), Count(t.Live.TombstonesPerReadP99), t.Live.TombstonesReads)
		}
		for _, rd := range t.Reads {
			fmt.Fprintf(&b, "  reads: query %s visits %s partitions a read (p50 / p99 / busiest key), passing %s rows; %s of them empty at p50",
				rd.Query, readKeys(rd.PartitionsPerRead), readKeys(rd.RowsPerRead), Count(rd.EmptyPartitionsPerRead.P50))
			if rd.PartitionReadsPerSecond > 0 {
				fmt.Fprintf(&b, "; %s partition reads a second", Count(rd.PartitionReadsPerSecond))
			}
			b.WriteString("\n")
		}
		for _, f := range t.Findings {
			writeTextFinding(&b, f, "  ")
		}
		for _, a := range t.Assumptions {
			if !shownAsFinding(t.Findings, a) {
				fmt.Fprintf(&b, "  assumed: %s\n", a)
			}
		}
	}
	if len(r.Statements) > 0 {
		b.WriteString("\nstatements\n")
		for _, f := range r.Statements {
			writeTextFinding(&b, f, "  ")
		}
	}
	if len(r.Batches) > 0 {
		b.WriteString("\nbatches\n")
		for _, bt := range r.Batches {
			b.WriteString("  ")
			if bt.Position != "" {
				b.WriteString(bt.Position + ": ")
			}
			fmt.Fprintf(&b, "%s: %s in %d mutations%s\n", strings.Join(bt.Tables, " + "), sizing.FormatBytes(float64(bt.Bytes)), bt.Mutations, checkedText(bt))
			for _, f := range bt.Findings {
				writeTextFinding(&b, f, "    ")
			}
		}
	}
	if r.Live != nil && len(r.Live.SchemaDiff) > 0 {
		fmt.Fprintf(&b, "\nthe cluster's schema differs from %s\n", r.Live.SchemaSource)
		for _, d := range r.Live.SchemaDiff {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nnote: %s\n", n)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeTextSize writes a table's size lines: its partitions and one replica's bytes, on
// disk when measured, and its copies when the replication is known.
func writeTextSize(b *bytes.Buffer, t Table) {
	rows := "rows"
	if t.Typical.Rows == 1 {
		rows = "row"
	}
	fmt.Fprintf(b, "  size: typical %s (%s %s), p99 %s, largest %s; classic formula %s; %s on one replica in %s partitions\n",
		sizing.FormatBytes(float64(t.Typical.Bytes)), Count(t.Typical.Rows), rows, sizing.FormatBytes(float64(t.P99.Bytes)), sizing.FormatBytes(float64(t.Largest.Bytes)),
		sizing.FormatBytes(float64(t.Largest.ClassicBytes)), sizing.FormatBytes(float64(t.TotalBytes)), Count(t.Partitions))
	if t.DiskBytes > 0 {
		fmt.Fprintf(b, "  on disk: %s compressed (the workload's compression_ratio, measured by cqlsize profile), %s uncompressed\n", sizing.FormatBytes(float64(t.DiskBytes)), sizing.FormatBytes(float64(t.TotalBytes)))
	}
	if t.Replicas != nil {
		fmt.Fprintf(b, "  replicas: %s\n", t.Replicas.Line())
	}
}

func checkedText(b Batch) string {
	if !b.Checked {
		return " (one partition: Cassandra does not check its size)"
	}
	return " (Cassandra warns over 5 KiB and rejects over 50 KiB)"
}

func writeTextFinding(b *bytes.Buffer, f Finding, indent string) {
	fmt.Fprintf(b, "%s%-4s %s ", indent, severityWord(f.Severity), f.Code)
	if f.Position != "" {
		fmt.Fprintf(b, "%s: ", f.Position)
	}
	fmt.Fprintf(b, "%s\n", f.Message)
	if f.Fix != "" {
		fmt.Fprintf(b, "%s     fix: %s\n", indent, f.Fix)
	}
}

// writeColumns aligns rows in columns two spaces apart: the first and the last column (names
// and words) to the left, the numbers between them to the right.
func writeColumns(b *bytes.Buffer, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if i == 0 || i == len(r)-1 || i == 2 {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// WriteJSON renders the report as the documented JSON contract (docs/estimate-json.md).
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteMarkdown renders the report for a pull-request comment: a summary line, the table,
// then the findings (failures and warnings first), with assumptions folded away.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### cqlsize estimate: %s\n\n", headline(r))
	var src []string
	src = append(src, "target `"+r.Target+"`")
	if r.Schema != "" {
		src = append(src, "schema `"+r.Schema+"`")
	}
	if r.Workload != "" {
		src = append(src, "workload `"+r.Workload+"`")
	}
	fmt.Fprintf(&b, "%s. Limits: %s.\n\n", strings.Join(src, ", "), limitsLine(r))
	b.WriteString("| Table | Partitions | Bucket | Rows p50 / max | Values max stored / classic | Bytes p50 | Bytes p99 | Bytes max | Classic max | Tombstones / read | Tombstones on disk p50 / max | Verdict |\n")
	b.WriteString("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, t := range r.Tables {
		bucket := t.Bucket
		if bucket == "" {
			bucket = "–"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			t.Name, Count(t.Partitions), bucket, rowsCell(t), valuesCell(t),
			sizing.FormatBytes(float64(t.Typical.Bytes)), sizing.FormatBytes(float64(t.P99.Bytes)), sizing.FormatBytes(float64(t.Largest.Bytes)), sizing.FormatBytes(float64(t.Largest.ClassicBytes)),
			tombstoneCell(t), Count(t.Typical.TombstonesOnDisk)+" / "+Count(t.Largest.TombstonesOnDisk), mdVerdict(t.Verdict))
	}
	var repl []string
	for _, t := range r.Tables {
		if t.Replicas != nil {
			repl = append(repl, fmt.Sprintf("| `%s` | %s | %s |\n", t.Name, sizing.FormatBytes(float64(t.TotalBytes)), mdEscape(t.Replicas.Line())))
		}
	}
	if len(repl) > 0 {
		b.WriteString("\n| Table | One replica | Replicas |\n|---|--:|---|\n")
		b.WriteString(strings.Join(repl, ""))
	}
	var reads []string
	for _, t := range r.Tables {
		for _, rd := range t.Reads {
			reads = append(reads, fmt.Sprintf("| `%s` | %s | %s | %s | %s |\n", t.Name, rd.Query, readKeys(rd.PartitionsPerRead), readKeys(rd.RowsPerRead), Count(rd.PartitionReadsPerSecond)))
		}
	}
	if len(reads) > 0 {
		b.WriteString("\n| Table | Query | Partitions a read p50 / p99 / max | Rows a read p50 / p99 / max | Partition reads/s |\n|---|---|--:|--:|--:|\n")
		b.WriteString(strings.Join(reads, ""))
	}
	var all []Finding
	for _, t := range r.Tables {
		all = append(all, t.Findings...)
	}
	all = append(all, r.Statements...)
	for _, bt := range r.Batches {
		all = append(all, bt.Findings...)
	}
	for _, sev := range []string{"fail", "warn", "info"} {
		var fs []Finding
		for _, f := range all {
			if f.Severity == sev {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			continue
		}
		title := map[string]string{"fail": "Failures", "warn": "Warnings", "info": "Notes"}[sev]
		if sev == "info" {
			fmt.Fprintf(&b, "\n<details><summary>%s (%d)</summary>\n\n", title, len(fs))
		} else {
			fmt.Fprintf(&b, "\n**%s**\n\n", title)
		}
		for _, f := range fs {
			where := "`" + f.Table + "`"
			if f.Table == "" {
				where = ""
			}
			if f.Position != "" {
				where = strings.TrimSpace(where + " at `" + f.Position + "`")
			}
			fmt.Fprintf(&b, "- `%s` %s: %s", f.Code, where, mdEscape(f.Message))
			if f.Fix != "" {
				fmt.Fprintf(&b, " *Fix:* %s", mdEscape(f.Fix))
			}
			b.WriteString("\n")
		}
		if sev == "info" {
			b.WriteString("\n</details>\n")
		}
	}
	if len(r.Batches) > 0 {
		b.WriteString("\n| Batch | Bytes | Mutations | Checked |\n|---|--:|--:|---|\n")
		for _, bt := range r.Batches {
			fmt.Fprintf(&b, "| %s | %s | %d | %v |\n", "`"+strings.Join(bt.Tables, "` + `")+"`", sizing.FormatBytes(float64(bt.Bytes)), bt.Mutations, bt.Checked)
		}
	}
	var assumed []string
	for _, t := range r.Tables {
		for _, a := range t.Assumptions {
			assumed = append(assumed, fmt.Sprintf("- `%s`: %s", t.Name, mdEscape(a)))
		}
	}
	if len(assumed) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>Assumptions (%d)</summary>\n\n%s\n\n</details>\n", len(assumed), strings.Join(assumed, "\n"))
	}
	_, err := w.Write(b.Bytes())
	return err
}

func mdVerdict(v string) string {
	switch v {
	case "fail":
		return "**FAIL**"
	case "warn":
		return "**warn**"
	}
	return v
}

// mdEscape keeps a message from opening Markdown constructs by accident.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "<", "&lt;", "*", `\*`)
	return r.Replace(s)
}

// valuesCell is the largest partition's stored values (what the limit counts) and the
// classic formula's beside it: "30k/150k".
func valuesCell(t Table) string {
	return Count(t.Largest.StoredValues) + "/" + Count(t.Largest.ClassicValues)
}

// maxPartitionText is the node's largest partition at the resolution it keeps:
// system_views.max_partition_size counts whole mebibytes, rounded up, so 1 MiB is anything up
// to 1 MiB and 3 MiB anything over 2 and up to 3. Zero is a table the node has recorded no
// partition of yet (nothing flushed or compacted).
func maxPartitionText(l *Live) string {
	mib := int64(math.Round(float64(l.MaxPartitionBytes) / (1 << 20)))
	switch {
	case mib <= 0:
		return "not recorded yet (nothing flushed)"
	case mib == 1:
		return "at most 1 MiB"
	}
	return fmt.Sprintf("%d to %d MiB", mib-1, mib)
}

// liveSizes is what the node says of the table's partitions: the largest at its resolution,
// and system.size_estimates' count and mean, or that the node has not computed them yet.
func liveSizes(l *Live) string {
	s := "max partition " + maxPartitionText(l)
	if l.SizeEstimatesRanges == 0 {
		return s + "; size estimates not computed yet (the node computes them every few minutes, over flushed data)"
	}
	return s + fmt.Sprintf(", mean %s, ~%s partitions (size_estimates)", sizing.FormatBytes(float64(l.MeanPartitionBytes)), Count(l.PartitionsEstimate))
}

// shownAsFinding reports whether an assumption is already printed as a finding (SZ090
// carries the same words): each assumption is printed once.
func shownAsFinding(fs []Finding, assumption string) bool {
	for _, f := range fs {
		if f.Message == assumption {
			return true
		}
	}
	return false
}

// readKeys is "3 / 1 / 1": a read-cost figure for the typical, the p99 and the busiest key.
func readKeys(k ReadKeys) string {
	return Count(k.P50) + " / " + Count(k.P99) + " / " + Count(k.Max)
}
