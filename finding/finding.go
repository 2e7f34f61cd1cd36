// Package finding is the one shape every cqlsize analysis reports in: the sizer (SZxxx), the
// tombstone analysis (TSxxx), the query checker (QFxxx) and the migration lints (DS, IF, BK,
// TT, AF, IX, MV, CS, WL, UD, NL). One type and one severity scale mean a service that
// embeds several analyses sorts, filters and gates on their findings the same way, and a code
// means the same thing wherever it appears. Doc is what the registry (package codes) says
// about a code: what it reports, why it matters, how to fix it.
package finding

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/severity"
)

// Level is the shared severity scale: ok < info < warn < fail.
type Level = severity.Level

// The levels, least to most severe.
const (
	OK   = severity.OK   // nothing to report
	Info = severity.Info // worth knowing, no action needed
	Warn = severity.Warn // costs more than it should, or will as the data grows
	Fail = severity.Fail // Cassandra rejects it or fails reads, or a limit is broken
)

// Finding is one verdict, recommendation or notice. Codes are stable: CI configurations and
// `-- cqlsize:nolint CODE` directives name them, so a code never changes meaning and a
// retired code is never reused.
type Finding struct {
	Code     string
	Severity Level
	Table    string  // keyspace.table the finding is about, when it is about one
	Pos      cql.Pos // the statement, clause or workload entry at fault, when known
	Message  string  // what happens, with the numbers
	Fix      string  // what to do about it, when the message does not say
}

// String renders "file:line:col: CODE severity table: message", leaving out what is unknown,
// and the fix after it.
func (f Finding) String() string {
	var b strings.Builder
	if f.Pos.IsValid() {
		b.WriteString(f.Pos.String() + ": ")
	}
	fmt.Fprintf(&b, "%s %s", f.Code, f.Severity)
	if f.Table != "" {
		b.WriteString(" " + f.Table)
	}
	b.WriteString(": " + f.Message)
	if f.Fix != "" {
		b.WriteString(" Fix: " + f.Fix)
	}
	return b.String()
}

// jsonFinding is the JSON shape of a Finding: lower-case names, the position as file:line:col.
type jsonFinding struct {
	Code     string `json:"code"`
	Severity Level  `json:"severity"`
	Table    string `json:"table,omitempty"`
	Message  string `json:"message"`
	Pos      string `json:"pos,omitempty"`
	Fix      string `json:"fix,omitempty"`
}

// MarshalJSON renders the finding with lower-case field names and pos as file:line:col
// (left out when unknown, as table and fix are when empty).
func (f Finding) MarshalJSON() ([]byte, error) {
	j := jsonFinding{Code: f.Code, Severity: f.Severity, Table: f.Table, Message: f.Message, Fix: f.Fix}
	if f.Pos.IsValid() {
		j.Pos = f.Pos.String()
	}
	return json.Marshal(j)
}

// Worst is the most severe level among the findings: OK when there are none. It is the
// verdict of whatever the findings are about.
func Worst(fs []Finding) Level {
	w := OK
	for _, f := range fs {
		if f.Severity > w {
			w = f.Severity
		}
	}
	return w
}

// AtLeast returns the findings at or over min, in their order: what a run with
// --fail-on min fails on.
func AtLeast(fs []Finding, min Level) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Severity >= min {
			out = append(out, f)
		}
	}
	return out
}
