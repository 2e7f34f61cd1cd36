package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/codes"
	"github.com/cqlsize/cqlsize/finding"
)

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string // substrings of stdout
		err  string   // substring of stderr
	}{
		{"code", []string{"explain", "SZ001"}, ExitOK, []string{"SZ001 values-per-partition (warn or fail)", "reported by: cqlsize estimate", "what:", "why:", "fix:"}, ""},
		{"lower case", []string{"explain", "ds102"}, ExitOK, []string{"DS102 drop-table (fail)", "cqlsize migrate validate", "-- cqlsize:nolint DS102"}, ""},
		{"lint name", []string{"explain", "drop-table"}, ExitOK, []string{"DS102 drop-table"}, ""},
		{"spaces", []string{"explain", " qf002 "}, ExitOK, []string{"QF002 scan (info, warn or fail)", "reported by: cqlsize check"}, ""},
		{"unknown", []string{"explain", "QF15"}, ExitBadInput, nil, `unknown finding code "QF15"; nearest: QF`},
		{"unknown family", []string{"explain", "ZZ999"}, ExitBadInput, nil, "nearest: "},
		{"no code", []string{"explain"}, ExitBadInput, nil, "explain needs a code"},
		{"two codes", []string{"explain", "SZ001", "SZ002"}, ExitBadInput, nil, "accepts at most 1 arg"},
		{"bad format", []string{"explain", "SZ001", "--format", "xml"}, ExitBadInput, nil, `--format "xml"`},
		{"list", []string{"explain", "--list-codes"}, ExitOK, []string{"SZ001", "TS101", "QF014", "DS102", "BK101", "NL001"}, ""},
		{"list prefix", []string{"explain", "--list-codes", "ts1"}, ExitOK, []string{"TS101", "TS111"}, ""},
		{"list bad prefix", []string{"explain", "--list-codes", "ZZ"}, ExitBadInput, nil, "no code starts with it (families: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			if code != tc.code {
				t.Fatalf("%v: exit %d, want %d; stderr %q", tc.args, code, tc.code, errOut)
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("%v: stdout lacks %q:\n%s", tc.args, w, out)
				}
			}
			if tc.err != "" && !strings.Contains(errOut, tc.err) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, errOut, tc.err)
			}
			if tc.code != ExitOK && out != "" {
				t.Errorf("%v: failed but printed on stdout: %q", tc.args, out)
			}
		})
	}
}

func TestExplainListPrefixKeepsOnlyThePrefix(t *testing.T) {
	code, out, _ := run(t, "explain", "--list-codes", "QF")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	want := 0
	for _, d := range codes.All() {
		if d.Family() == "QF" {
			want++
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if want < 14 || len(lines) != want {
		t.Errorf("--list-codes QF: %d lines, want %d:\n%s", len(lines), want, out)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "QF") {
			t.Errorf("--list-codes QF listed %q", l)
		}
	}
}

func TestExplainJSON(t *testing.T) {
	code, out, errOut := run(t, "explain", "tt101", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var docs []finding.Doc
	if err := json.Unmarshal([]byte(out), &docs); err != nil {
		t.Fatalf("explain --format json: %v\n%s", err, out)
	}
	if len(docs) != 1 || docs[0].Code != "TT101" || docs[0].Name != "delete-instead-of-ttl" ||
		len(docs[0].Severities) != 1 || docs[0].Severities[0] != finding.Warn || docs[0].Why == "" || docs[0].Fix == "" {
		t.Errorf("explain TT101 json = %+v", docs)
	}
	if !strings.Contains(out, `"severities": [`+"\n"+`      "warn"`) {
		t.Errorf("severities are not words:\n%s", out)
	}

	code, out, _ = run(t, "explain", "--list-codes", "--format", "json")
	if code != ExitOK {
		t.Fatalf("--list-codes json: exit %d", code)
	}
	docs = nil
	if err := json.Unmarshal([]byte(out), &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(codes.All()) {
		t.Errorf("--list-codes json: %d codes, registry has %d", len(docs), len(codes.All()))
	}
}

// The older per-command listings stay: check --list-codes and migrate validate --list-lints.
func TestOlderCodeListsStillWork(t *testing.T) {
	for _, args := range [][]string{{"check", "--list-codes"}, {"migrate", "validate", "--list-lints"}} {
		code, out, errOut := run(t, args...)
		if code != ExitOK || out == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
