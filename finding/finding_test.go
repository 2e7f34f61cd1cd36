package finding_test

import (
	"encoding/json"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/finding"
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		f    finding.Finding
		want string
	}{
		{finding.Finding{Code: "SZ001", Severity: finding.Fail, Table: "app.t", Pos: cql.Pos{File: "s.cql", Line: 2, Col: 1}, Message: "m"},
			"s.cql:2:1: SZ001 fail app.t: m"},
		{finding.Finding{Code: "TS005", Severity: finding.Info, Table: "app.t", Message: "m", Fix: "f"},
			"TS005 info app.t: m Fix: f"},
		{finding.Finding{Code: "QF002", Severity: finding.Warn, Pos: cql.Pos{File: "q.cql", Line: 1, Col: 8}, Message: "m"},
			"q.cql:1:8: QF002 warn: m"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String = %q, want %q", got, tc.want)
		}
	}
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		f    finding.Finding
		want string
	}{
		{finding.Finding{Code: "QF002", Severity: finding.Fail, Pos: cql.Pos{File: "q.cql", Line: 3, Col: 1}, Message: "m"},
			`{"code":"QF002","severity":"fail","message":"m","pos":"q.cql:3:1"}`},
		{finding.Finding{Code: "TS001", Severity: finding.Warn, Table: "app.t", Message: "m", Fix: "f"},
			`{"code":"TS001","severity":"warn","table":"app.t","message":"m","fix":"f"}`},
	} {
		b, err := json.Marshal(tc.f)
		if err != nil || string(b) != tc.want {
			t.Errorf("json = %s, %v; want %s", b, err, tc.want)
		}
	}
}

func TestWorstAndAtLeast(t *testing.T) {
	if got := finding.Worst(nil); got != finding.OK {
		t.Errorf("Worst(nil) = %v", got)
	}
	fs := []finding.Finding{{Code: "A", Severity: finding.Info}, {Code: "B", Severity: finding.Fail}, {Code: "C", Severity: finding.Warn}}
	if got := finding.Worst(fs); got != finding.Fail {
		t.Errorf("Worst = %v, want fail", got)
	}
	got := finding.AtLeast(fs, finding.Warn)
	if len(got) != 2 || got[0].Code != "B" || got[1].Code != "C" {
		t.Errorf("AtLeast(warn) = %v", got)
	}
}

func TestDocSeverityText(t *testing.T) {
	for _, tc := range []struct {
		l    []finding.Level
		want string
	}{
		{nil, ""},
		{[]finding.Level{finding.Fail}, "fail"},
		{[]finding.Level{finding.Warn, finding.Fail}, "warn or fail"},
		{[]finding.Level{finding.Info, finding.Warn, finding.Fail}, "info, warn or fail"},
	} {
		if got := (finding.Doc{Severities: tc.l}).SeverityText(); got != tc.want {
			t.Errorf("SeverityText(%v) = %q, want %q", tc.l, got, tc.want)
		}
	}
	if f := (finding.Doc{Code: "DS102"}).Family(); f != "DS" {
		t.Errorf("Family = %q", f)
	}
}
