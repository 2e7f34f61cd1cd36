package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/profile"
	"github.com/cqlsize/cqlsize/sizing"
)

// ProfileWriterFor returns the renderer of a `cqlsize profile` result for a format: text,
// json, markdown or html. (The workload format is Result.WriteWorkload, through workload.Write.)
func ProfileWriterFor(format string) (func(io.Writer, *profile.Result) error, error) {
	switch format {
	case "text":
		return WriteProfileText, nil
	case "json":
		return WriteProfileJSON, nil
	case "markdown", "md":
		return WriteProfileMarkdown, nil
	case "html":
		return WriteProfileHTML, nil
	}
	return nil, fmt.Errorf("unknown format %q (want workload, text, json, markdown or html)", format)
}

// ProfileVersion is the version of the profile JSON contract (docs/profile-json.md). Like
// Version it changes only when a field is removed or changes meaning.
const ProfileVersion = 1

// WriteProfileJSON writes the result as one JSON document, the contract docs/profile-json.md
// describes (the profile package's field names; durations in seconds, times in RFC 3339 UTC,
// numbers rounded as estimate's Num rounds them).
func WriteProfileJSON(w io.Writer, r *profile.Result) error {
	utc := *r
	utc.Started = r.Started.UTC() // every other time of the document is UTC already
	b, err := json.MarshalIndent(struct {
		Version int    `json:"version"`
		Kind    string `json:"kind"`
		*profile.Result
	}{ProfileVersion, "profile", &utc}, "", "  ")
	if err != nil {
		return fmt.Errorf("render profile as JSON: %w", err)
	}
	_, err = w.Write(append(roundJSONNumbers(b), '\n'))
	return err
}

// roundJSONNumbers rewrites every number of a JSON document outside its strings as Num writes
// it (six significant digits, whole numbers from a million up), so a profile does not print
// 143.99999999999997 or change with the last bits of a float. The profile's types stay plain
// float64 for the library's users; only the rendering rounds.
func roundJSONNumbers(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inString, escaped := false, false
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(b) && strings.IndexByte("+-0123456789.eE", b[j]) >= 0 {
				j++
			}
			if v, err := strconv.ParseFloat(string(b[i:j]), 64); err == nil {
				out = append(out, formatNum(v)...)
			} else {
				out = append(out, b[i:j]...)
			}
			i = j
			continue
		}
		out = append(out, c)
		i++
	}
	return out
}

func profileHeadline(r *profile.Result) string {
	s := fmt.Sprintf("cqlsize profile: keyspace %s, %d table(s), %s rows read in %s at %s (%s rows/s",
		r.Keyspace, len(r.Tables), Count(Num(r.Rows)), Duration(Num(r.Elapsed)), r.Consistency, Count(Num(math.Round(r.RateAchieved))))
	if r.RateSet > 0 {
		s += fmt.Sprintf(", --rate %s", Count(Num(r.RateSet)))
	}
	s += ")"
	if r.LocalDC != "" {
		s += ". " + profile.LocalDCNote(r.LocalDC, r.Consistency)
	}
	return s
}

func skewText(s profile.SkewFit) string {
	if s.Kind == "zipf" {
		return fmt.Sprintf("zipf %.3g (R² %.3f over %d partitions)", s.S, s.R2, s.Points)
	}
	return "uniform (" + s.Note + ")"
}

func crossingText(c profile.GrowthCrossing) string {
	switch {
	case c.Already:
		return "already over"
	case c.Unknown:
		return "no date: the write rate is not known"
	case c.Never:
		return "never at the measured rate"
	}
	return fmt.Sprintf("%s (in %s)", c.At.Format("2006-01-02"), Duration(Num(c.Seconds)))
}

func diskText(d profile.Disk) string {
	if !d.Predicted {
		return "not predicted" + strings.TrimPrefix(d.Note, "not predicted")
	}
	chunks := "" // an uncompressed table has no chunks
	if d.ChunkKB > 0 {
		chunks = fmt.Sprintf(", %d KiB chunks", d.ChunkKB)
	}
	return fmt.Sprintf("%s on disk (Data.db %s compressed from %s: %s%s, ratio %.2f); a partition %s compressed, %s uncompressed",
		sizing.FormatBytes(d.Total), sizing.FormatBytes(d.DataBytes), sizing.FormatBytes(d.Uncompressed), d.Compressor, chunks, d.Ratio,
		sizing.FormatBytes(d.PerPartition), sizing.FormatBytes(d.UncompressedPerPartition))
}

