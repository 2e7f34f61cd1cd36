package codes_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/codes"
	"github.com/cqlsize/cqlsize/cql/check"
	"github.com/cqlsize/cqlsize/cql/lint"
	"github.com/cqlsize/cqlsize/finding"
)

var update = flag.Bool("update", false, "rewrite docs/codes.md from the registry")

// docs/codes.md is generated from the registry; a stale copy fails here.
func TestCodesMarkdownIsCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := codes.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "docs", "codes.md")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./codes -update)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		t.Errorf("%s is stale: run go test ./codes -update", path)
	}
}

var codeShape = regexp.MustCompile(`^[A-Z]{2}[0-9]{3}$`)
var nameShape = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Every entry is complete and unambiguous: a well-formed unique code and name, at least one
// severity in order, a command, and what, why and fix.
func TestRegistryEntriesAreComplete(t *testing.T) {
	all := codes.All()
	if len(all) < 70 {
		t.Fatalf("registry has %d codes", len(all))
	}
	seen := map[string]string{}
	for _, d := range all {
		if !codeShape.MatchString(d.Code) {
			t.Errorf("code %q is not two letters and three digits", d.Code)
		}
		if !nameShape.MatchString(d.Name) {
			t.Errorf("%s: name %q is not kebab-case", d.Code, d.Name)
		}
		for _, key := range []string{d.Code, d.Name} {
			if other, dup := seen[strings.ToLower(key)]; dup {
				t.Errorf("%s: %q is also %s", d.Code, key, other)
			}
			seen[strings.ToLower(key)] = d.Code
		}
		if len(d.Severities) == 0 || len(d.Commands) == 0 || d.What == "" || d.Why == "" || d.Fix == "" {
			t.Errorf("%s is incomplete: %+v", d.Code, d)
		}
		for i, l := range d.Severities {
			if l < finding.Info || l > finding.Fail || i > 0 && l <= d.Severities[i-1] {
				t.Errorf("%s: severities %v are not distinct levels, least first", d.Code, d.Severities)
			}
		}
	}
}

// The per-package listings agree with the registry: check's codes and the lint analyzers.
func TestPackageListsMatchRegistry(t *testing.T) {
	for _, c := range check.Codes() {
		if !codes.Known(c.Code) {
			t.Errorf("check.Codes lists %s, the registry does not", c.Code)
		}
	}
	for _, a := range lint.Analyzers() {
		d, ok := codes.Lookup(a.Code)
		if !ok || d.Name != a.Name || !strings.HasPrefix(d.What, a.What) || d.Why != a.Why || d.Fix != a.Fix {
			t.Errorf("lint %s: registry entry %+v differs from the analyzer", a.Code, d)
		}
	}
	for _, d := range codes.All() {
		if strings.HasPrefix(d.Code, "QF") {
			found := false
			for _, c := range check.Codes() {
				found = found || c.Code == d.Code
			}
			if !found {
				t.Errorf("registry has %s, check.Codes does not", d.Code)
			}
		}
	}
}

func TestLookupAndNearest(t *testing.T) {
	for in, want := range map[string]string{"sz001": "SZ001", " QF002 ": "QF002", "drop-table": "DS102", "DROP-TABLE": "DS102", "ts101": "TS101"} {
		if d, ok := codes.Lookup(in); !ok || d.Code != want {
			t.Errorf("Lookup(%q) = %s, %v; want %s", in, d.Code, ok, want)
		}
	}
	for _, in := range []string{"", "SZ999", "QF", "drop", strings.Repeat("x", 10000)} {
		if d, ok := codes.Lookup(in); ok {
			t.Errorf("Lookup(%q) found %s", in, d.Code)
		}
	}
	for in, want := range map[string]string{"SZ01": "SZ001", "QF0002": "QF002", "drop-tabel": "DS102", "ds012": "DS102"} {
		got := codes.Nearest(in, 3)
		if len(got) != 3 || !contains(got, want) {
			t.Errorf("Nearest(%q) = %v; want %s among 3", in, got, want)
		}
	}
	if got := codes.Nearest(strings.Repeat("Q", 100000), 2); len(got) != 2 {
		t.Errorf("Nearest(long) = %v", got)
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
