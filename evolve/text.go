package evolve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cqlsize/cqlsize/sizing"
)

// WriteText renders the plan for a person: the derived columns with their reasons, the new
// table's partitions, then the numbered steps, commands on lines of their own.
func (p *Plan) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "Evolve %s into %s (%s)\n", p.From, p.To, p.ToPos)
	if p.KeepFrom {
		fmt.Fprintf(b, "%s stays: %s adds an access pattern, it replaces nothing.\n", p.From, p.To)
	}
	if len(p.Derive) > 0 {
		fmt.Fprintf(b, "\nKey columns of %s filled from another column of %s:\n", p.To, p.From)
		width := 0
		for _, d := range p.Derive {
			width = max(width, len(d.Rule()))
		}
		for _, d := range p.Derive {
			why := "given"
			if !d.Given {
				why = "inferred: " + d.Why
			}
			fmt.Fprintf(b, "  %-*s  %s\n", width, d.Rule(), why)
		}
	}
	if s := p.Sizes; s != nil {
		fmt.Fprintf(b, "\nPartitions of %s under %s (estimate's byte model): %s partitions, verdict %s\n",
			p.To, s.Workload, sizing.FormatCount(s.Partitions), s.Verdict)
		for _, row := range []struct {
			name string
			part Partition
		}{{"typical", s.Typical}, {"p99", s.P99}, {"largest", s.Largest}} {
			fmt.Fprintf(b, "  %-8s %s rows, %s values, %s\n", row.name, sizing.FormatCount(row.part.Rows),
				sizing.FormatCount(row.part.Values), sizing.FormatBytes(row.part.Bytes))
		}
		for _, f := range s.Findings {
			fmt.Fprintf(b, "  %s %s %s\n", strings.ToUpper(f.Severity), f.Code, f.Message)
		}
	}
	fmt.Fprintf(b, "\nSteps:\n")
	for _, st := range p.Steps {
		fmt.Fprintf(b, "%2d. %s: %s.\n", st.N, st.Title, st.Do)
		if st.Command != "" {
			fmt.Fprintf(b, "      %s\n", st.Command)
		}
		switch {
		case st.N == 1 || st.CQL == "": // the new table's file is shown by name
		case st.File != "":
			fmt.Fprintf(b, "      %s: %s\n", st.File, st.CQL)
		default:
			fmt.Fprintf(b, "      %s\n", st.CQL)
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(b, "\nNote: %s.\n", n)
	}
	if p.Backfill.Seconds > 0 {
		fmt.Fprintf(b, "\nRows of %s: %s.\n", p.From, p.Backfill.RowsFrom)
		if p.Backfill.FanoutFrom != "" {
			fmt.Fprintf(b, "Rows of %s per row of %s: %s.\n", p.To, p.From, p.Backfill.FanoutFrom)
		}
		fmt.Fprintf(b, "Copy rate: %s.\n", p.Backfill.RateFrom)
	}
	return b.Flush()
}

// WriteJSON renders the plan as indented JSON (CQL types unescaped: frozen<set<text>>).
func (p *Plan) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(p)
}
