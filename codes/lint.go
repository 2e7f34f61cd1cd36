package codes

import (
	"github.com/cqlsize/cqlsize/cql/lint"
	"github.com/cqlsize/cqlsize/finding"
)

// lintDocs are the analyzers' own What, Why and Fix (written once, in cql/lint), and NL001,
// which the nolint directives' reader reports.
func lintDocs() []finding.Doc {
	var out []finding.Doc
	for _, a := range lint.Analyzers() {
		what := a.What
		if a.NeedsWorkload {
			what += " (with --workload)"
		}
		out = append(out, finding.Doc{
			Code: a.Code, Name: a.Name, Severities: []finding.Level{a.Severity},
			Commands: lintCommands, What: what, Why: a.Why, Fix: a.Fix,
		})
	}
	out = append(out, finding.Doc{
		Code: "NL001", Name: "unknown-nolint-code", Severities: []finding.Level{finding.Warn}, Commands: lintCommands,
		What: "a -- cqlsize:nolint directive names a code that does not exist",
		Why:  "a typo would silence nothing while looking like it does",
		Fix:  "use a code from `cqlsize explain --list-codes`",
	})
	return out
}
