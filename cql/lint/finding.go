package lint

import (
	"encoding/json"
	"fmt"

	"github.com/cqlsize/cqlsize/finding"
	"github.com/cqlsize/cqlsize/severity"
)

// Word is how lint reports write a severity: "error" for a fail, "warning" for a warn (and
// "info" below). They are the words `migrate validate` always printed, text and JSON, and
// CI scripts match on them; on the shared scale they are fail and warn.
func Word(s Severity) string {
	switch {
	case s >= severity.Fail:
		return "error"
	case s == severity.Warn:
		return "warning"
	}
	return s.String()
}

// Finding is the diagnostic as the finding every cqlsize analysis reports: the same code,
// severity (warn or fail), position, message and fix. Name and Silenced are the lint's own.
func (d Diagnostic) Finding() finding.Finding {
	return finding.Finding{Code: d.Code, Severity: d.Severity, Pos: d.Pos, Message: d.Message, Fix: d.Fix}
}

// severityText is a severity as JSON: Word's word.
type severityText Severity

// MarshalText writes the severity as Word does.
func (s severityText) MarshalText() ([]byte, error) { return []byte(Word(Severity(s))), nil }

// UnmarshalText reads error, warning (and the shared scale's fail, warn, info).
func (s *severityText) UnmarshalText(b []byte) error {
	l, err := severity.Parse(string(b))
	if err != nil {
		return fmt.Errorf("lint severity: %w", err)
	}
	*s = severityText(l)
	return nil
}

// MarshalJSON writes the diagnostic with its severity as Word writes it (error, warning),
// the fields named as its struct tags say.
func (d Diagnostic) MarshalJSON() ([]byte, error) {
	type plain Diagnostic // without this method
	return json.Marshal(struct {
		plain
		Severity severityText `json:"severity"`
	}{plain(d), severityText(d.Severity)})
}
