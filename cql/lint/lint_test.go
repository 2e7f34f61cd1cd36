package lint_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/lint"

	goldenfile "github.com/cqlsize/cqlsize/internal/golden"
)

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Compare(t, path, got)
}

func lintFile(t *testing.T, path string) *lint.Report {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cql.ParseFile(path, src)
	if err != nil {
		t.Fatal(err)
	}
	in := lint.Input{Files: []lint.File{{Name: path, Source: src, Statements: stmts}}, Keyspace: "app"}
	// testdata/before/NAME.cql, when present, is what exists before NAME.cql runs.
	before := filepath.Join(filepath.Dir(path), "before", filepath.Base(path))
	if _, err := os.Stat(before); err == nil {
		if in.Schema, err = cql.LoadSchemaIn(before, "app"); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := lint.Run(in, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestGolden lints each testdata/*.cql and compares the verbose text report with its
// .golden file.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.cql")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var b bytes.Buffer
			if err := lintFile(t, f).WriteText(&b, true); err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(f, ".cql")+".golden", b.Bytes())
		})
	}
}

// Every analyzer is exercised by some golden file, so none can silently stop reporting.
func TestEveryAnalyzerFires(t *testing.T) {
	fired := map[string]bool{}
	files, _ := filepath.Glob("testdata/*.cql")
	for _, f := range files {
		for _, d := range lintFile(t, f).Diagnostics {
			fired[d.Code] = true
		}
	}
	for _, a := range lint.Analyzers() {
		if !a.NeedsWorkload && !fired[a.Code] {
			t.Errorf("%s (%s) reports nothing on testdata", a.Code, a.Name)
		}
	}
	if !fired["NL001"] {
		t.Error("an unknown code in a nolint directive is not reported")
	}
}

func TestCodesAreUniqueAndDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range lint.Analyzers() {
		for _, k := range []string{a.Code, a.Name} {
			if seen[k] {
				t.Errorf("duplicate %q", k)
			}
			seen[k] = true
		}
		if a.What == "" || a.Why == "" || a.Fix == "" {
			t.Errorf("%s: what, why and fix must all be documented", a.Code)
		}
		if lint.Lookup(strings.ToLower(a.Code)) != a && lint.Lookup(a.Name).Code != a.Code {
			t.Errorf("%s: Lookup does not find it", a.Code)
		}
	}
}

// existing is a schema of keyspace ks holding what src creates: lint.Input.Schema, what
// exists before the linted statements run.
func existing(t *testing.T, ks, src string) *cql.Schema {
	t.Helper()
	s := cql.NewSchemaIn(ks)
	if err := s.ApplyFile("existing.cql", []byte(src)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAllowAndDisable(t *testing.T) {
	src := []byte("DROP TABLE t;\nSELECT * FROM t WHERE x = 1 ALLOW FILTERING;\n")
	stmts, err := cql.ParseFile("f.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	in := lint.Input{Files: []lint.File{{Name: "f.cql", Source: src, Statements: stmts}}, Schema: existing(t, "app", "CREATE TABLE t (k int PRIMARY KEY, x int);"), Keyspace: "app"}
	rep, err := lint.Run(in, lint.Config{Allow: []string{"DS102"}, Disable: []string{"allow-filtering"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors() != 0 || rep.Silenced() != 1 || len(rep.Diagnostics) != 1 {
		t.Fatalf("errors %d silenced %d diagnostics %v", rep.Errors(), rep.Silenced(), rep.Diagnostics)
	}
	if _, err := lint.Run(in, lint.Config{Allow: []string{"DS999"}}); err == nil || !strings.Contains(err.Error(), "DS999") {
		t.Fatalf("unknown code in Allow: %v", err)
	}
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := lintFile(t, "testdata/nolint.cql").WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/nolint.json", b.Bytes())
}

func TestWorkloadDeletes(t *testing.T) {
	src := []byte("CREATE TABLE IF NOT EXISTS ev (k int, day date, at timestamp, PRIMARY KEY ((k, day), at));\n")
	stmts, _ := cql.ParseFile("w.cql", src)
	in := lint.Input{Files: []lint.File{{Name: "w.cql", Source: src, Statements: stmts}}, Keyspace: "app"}
	rep, _ := lint.Run(in, lint.Config{})
	if len(rep.Diagnostics) != 0 {
		t.Fatalf("without a workload: %v", rep.Diagnostics)
	}
	in.Workload = &lint.Workload{Deletes: []string{"app.ev"}}
	rep, _ = lint.Run(in, lint.Config{})
	if len(rep.Diagnostics) != 1 || rep.Diagnostics[0].Code != "TT101" || !strings.Contains(rep.Diagnostics[0].Message, "workload") {
		t.Fatalf("with a workload deleting from ev: %v", rep.Diagnostics)
	}
}

func TestWorkloadSizesAndTombstones(t *testing.T) {
	src := []byte("CREATE TABLE IF NOT EXISTS feed (k int, day date, at timestamp, v text, PRIMARY KEY ((k, day), at));\n" +
		"ALTER TABLE other ADD x int;\n")
	stmts, err := cql.ParseFile("w.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	in := lint.Input{Files: []lint.File{{Name: "w.cql", Source: src, Statements: stmts}}, Keyspace: "app",
		Workload: &lint.Workload{Sizes: []lint.TableSize{
			{Table: "app.feed", Tombstones: 250000, TypicalTombstones: 4000, Limits: []lint.LimitFinding{
				{Code: "SZ002", Fail: true, Message: "the typical partition reaches 180 MB, over the 100 MB per partition"},
				{Code: "SZ001", Fail: false, Message: "the busiest key's partition reaches 2M values"},
			}},
			{Table: "app.other", Tombstones: 5000},
			{Table: "app.untouched", Tombstones: 1e9, Limits: []lint.LimitFinding{{Code: "SZ002", Fail: true, Message: "huge"}}},
		}}}
	rep, err := lint.Run(in, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Diagnostics {
		got = append(got, fmt.Sprintf("%d %s", d.Pos.Line, d.Code))
	}
	want := "1 WL101,1 WL102,1 WL104,2 WL103"
	if strings.Join(got, ",") != want {
		t.Fatalf("diagnostics %v, want %s\n%v", got, want, rep.Diagnostics)
	}
	// Without a workload none of these run.
	in.Workload = nil
	if rep, _ := lint.Run(in, lint.Config{}); len(rep.Diagnostics) != 0 {
		t.Fatalf("without a workload: %v", rep.Diagnostics)
	}
}