// WriteProfileText writes the result for a terminal.
func WriteProfileText(w io.Writer, r *profile.Result) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, profileHeadline(r))
	if r.Partial {
		fmt.Fprintln(&b, "PARTIAL: not everything could be read:")
	} else if len(r.Problems) > 0 {
		fmt.Fprintln(&b, "notes:")
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "  %s\n", p)
	}
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "\n%s.%s\n", t.Keyspace, t.Name)
		writeColumns(&b, indentRows(profileFigures(t)))
		fmt.Fprintln(&b, "  columns:")
		var cols [][]string
		for _, c := range t.Columns {
			cols = append(cols, append([]string{"    " + c.Name}, columnCells(c)[1:]...))
		}
		writeColumns(&b, cols)
		fmt.Fprintf(&b, "  growth (Data.db bytes and stored values, as estimate sizes them): %s\n", t.Growth.Note)
		for _, p := range t.Growth.Partitions {
			fmt.Fprintf(&b, "    %-8s %s rows, %s: %s\n", p.Which, Count(Num(p.Rows)), sizing.FormatBytes(p.Bytes), growthLine(p))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// profileFigures are a table's figures, one row each, as the text and HTML pages show them.
func profileFigures(t *profile.Table) [][]string {
	rows := [][]string{
		{"partitions", fmt.Sprintf("%s (%s)", Count(Num(math.Round(t.Partitions))), t.PartitionsSource)},
		{"read", fmt.Sprintf("%s partitions, %s rows, %.3g%% of the ring, in %s", Count(Num(t.PartitionsSeen)), Count(Num(t.RowsSeen)), 100*t.RingFraction, Duration(Num(t.Elapsed)))},
		{"rows a partition", fmt.Sprintf("p50 %s, p99 %s, max %s, mean %.4g", Count(Num(t.RowsPerPartition.P50)), Count(Num(t.RowsPerPartition.P99)), Count(Num(t.RowsPerPartition.Max)), t.RowsPerPartition.Mean)},
		{"value bytes a partition", fmt.Sprintf("p50 %s, p99 %s, max %s", sizing.FormatBytes(t.PartitionBytes.P50), sizing.FormatBytes(t.PartitionBytes.P99), sizing.FormatBytes(t.PartitionBytes.Max))},
	}
	if k := t.Keys; k != nil {
		rows = append(rows, []string{"keys", fmt.Sprintf("%s seen, %s in all (the key without %s), over %s buckets: %.4g rows a key a bucket (empty buckets included), %.4g partitions a bucket; the busiest key writes %.4g rows a bucket (%s)",
			Count(Num(k.Seen)), Count(Num(k.Keys)), k.Column, Count(Num(k.Buckets)), k.RowsPerKeyBucket, k.PerBucket, k.Head, k.HeadSource)})
	}
	rows = append(rows,
		[]string{"skew", skewText(t.Skew)},
		[]string{"write rate", writeRateText(t)},
		[]string{"TTL", ttlText(t)},
		[]string{"tombstones seen", tombstonesText(t.Tombstones)},
		[]string{"disk", diskText(t.Disk)},
	)
	if t.Partial {
		rows = append(rows, []string{"PARTIAL", t.Problem})
	}
	return rows
}

// tombstonesText is what reading the sample met: the warnings the node attached and the
// tombstone cells the traced reads scanned.
func tombstonesText(ts profile.Tombstones) string {
	s := fmt.Sprintf("%d warning response(s), most in one %d", ts.WarnResponses, ts.Max)
	switch {
	case ts.TracedReads > 0:
		s += fmt.Sprintf("; %d traced read(s) scanned %s tombstone cells, most in one %s", ts.TracedReads, Count(Num(ts.TracedTombstones)), Count(Num(ts.TracedMax)))
	case ts.TraceProblem != "":
		s += "; not traced: " + ts.TraceProblem
	}
	return s
}

// columnCells are a column's name, type, kind, sizes and nulls, as the pages show them.
func columnCells(c *profile.Column) []string {
	return []string{c.Name, c.Type, strings.ReplaceAll(c.Kind, "_", " "), columnSize(c), fmt.Sprintf("null %.3g", c.NullFraction)}
}

func indentRows(rows [][]string) [][]string {
	for i := range rows {
		rows[i][0] = "  " + rows[i][0]
	}
	return rows
}

func writeRateText(t *profile.Table) string {
	if t.WriteRate <= 0 {
		return t.WriteRateSource
	}
	return fmt.Sprintf("%.4g rows/day a partition (%s)", t.WriteRate*86400, t.WriteRateSource)
}

func ttlText(t *profile.Table) string {
	if t.TTL.N == 0 {
		return "none seen"
	}
	return fmt.Sprintf("median %s on %.0f%% of cells", Duration(Num(t.TTL.P50)), 100*t.TTLFraction)
}

func columnSize(c *profile.Column) string {
	s := fmt.Sprintf("%.4g B avg (sd %.3g, max %s)", c.Size.Mean, c.Size.Std, Count(Num(c.Size.Max)))
	if c.Items != nil {
		s += fmt.Sprintf(", %.3g items of %.3g B", c.Items.Mean, c.ItemSize.Mean)
	}
	if len(c.Fields) > 0 {
		var fs []string
		for n, d := range c.Fields {
			fs = append(fs, fmt.Sprintf("%s %.3g B", n, d.Mean))
		}
		sort.Strings(fs)
		s += ", fields " + strings.Join(fs, ", ")
	}
	return s
}

func growthLine(p profile.GrowthPartition) string {
	if p.AtBucketEnd != nil {
		return fmt.Sprintf("at the end of its bucket %s rows, %s, %s values", Count(Num(p.AtBucketEnd.Rows)), sizing.FormatBytes(p.AtBucketEnd.Bytes), Count(Num(p.AtBucketEnd.Values)))
	}
	var parts []string
	for _, c := range p.Crossings {
		parts = append(parts, c.Limit+" "+crossingText(c))
	}
	return strings.Join(parts, "; ")
}

// WriteProfileMarkdown writes the result for a pull request or an issue.
func WriteProfileMarkdown(w io.Writer, r *profile.Result) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### %s\n\n", mdEscape(profileHeadline(r)))
	if r.Partial {
		b.WriteString("**Partial profile.** Not covered:\n\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "- %s\n", mdEscape(p))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "| table | partitions | rows p50 / p99 / max | skew | write rate | typical → %s | largest → %s | disk |\n|---|---|---|---|---|---|---|---|\n", profile.LimitBytesName, profile.LimitBytesName)
	for _, t := range r.Tables {
		typ, lg := growthCell(t, "typical"), growthCell(t, "largest")
		fmt.Fprintf(&b, "| %s | %s (%s) | %s / %s / %s | %s | %s | %s | %s | %s |\n", mdEscape(t.Keyspace+"."+t.Name),
			Count(Num(math.Round(t.Partitions))), mdEscape(t.PartitionsSource), Count(Num(t.RowsPerPartition.P50)),
			Count(Num(t.RowsPerPartition.P99)), Count(Num(t.RowsPerPartition.Max)), mdEscape(skewText(t.Skew)),
			mdEscape(writeRateText(t)), mdEscape(typ), mdEscape(lg), mdEscape(diskText(t.Disk)))
	}
	_, err := w.Write(b.Bytes())
	return err
}

func growthCell(t *profile.Table, which string) string {
	for _, p := range t.Growth.Partitions {
		if p.Which != which {
			continue
		}
		if p.AtBucketEnd != nil {
			return "bucket ends at " + sizing.FormatBytes(p.AtBucketEnd.Bytes)
		}
		for _, c := range p.Crossings {
			if c.Limit == profile.LimitBytesName {
				return crossingText(c)
			}
		}
	}
	return ""
}

// WriteProfileHTML writes one self-contained page with what the text output shows: the notes,
// per table its figures, its columns, its growth and a page-wide chart of the typical, p99
// and largest partitions growing at the measured rate against 100 MB.
func WriteProfileHTML(w io.Writer, r *profile.Result) error {
	var b bytes.Buffer
	esc := html.EscapeString
	fmt.Fprintf(&b, "<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>%s</title><style>%s</style></head><body>",
		esc("cqlsize profile "+r.Keyspace), profileCSS)
	fmt.Fprintf(&b, "<h1>%s</h1>", esc(profileHeadline(r)))
	if len(r.Problems) > 0 {
		if r.Partial {
			b.WriteString("<p class=\"partial\"><b>Partial profile.</b> Not covered:</p><ul class=\"notes\">")
		} else {
			b.WriteString("<p><b>Notes</b></p><ul class=\"notes\">")
		}
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "<li>%s</li>", esc(p))
		}
		b.WriteString("</ul>")
	}
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "<section><h2>%s</h2><table class=\"kv\">", esc(t.Keyspace+"."+t.Name))
		for _, kv := range profileFigures(t) {
			fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>", esc(kv[0]), esc(kv[1]))
		}
		b.WriteString("</table><h3>Columns</h3><table class=\"cols\"><tr><th>column</th><th>type</th><th>kind</th><th>sizes</th><th>nulls</th></tr>")
		for _, c := range t.Columns {
			b.WriteString("<tr>")
			for _, cell := range columnCells(c) {
				fmt.Fprintf(&b, "<td>%s</td>", esc(cell))
			}
			b.WriteString("</tr>")
		}
		fmt.Fprintf(&b, "</table><h3>Growth</h3><p class=\"note\">%s</p><table class=\"kv\">", esc("Data.db bytes and stored values, as estimate sizes them: "+t.Growth.Note))
		for _, p := range t.Growth.Partitions {
			fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>", esc(p.Which), esc(Count(Num(p.Rows))+" rows, "+sizing.FormatBytes(p.Bytes)+": "+growthLine(p)))
		}
		b.WriteString("</table>")
		fmt.Fprintf(&b, "<div class=\"chart\">%s</div>", profileChart(t))
		b.WriteString("</section>")
	}
	b.WriteString("</body></html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

const profileCSS = `body{font:14px system-ui,sans-serif;margin:2em;color:#111;max-width:1200px}h2{margin:1.5em 0 .3em}h3{font-size:15px;margin:1em 0 .3em}` +
	`table{border-collapse:collapse;margin:.5em 0;width:100%}th,td{text-align:left;padding:3px 10px;border-bottom:1px solid #e5e7eb;vertical-align:top}` +
	`th{font-weight:600;white-space:nowrap}.kv th{width:12em}.partial{color:#b91c1c}.note{color:#374151}.notes li{margin:.2em 0}` +
	`.chart svg{width:100%;height:auto;display:block}svg text{font-family:inherit;fill:#374151}svg .ct{font-size:13px;font-weight:600;fill:#111827}` +
	`.yl{text-anchor:end;font-size:11px}.xl{text-anchor:middle;font-size:11px}.xt{text-anchor:middle;font-size:11px;fill:#6b7280}` +
	`.ll{text-anchor:end;font-size:11px;fill:#dc2626;font-weight:600}.lg{font-size:11px}`

// profileChartW is the profile chart's width in user units: the page draws it full width, so
// its text stays the size of the page's.
const profileChartW = 1100

// profileChart draws the three partitions' Data.db bytes (estimate's model) from now to the horizon: the end of
// the bucket, or the latest crossing of 100 MB (at least a day, at most ten years).
func profileChart(t *profile.Table) string {
	horizon := 0.0
	for _, p := range t.Growth.Partitions {
		for _, c := range p.Crossings {
			if c.Limit == profile.LimitBytesName && !c.Never && !c.Already {
				horizon = math.Max(horizon, c.Seconds*1.1)
			}
		}
		if p.AtBucketEnd != nil && p.RowsPerSecond > 0 {
			horizon = math.Max(horizon, (p.AtBucketEnd.Rows-p.Rows)/p.RowsPerSecond)
		}
	}
	horizon = math.Min(math.Max(horizon, 86400), 10*365.25*86400)
	colors := map[string]string{"typical": colorTypical, "p99": "#7c3aed", "largest": colorLargest}
	var ss []series
	for _, p := range t.Growth.Partitions {
		s := series{name: p.Which, color: colors[p.Which]}
		for i := 0; i <= 20; i++ {
			x := horizon * float64(i) / 20
			s.xs = append(s.xs, x)
			s.ys = append(s.ys, math.Max(1, p.Bytes+p.RowsPerSecond*x*t.Growth.BytesPerRow))
		}
		ss = append(ss, s)
	}
	return lineChartW(profileChartW, "Data.db bytes a partition from now, at the measured write rate", ss, horizon, profile.LimitBytes, profile.LimitBytesName,
		func(v float64) string { return sizing.FormatBytes(v) })
}
