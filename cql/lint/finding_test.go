package lint_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/lint"
	"github.com/cqlsize/cqlsize/finding"
)

// Lints grade on the shared scale (an error is a fail, a warning a warn) but their reports
// keep the words scripts match on.
func TestSeverityWordsAndScale(t *testing.T) {
	if lint.Error != finding.Fail || lint.Warning != finding.Warn {
		t.Fatalf("Error = %v, Warning = %v; want fail and warn", lint.Error, lint.Warning)
	}
	for s, want := range map[lint.Severity]string{lint.Error: "error", lint.Warning: "warning", finding.Info: "info"} {
		if got := lint.Word(s); got != want {
			t.Errorf("Word(%v) = %q, want %q", s, got, want)
		}
	}
	d := lint.Diagnostic{Pos: cql.Pos{File: "f.cql", Line: 3, Col: 1}, Code: "DS102", Name: "drop-table", Severity: lint.Error, Message: "m", Fix: "x"}
	if got := d.String(); got != "f.cql:3:1: DS102 error: m" {
		t.Errorf("String = %q", got)
	}
	b, err := json.Marshal(d)
	if err != nil || !strings.Contains(string(b), `"severity":"error"`) || strings.Contains(string(b), `"Pos"`) {
		t.Errorf("json = %s, %v", b, err)
	}
	f := d.Finding()
	if f.Code != "DS102" || f.Severity != finding.Fail || f.Pos != d.Pos || f.Message != "m" || f.Fix != "x" {
		t.Errorf("Finding = %+v", f)
	}
}

// A JSON report reads back, severity words included.
func TestJSONReportReadsBack(t *testing.T) {
	src := []byte("CREATE TABLE t (k int PRIMARY KEY);\n")
	stmts, err := cql.ParseFile("f.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := lint.Run(lint.Input{Files: []lint.File{{Name: "f.cql", Source: src, Statements: stmts}}, Keyspace: "app"}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"severity": "warning"`) {
		t.Fatalf("no warning word in %s", b.String())
	}
	var back lint.JSONReport
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatalf("read back: %v", err)
	}
	if back.Warnings != rep.Warnings() || len(back.Diagnostics) != len(rep.Diagnostics) {
		t.Errorf("read back %+v", back)
	}
}
