package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/cqlsize/cqlsize/sizing"
)

// Count renders a count with k, M, B suffixes and three significant digits.
func Count(v Num) string {
	f := float64(v)
	switch a := math.Abs(f); {
	case a >= 1e9:
		return trim3(f/1e9) + "B"
	case a >= 1e6:
		return trim3(f/1e6) + "M"
	case a >= 1e4:
		return trim3(f/1e3) + "k"
	case a >= 10 || a == math.Trunc(a):
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.1f", f)
}

// trim3 renders v with three significant digits and no trailing zeros.
func trim3(v float64) string {
	s := fmt.Sprintf("%.3g", v)
	if strings.Contains(s, "e") {
		return fmt.Sprintf("%.0f", v)
	}
	return s
}

// Duration renders seconds as people say them: 45s, 90m, 36h, 30d, 1.5y.
func Duration(secs Num) string {
	s := float64(secs)
	const day = 86400.0
	year := 365.2425 * day
	switch {
	case s <= 0:
		return "0"
	case s >= year:
		return trim3(s/year) + "y"
	case s >= 2*day:
		return trim3(s/day) + "d"
	case s >= 2*3600:
		return trim3(s/3600) + "h"
	case s >= 120:
		return trim3(s/60) + "m"
	}
	return trim3(s) + "s"
}

// severityWord is how text and Markdown name a severity.
func severityWord(sev string) string { return strings.ToUpper(sev) }

// tombstoneCell renders a table's tombstones per read for a table cell: the typical read,
// then the largest partition's when it differs.
func tombstoneCell(t Table) string {
	s := Count(t.Tombstones.PerRead)
	if math.Abs(float64(t.Tombstones.LargestPerRead-t.Tombstones.PerRead)) >= 0.5 {
		s += " (max " + Count(t.Tombstones.LargestPerRead) + ")"
	}
	return s
}

func rowsCell(t Table) string {
	if math.Abs(float64(t.Largest.Rows-t.Typical.Rows)) < 0.5 {
		return Count(t.Typical.Rows)
	}
	return Count(t.Typical.Rows) + " / " + Count(t.Largest.Rows)
}

// headline summarises the report in one line: "2 tables: 1 fail, 3 warn, 2 info".
func headline(r *Report) string {
	var parts []string
	for _, p := range []struct {
		n    int
		name string
	}{{r.Summary.Fail, "fail"}, {r.Summary.Warn, "warn"}, {r.Summary.Info, "info"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.name))
		}
	}
	tables := fmt.Sprintf("%d tables", r.Summary.Tables)
	if r.Summary.Tables == 1 {
		tables = "1 table"
	}
	if len(parts) == 0 {
		return tables + ": no findings"
	}
	return tables + ": " + strings.Join(parts, ", ")
}

// limitsLine states the limits the verdicts used: the target's partition limits as sizing
// names them everywhere, and the read's tombstone thresholds.
func limitsLine(r *Report) string {
	target, err := sizing.ParseTarget(r.Target)
	if err != nil {
		target = sizing.Cassandra50
	}
	s := "a partition under " + sizing.LimitsText(target, "and")
	s += fmt.Sprintf("; a read under %d tombstones", r.Limits.TombstoneWarn)
	if r.Limits.TombstoneFail > 0 {
		s += fmt.Sprintf(" (fails over %d)", r.Limits.TombstoneFail)
	}
	return s
}
