package codes_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/codes"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/lint"
	"github.com/cqlsize/cqlsize/internal/cli"
	"github.com/cqlsize/cqlsize/tombstone"
)

// root is the repository, from this package's folder.
const root = ".."

// codeLiteral is a finding code as Go source spells it: "SZ001", "DS102".
var codeLiteral = regexp.MustCompile(`"([A-Z]{2}[0-9]{3})"`)

// jsonCode is a code in a JSON report: "code": "QF002".
var jsonCode = regexp.MustCompile(`"code":\s*"([A-Z]{2}[0-9]{3})"`)

// sourceCodes returns every code literal in the repository's non-test Go files, with the
// file it was seen in: a code no corpus reaches is still caught.
func sourceCodes(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "docs", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range codeLiteral.FindAllSubmatch(src, -1) {
			if _, seen := out[string(m[1])]; !seen {
				out[string(m[1])] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking the source: %v", err)
	}
	return out
}

// runCLI runs cqlsize in-process and returns the codes in its JSON output. Exit 0 and 1
// (findings) are expected; anything else fails the test, since a corpus that does not run
// proves nothing.
func runCLI(t *testing.T, got map[string]string, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Do(args, strings.NewReader(""), &out, &errb)
	if code != cli.ExitOK && code != cli.ExitFindings {
		t.Errorf("cqlsize %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
		return
	}
	for _, m := range jsonCode.FindAllStringSubmatch(out.String(), -1) {
		if _, seen := got[m[1]]; !seen {
			got[m[1]] = "cqlsize " + strings.Join(args, " ")
		}
	}
}

// lintFile lints one .cql file on its own (keyspace app, as the lint tests do).
func lintFile(t *testing.T, got map[string]string, path string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cql.ParseFile(path, src)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	in := lint.Input{Files: []lint.File{{Name: path, Source: src, Statements: stmts}}, Keyspace: "app"}
	// before/NAME.cql, when present, is what exists before NAME.cql runs (as the lint tests read it).
	before := filepath.Join(filepath.Dir(path), "before", filepath.Base(path))
	if _, err := os.Stat(before); err == nil {
		if in.Schema, err = cql.LoadSchemaIn(before, "app"); err != nil {
			t.Fatalf("%s: %v", before, err)
		}
	}
	rep, err := lint.Run(in, lint.Config{})
	if err != nil {
		t.Errorf("lint %s: %v", path, err)
		return
	}
	for _, d := range rep.Diagnostics {
		if _, seen := got[d.Code]; !seen {
			got[d.Code] = "lint " + path
		}
	}
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(root, pattern))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// emittedCodes runs every analysis over every corpus of the repository and returns each
// code reported, with the run that reported it.
func emittedCodes(t *testing.T) map[string]string {
	t.Helper()
	got := map[string]string{}

	// The examples: estimate (sizing and tombstones, with their queries), check, and the
	// lints with the workload.
	examples := glob(t, "examples/*/workload.yaml")
	if len(examples) < 6 {
		t.Fatalf("examples with a workload: %v", examples)
	}
	for _, w := range examples {
		dir := filepath.Dir(w)
		mig, queries := filepath.Join(dir, "migrations"), filepath.Join(dir, "queries.cql")
		runCLI(t, got, "estimate", "--schema", mig, "-k", "example", "--workload", w, "--queries", queries, "--format", "json")
		runCLI(t, got, "estimate", "--schema", mig, "-k", "example", "--workload", w, "--target", "scylladb", "--format", "json")
		runCLI(t, got, "check", "--schema", mig, "-k", "example", "--queries", queries, "--format", "json")
		runCLI(t, got, "migrate", "validate", "--dir", mig, "-k", "example", "--workload", w, "--offline", "--format", "json")
	}

	// The report's test inputs: a schema, a workload with deletes, nulls and collections, and
	// the application's statements (TS1xx).
	rd := filepath.Join(root, "internal/report/testdata")
	for _, target := range []string{"cassandra-5.0", "scylladb"} {
		runCLI(t, got, "estimate", "--schema", filepath.Join(rd, "schema.cql"), "--workload", filepath.Join(rd, "workload.yaml"),
			"--queries", filepath.Join(rd, "queries.cql"), "--statements", filepath.Join(rd, "statements.cql"), "--target", target, "--format", "json")
	}
	// The tombstone statements corpus, classified against the schema it is written for.
	schema, err := cql.LoadSchema("testdata/inbox.cql")
	if err != nil {
		t.Fatal(err)
	}
	stPath := filepath.Join(root, "tombstone/testdata/statements.cql")
	src, err := os.ReadFile(stPath)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cql.ParseFile(stPath, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tombstone.StatementFindings(schema, stmts) {
		if _, seen := got[f.Code]; !seen {
			got[f.Code] = "tombstone.StatementFindings " + stPath
		}
	}

	// This package's own corpus: tables and workloads that reach the codes the others do not.
	reach := func(args ...string) {
		runCLI(t, got, append([]string{"estimate", "--schema", "testdata/reach/migrations", "-k", "reach", "--format", "json"}, args...)...)
	}
	reach("--table", "jobs", "--partitions", "10", "--rate", "20000/day", "--avg", "payload=200", "--delete", "row:19900/day", "--deletes-at", "head")                               // TS004, TS002
	reach("--table", "readings", "--partitions", "1000", "--rate", "1/min", "--read-order", "newest-first")                                                                          // SZ104, TS007, TS009
	reach("--table", "readings", "--partitions", "10", "--rate", "1/day", "--ttl", "15y")                                                                                            // SZ006
	reach("--table", "window_events", "--partitions", "100", "--rate", "100/day", "--avg", "source=10", "--avg", "body=100", "--delete", "row:10/day")                               // TS008
	reach("--table", "jobs", "--partitions", "10", "--rate", "1000/day", "--nulls", "payload=0.9", "--nulls-as", "null")                                                             // TS005
	reach("--table", "ordered_log", "--partitions", "100", "--rate", "100/day", "--read-order", "newest-first")                                                                      // TS009
	reach("--table", "blobs", "--partitions", "10", "--rows", "1", "--avg", "name=70000", "--avg", "data=20000000")                                                                  // SZ004, SZ005
	reach("--table", "blobs", "--partitions", "10", "--rows", "1", "--avg", "name=100", "--avg", "data=12000000", "--target", "scylladb")                                            // SZ011, SZ012
	reach("--table", "docs_by_author", "--partitions", "1000", "--rate", "10/day", "--batch", "docs_by_id,docs_by_author", "--avg", "body=60000")                                    // SZ021
	reach("--table", "docs_by_author", "--partitions", "1000", "--rate", "10/day", "--batch", "docs_by_id,docs_by_author", "--avg", "body=10000")                                    // SZ020
	runCLI(t, got, "estimate", "--schema", "testdata/reads/schema.cql", "--workload", "testdata/reads/workload.yaml", "--queries", "testdata/reads/queries.cql", "--format", "json") // RC001-RC003
	runCLI(t, got, "check", "--schema", "testdata/reach/migrations", "-k", "reach", "--queries", "testdata/reach/queries.cql", "--format", "json", "--fail-on", "never")             // QF010, QF016
	runCLI(t, got, "migrate", "validate", "--dir", "testdata/reach/migrations", "-k", "reach", "--workload", "testdata/reach/workload.yaml", "--offline", "--format", "json")        // WL1xx

	// The checker's node-verified corpus and its CLI inputs.
	for _, d := range []string{"cql/check/testdata/corpus", "cql/check/testdata/cli"} {
		dir := filepath.Join(root, d)
		runCLI(t, got, "check", "--schema", filepath.Join(dir, "schema.cql"), "--queries", filepath.Join(dir, "queries.cql"), "--format", "json", "--fail-on", "never")
	}

	// The lints' test files and the table-shapes corpus.
	files := append(glob(t, "cql/lint/testdata/*.cql"), glob(t, "cql/lint/testdata/shapes/*.cql")...)
	if len(files) < 60 {
		t.Fatalf("lint corpus: %d files", len(files))
	}
	for _, f := range files {
		lintFile(t, got, f)
	}
	return got
}

// Every code an analysis emits over the corpora, and every code literal in the source, is
// documented in the registry.
func TestEveryEmittedCodeIsDocumented(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every corpus")
	}
	emitted := emittedCodes(t)
	for code, where := range emitted {
		if !codes.Known(code) {
			t.Errorf("%s is emitted (%s) but the registry does not document it: add it to package codes", code, where)
		}
	}
	literals := sourceCodes(t)
	if len(literals) < 70 {
		// The scan must see the codes it guards, or it proves nothing.
		t.Fatalf("the source scan found %d code literals; the repository has over 70", len(literals))
	}
	for code, file := range literals {
		if !codes.Known(code) {
			t.Errorf("%s appears in %s but the registry does not document it: add it to package codes", code, file)
		}
	}

	// The reverse: a registered code no corpus reaches says why.
	var reached, unreached []string
	for _, d := range codes.All() {
		_, ok := emitted[d.Code]
		switch {
		case ok && d.Unreached != "":
			t.Errorf("%s is marked unreached (%q) but %s emits it: drop the mark", d.Code, d.Unreached, emitted[d.Code])
		case !ok && d.Unreached == "":
			t.Errorf("%s is documented but no corpus emits it: add a corpus case, or say why in its Unreached", d.Code)
		case ok:
			reached = append(reached, d.Code)
		default:
			unreached = append(unreached, d.Code)
		}
	}
	sort.Strings(unreached)
	t.Logf("%d codes documented: %d emitted by the corpora, %d marked unreached (%s); %d code literals in the source",
		len(codes.All()), len(reached), len(unreached), strings.Join(unreached, " "), len(literals))
}
