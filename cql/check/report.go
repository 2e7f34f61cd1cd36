package check

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Summary counts the queries by their most serious finding.
type Summary struct {
	Queries int `json:"queries"`
	Fail    int `json:"fail"`
	Warn    int `json:"warn"`
	Info    int `json:"info"`
	Clean   int `json:"clean"` // no finding at all
}

// Summarize counts results by their most serious finding.
func Summarize(results []Result) Summary {
	s := Summary{Queries: len(results)}
	for i := range results {
		w, has := results[i].Worst()
		switch {
		case !has:
			s.Clean++
		case w == Fail:
			s.Fail++
		case w == Warn:
			s.Warn++
		default:
			s.Info++
		}
	}
	return s
}

// AtLeast reports whether some finding of results is at or above severity min.
func AtLeast(results []Result, min Severity) bool {
	for i := range results {
		if w, has := results[i].Worst(); has && w >= min {
			return true
		}
	}
	return false
}

// ReportVersion is the version of the JSON report's layout. Fields are only ever added;
// a change that removes or renames one bumps it.
const ReportVersion = 2 // 2: access "index" for a scan a secondary index serves (it was "scan")

// jsonResult is one query of the JSON report. These field names are a stable interface.
type jsonResult struct {
	Name           string    `json:"name"`
	Pos            string    `json:"pos"`
	Table          *string   `json:"table"`
	Access         *Access   `json:"access"`
	Partitions     *int      `json:"partitions"`
	Verdict        Verdict   `json:"verdict"`
	NeedsFiltering bool      `json:"needs_filtering"`
	Filters        bool      `json:"filters"`
	Index          *string   `json:"index"`
	Rate           *float64  `json:"rate_per_second"`
	P99            *float64  `json:"p99_ms"`
	Findings       []Finding `json:"findings"`
	ExistingTable  *string   `json:"existing_table"`
	SuggestedTable *string   `json:"suggested_table"`
	SuggestedQuery *string   `json:"suggested_query"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// WriteJSON writes the results as one JSON object:
//
//	{"version": 1, "queries": [...], "summary": {...}}
//
// Each query has: name; pos (file:line:col); table (keyspace.table, null when no table of
// the schema matches); access (single-partition, fan-out or scan; null when the table is
// unknown); partitions (1 or N, null when unknown or a scan); verdict (ok,
// needs_filtering, invalid); needs_filtering; filters (runs only thanks to ALLOW
// FILTERING); index (the secondary indexes used, comma-separated, or null);
// rate_per_second and p99_ms (from the query's header, or null); findings, each with
// code, severity (info, warn, fail), message and pos; existing_table (another table or
// view of the schema that serves the query from one partition, or null);
// suggested_table (a CREATE TABLE for a table that would, or null); suggested_query (the
// query rewritten for the existing or suggested table, or null).
func WriteJSON(w io.Writer, results []Result) error {
	out := struct {
		Version int          `json:"version"`
		Queries []jsonResult `json:"queries"`
		Summary Summary      `json:"summary"`
	}{Version: ReportVersion, Queries: []jsonResult{}, Summary: Summarize(results)}
	for i := range results {
		r := &results[i]
		j := jsonResult{
			Name: r.Query.Name, Pos: r.Query.Pos.String(), Table: strOrNil(r.Table),
			Verdict: r.Verdict, NeedsFiltering: r.NeedsFiltering, Filters: r.Filters,
			Index: strOrNil(r.Index), Findings: r.Findings, ExistingTable: strOrNil(r.ExistingTable),
			SuggestedTable: strOrNil(r.SuggestedTable), SuggestedQuery: strOrNil(r.SuggestedQuery),
		}
		if j.Findings == nil {
			j.Findings = []Finding{}
		}
		if r.Access != "" {
			a := r.Access
			if a == Scan && r.Index != "" && r.Verdict != Invalid {
				a = IndexScan // the text says "scan served by index": JSON says it too
			}
			j.Access = &a
		}
		if r.Partitions > 0 {
			n := r.Partitions
			j.Partitions = &n
		}
		if r.Query.Rate > 0 {
			rate := r.Query.Rate
			j.Rate = &rate
		}
		if r.Query.P99 > 0 {
			ms := float64(r.Query.P99) / float64(time.Millisecond)
			j.P99 = &ms
		}
		out.Queries = append(out.Queries, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// describeAccess renders the access path with its partition count.
func describeAccess(r *Result) string {
	switch r.Access {
	case SinglePartition:
		return "single partition"
	case FanOut:
		if r.Partitions > 0 {
			return "fan-out over " + strconv.Itoa(r.Partitions) + " partitions"
		}
		return "fan-out over an unknown number of partitions (IN ?)"
	case Scan:
		// An index turns the scan into a read of its hits on every node: say which, and
		// whether ALLOW FILTERING filters them (or would, for a query rejected without it).
		switch {
		case r.Index == "" || r.Verdict == Invalid:
			return "scan"
		case r.NeedsFiltering:
			return "scan; with ALLOW FILTERING, served by index " + r.Index + ", filtering its hits"
		case r.Filters:
			return "scan served by index " + r.Index + ", filtering its hits"
		}
		return "scan served by index " + r.Index
	}
	return "-"
}

func describeVerdict(r *Result) string {
	switch r.Verdict {
	case NeedsFiltering:
		return "rejected: needs ALLOW FILTERING"
	case Invalid:
		return "rejected: invalid"
	}
	if r.Filters {
		return "accepted, filtering (ALLOW FILTERING)"
	}
	return "accepted"
}

func describeRate(q *Query) string {
	var parts []string
	if q.Rate > 0 {
		parts = append(parts, "rate "+strconv.FormatFloat(q.Rate, 'g', 4, 64)+"/s")
	}
	if q.P99 > 0 {
		parts = append(parts, "p99 "+q.P99.String())
	}
	return strings.Join(parts, ", ")
}

// WriteText writes one aligned block per query, then a summary line.
func WriteText(w io.Writer, results []Result) error {
	ew := &errWriter{w: w}
	for i := range results {
		r := &results[i]
		if i > 0 {
			ew.printf("\n")
		}
		ew.printf("%s  %s\n", r.Query.Name, r.Query.Pos)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		row := func(k, v string) {
			if v != "" {
				fmt.Fprintf(tw, "  %s\t%s\n", k, v)
			}
		}
		row("table", orDefault(r.Table, "-"))
		row("access", describeAccess(r))
		row("verdict", describeVerdict(r))
		row("load", describeRate(&r.Query))
		_ = tw.Flush()
		if len(r.Findings) > 0 {
			tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
			for _, f := range r.Findings {
				at := ""
				if f.Pos != r.Query.Pos {
					at = " (at " + f.Pos.String() + ")"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", f.Severity, f.Code, f.Message, at)
			}
			_ = tw.Flush()
		}
		if r.ExistingTable != "" {
			ew.printf("  %s already serves it from one partition:\n", r.ExistingTable)
			ew.printf("%s;\n", indent(r.SuggestedQuery, "    "))
		}
		if r.SuggestedTable != "" {
			ew.printf("  a table that serves it from one partition:\n")
			ew.printf("%s;\n", indent(r.SuggestedTable, "    "))
			ew.printf("%s;\n", indent(r.SuggestedQuery, "    "))
		}
	}
	s := Summarize(results)
	if len(results) > 0 {
		ew.printf("\n")
	}
	ew.printf("%d queries: %d fail, %d warn, %d info, %d clean\n", s.Queries, s.Fail, s.Warn, s.Info, s.Clean)
	return ew.err
}

// WriteMarkdown writes a summary table, then a section per query with findings.
func WriteMarkdown(w io.Writer, results []Result) error {
	ew := &errWriter{w: w}
	s := Summarize(results)
	ew.printf("# cqlsize check\n\n%d queries: %d fail, %d warn, %d info, %d clean.\n\n", s.Queries, s.Fail, s.Warn, s.Info, s.Clean)
	ew.printf("| query | table | access | verdict | worst |\n|---|---|---|---|---|\n")
	for i := range results {
		r := &results[i]
		worst := "-"
		if sev, has := r.Worst(); has {
			worst = sev.String()
		}
		ew.printf("| `%s` | %s | %s | %s | %s |\n", r.Query.Name, mdCell(orDefault(r.Table, "-")),
			mdCell(describeAccess(r)), mdCell(describeVerdict(r)), worst)
	}
	for i := range results {
		r := &results[i]
		if len(r.Findings) == 0 && r.SuggestedQuery == "" {
			continue
		}
		ew.printf("\n## `%s`\n\n`%s`", r.Query.Name, r.Query.Pos)
		if load := describeRate(&r.Query); load != "" {
			ew.printf(" (%s)", load)
		}
		ew.printf("\n\n```cql\n%s;\n```\n\n", r.Query.Text)
		for _, f := range r.Findings {
			ew.printf("- **%s** %s `%s`: %s\n", f.Severity, f.Code, f.Pos, f.Message)
		}
		if r.ExistingTable != "" {
			ew.printf("\n`%s` already serves it from one partition:\n\n```cql\n%s;\n```\n", r.ExistingTable, r.SuggestedQuery)
		}
		if r.SuggestedTable != "" {
			ew.printf("\nA table that serves it from one partition:\n\n```cql\n%s;\n\n%s;\n```\n", r.SuggestedTable, r.SuggestedQuery)
		}
	}
	return ew.err
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// errWriter remembers the first write error, so report code can print freely.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}
