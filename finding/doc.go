package finding

import "strings"

// Doc is what the registry says about one code. Every code an analysis can emit has one;
// `cqlsize explain CODE` prints it and docs/codes.md is generated from them.
type Doc struct {
	Code       string   `json:"code"`       // e.g. "SZ001", "DS102"
	Name       string   `json:"name"`       // a stable kebab-case name, e.g. "drop-table"; lint flags accept it
	Severities []Level  `json:"severities"` // the levels the code is reported at, least severe first
	Commands   []string `json:"commands"`   // the cqlsize commands that report it
	What       string   `json:"what"`       // what it reports
	Why        string   `json:"why"`        // why it matters in Cassandra
	Fix        string   `json:"fix"`        // how to fix it
	// Unreached, when not empty, says why no corpus or test input of the repository makes
	// the code appear (a limit no realistic workload reaches, a target-specific code, ...).
	Unreached string `json:"unreached,omitempty"`
}

// Family is the code's letters: "SZ", "QF", "DS".
func (d Doc) Family() string {
	return strings.TrimRight(d.Code, "0123456789")
}

// SeverityText renders the levels as "warn", "warn or fail", "info, warn or fail".
func (d Doc) SeverityText() string {
	var s []string
	for _, l := range d.Severities {
		s = append(s, l.String())
	}
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
