package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes one line per diagnostic (file:line:col: CODE severity: message), the
// fix under it, and a summary line. Silenced diagnostics are listed only when verbose.
func (r *Report) WriteText(w io.Writer, verbose bool) error {
	var b strings.Builder
	for _, d := range r.Diagnostics {
		if d.Silenced && !verbose {
			continue
		}
		fmt.Fprintf(&b, "%s (%s)", d, d.Name)
		if d.Silenced {
			b.WriteString(" [silenced]")
		}
		b.WriteByte('\n')
		if d.Fix != "" && !d.Silenced {
			fmt.Fprintf(&b, "    fix: %s\n", d.Fix)
		}
	}
	fmt.Fprintf(&b, "lint: %s, %s", plural(r.Errors(), "error"), plural(r.Warnings(), "warning"))
	if n := r.Silenced(); n > 0 {
		fmt.Fprintf(&b, " (%d silenced)", n)
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// jsonDiagnostic is a Diagnostic with its position spelled out and its severity in the
// words lint reports have always used (error, warning).
type jsonDiagnostic struct {
	File     string       `json:"file"`
	Line     int          `json:"line"`
	Col      int          `json:"col"`
	Code     string       `json:"code"`
	Name     string       `json:"name"`
	Severity severityText `json:"severity"`
	Message  string       `json:"message"`
	Fix      string       `json:"fix,omitempty"`
	Silenced bool         `json:"silenced,omitempty"`
}

// JSONReport is the shape WriteJSON writes: stable field names for CI tools.
type JSONReport struct {
	Diagnostics []jsonDiagnostic `json:"diagnostics"`
	Errors      int              `json:"errors"`
	Warnings    int              `json:"warnings"`
	Silenced    int              `json:"silenced"`
}

// JSON returns the report in the shape WriteJSON writes.
func (r *Report) JSON() JSONReport {
	out := JSONReport{Diagnostics: []jsonDiagnostic{}, Errors: r.Errors(), Warnings: r.Warnings(), Silenced: r.Silenced()}
	for _, d := range r.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, jsonDiagnostic{File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col,
			Code: d.Code, Name: d.Name, Severity: severityText(d.Severity), Message: d.Message, Fix: d.Fix, Silenced: d.Silenced})
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}
