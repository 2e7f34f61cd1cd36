package report

import "github.com/cqlsize/cqlsize/finding"

// fromFinding renders a finding of any analysis (sizing, tombstones: both report
// finding.Finding) in the report's JSON contract: severity as a word, the position as
// file:line:col under "position" (version 1 of docs/estimate-json.md names it so).
func fromFinding(f finding.Finding) Finding {
	g := Finding{Code: f.Code, Severity: f.Severity.String(), Table: f.Table, Message: f.Message, Fix: f.Fix}
	if f.Pos.IsValid() {
		g.Position = f.Pos.String()
	}
	return g
}
