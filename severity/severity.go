// Package severity is the one scale every cqlsize analysis grades its findings on. The sizer,
// the tombstone analysis, the query checker and the migration lints share it (a lint error
// is a fail, a warning a warn), so "warn" means the same in every report, --fail-on reads
// the same in every command, and findings from different analyses compare directly. The
// findings themselves share one type, finding.Finding.
package severity

import (
	"fmt"
	"strings"
)

// Level is how bad a finding is. Levels are ordered: a run fails on the findings at or
// over the level its user chose.
type Level int

// The levels, least to most severe. OK is the zero value: no finding, the verdict of a
// table or query with nothing to report.
const (
	OK   Level = iota // nothing to report
	Info              // worth knowing, no action needed
	Warn              // costs more than it should, or will as the data grows; Cassandra may warn
	Fail              // Cassandra rejects it or fails reads, or a limit is broken
)

// String renders the level as ok, info, warn or fail.
func (l Level) String() string {
	switch l {
	case OK:
		return "ok"
	case Info:
		return "info"
	case Warn:
		return "warn"
	case Fail:
		return "fail"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// MarshalText renders the level as String does, so JSON reports carry words, not numbers.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads what MarshalText writes (and what Parse accepts).
func (l *Level) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Parse reads ok, info, warn or fail, case-insensitively; warning and error are accepted
// as warn and fail.
func Parse(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ok":
		return OK, nil
	case "info":
		return Info, nil
	case "warn", "warning":
		return Warn, nil
	case "fail", "error":
		return Fail, nil
	}
	return OK, fmt.Errorf("severity %q: want info, warn or fail", s)
}
