package purity

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the project's module path; the tables below name packages relative to it.
const module = "github.com/cqlsize/cqlsize"

// floors puts every package of the module on a floor, from the bottom (floor 0: no project
// imports) to the top (the binaries). A package's non-test files import only packages on
// lower floors: the direction is the rule, so a new import needs no entry here unless it
// points up or sideways, and then the code belongs elsewhere. A new package gets a place on
// the floor above the highest package it imports.
var floors = [][]string{
	// 0: the vocabulary, and the leaves that import no project package.
	{"severity", "bucket", "cql/options", "internal/version", "internal/golden", "internal/figures",
		"internal/lz4block", "internal/retry", "internal/cqlsizebin", "internal/reaper",
		// scripts/cassandra's runner and lock for the suites that take nodes down.
		"internal/clusterctl",
		// The independent proof of a backfill imports no project package: nothing it checks
		// is computed by the code it judges.
		"internal/backfillcheck",
		// Packages that hold tests only.
		"internal/purity", "scripts"},
	// 1: the CQL model and parser; reaching a cluster (over the one retry loop); programs over
	// a leaf.
	{"cql", "connect", "internal/tokenscan", "internal/nodecontainer", "internal/reaper/cmd/ryuk", "internal/backfillcheck/cmd/benchbackfill"},
	// 2: rules over the model, the workload file, the live schema reader; the schema changes
	// cqlsize makes for itself.
	{"finding", "internal/ddl", "cql/bound", "cql/nodesettings", "cql/derive", "workload", "sizing/disk", "cql/liveschema"},
	// 3: the key layout that serves an access pattern (check's and design's one answer); the
	// read cost of an access pattern (design's, check's and estimate's one model).
	{"cql/keylayout", "sizing/readcost"},
	// 4: the engines: checks, lints, sizes, tombstones; writes and reads; migrations.
	{"cql/check", "cql/lint", "sizing", "tombstone", "cql/denorm", "migrations", "internal/workloadflag"},
	// 5: what composes engines: the code registry, design, evolve and the backfill that
	// moves live data (over denorm's writes), profile; the test node.
	{"codes", "design", "evolve", "evolve/backfill", "profile", "cassandratest"},
	// 6: reports and harnesses over those.
	{"internal/report", "internal/accuracy", "internal/ringtest", "internal/dctest", "internal/dcsuite", "internal/authtest", "internal/tlstest"},
	// 7: the CLI, the accuracy command, the examples (which import public packages only,
	// so each can be copied into a service) and their shared test harness.
	{"internal/cli", "internal/accuracy/cmd", "examples/posts", "examples/trending", "examples/likes",
		"examples/magazines", "examples/orders", "examples/sensors", "examples/viewing_history",
		"examples/internal/extest"},
	// 8: the binaries.
	{"cmd/cqlsize", "examples/posts/cmd/postsvc"},
}

// testHelpers may be imported by any package's tests: they give a test a real node, the
// fault ring, the node with authentication, the TLS nodes, a golden file, the measured bound
// it holds a figure to, or the cqlsize binary.
var testHelpers = []string{"cassandratest", "connect", "internal/authtest", "internal/cqlsizebin", "internal/figures", "internal/golden", "internal/ringtest", "internal/dctest", "internal/tlstest"}

// testUpward lists the arrows a package's tests take upward or sideways (beyond lower floors
// and testHelpers), each with why: a test may reach higher than its package when that layer
// is its oracle or its harness.
var testUpward = map[string][]string{
	"codes":                    {"internal/cli"},                  // every registered code is reachable from the CLI
	"cql":                      {"cql/nodesettings", "cql/check"}, // the wide corpus is judged as migrate validate judges: the model, the node's settings, check's verdict on a SELECT
	"cql/check":                {"cql/lint", "design"},            // check and lint agree on the same shapes; suggestions sized by design's volumes
	"design":                   {"cql/check", "evolve"},           // the cases read as the command reads them; check and evolve agree with design
	"cql/denorm":               {"sizing"},                        // a plan's writes sized by the byte model
	"internal/workloadflag":    {"sizing"},                        // flags through an estimate
	"profile":                  {"internal/accuracy"},             // the node's sstablepartitions sizes are the growth test's truth
	"sizing/disk":              {"internal/accuracy"},             // CompressionInfo.db read as the accuracy tests read it: the chunks the node wrote
	"examples/likes":           {"examples/internal/extest"},      // the examples' shared test harness
	"examples/magazines":       {"examples/internal/extest"},      //
	"examples/orders":          {"examples/internal/extest"},      //
	"examples/posts":           {"examples/internal/extest"},      //
	"examples/sensors":         {"examples/internal/extest"},      //
	"examples/trending":        {"examples/internal/extest"},      //
	"examples/viewing_history": {"examples/internal/extest"},      //
	"internal/purity":          {},                                //
	"scripts":                  {"internal/version"},              // the node's version is the one tested against
}

// listed is one package as go list describes it.
type listed struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func TestImportLayering(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	pkgs := listPackages(t)
	for _, v := range layeringViolations(pkgs, floors, testHelpers, testUpward) {
		t.Error(v)
	}
	names := map[string]bool{}
	for _, p := range pkgs {
		names[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = true
	}
	for _, n := range slices.Concat(floors...) {
		if !names[n] {
			t.Errorf("the floors name %s, which is no package of the module: remove or rename it", n)
		}
	}
	for n := range testUpward {
		if !names[n] {
			t.Errorf("testUpward has a row for %s, which is no package of the module", n)
		}
	}
}

// The rule itself, on packages made up for it: an upward import, a sideways one, an unplaced
// package and a test's upward arrow not listed are each reported; downward ones are not.
func TestLayeringRefusesUpwardImports(t *testing.T) {
	fl := [][]string{{"low"}, {"mid", "peer"}, {"top"}}
	pkg := func(name string, imports, tests []string) listed {
		var abs, tabs []string
		for _, i := range imports {
			abs = append(abs, module+"/"+i)
		}
		for _, i := range tests {
			tabs = append(tabs, module+"/"+i)
		}
		return listed{ImportPath: module + "/" + name, Imports: abs, TestImports: tabs}
	}
	cases := []struct {
		name string
		pkgs []listed
		want []string // substrings, one per expected violation
	}{
		{"downward only", []listed{pkg("low", nil, nil), pkg("mid", []string{"low"}, nil), pkg("top", []string{"mid", "low"}, nil)}, nil},
		{"upward", []listed{pkg("low", []string{"top"}, nil), pkg("mid", nil, nil), pkg("top", nil, nil)}, []string{"low (floor 0) imports top (floor 2)"}},
		{"sideways", []listed{pkg("mid", []string{"peer"}, nil), pkg("peer", nil, nil)}, []string{"mid (floor 1) imports peer (floor 1)"}},
		{"unplaced", []listed{pkg("new", []string{"low"}, nil)}, []string{"package new is on no floor"}},
		{"test upward", []listed{pkg("low", nil, []string{"top"})}, []string{"the tests of low (floor 0) import top (floor 2)"}},
		{"test downward", []listed{pkg("top", nil, []string{"low"})}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := layeringViolations(c.pkgs, fl, nil, nil)
			if len(got) != len(c.want) {
				t.Fatalf("violations %q, want %d matching %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("violation %q does not say %q", got[i], w)
				}
			}
		})
	}
}

// layeringViolations returns, one sentence each, every import of pkgs that does not point to a
// lower floor (tests may also reach helpers and their listed upward arrows) and every package
// on no floor.
func layeringViolations(pkgs []listed, floors [][]string, helpers []string, upward map[string][]string) []string {
	floor := map[string]int{}
	for i, names := range floors {
		for _, n := range names {
			floor[n] = i
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range pkgs {
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		seen[name] = true
		f, ok := floor[name]
		if !ok {
			out = append(out, fmt.Sprintf("package %s is on no floor: add it to internal/purity/layers_test.go on the floor above the highest package it imports", name))
			continue
		}
		for _, imp := range project(p.Imports) {
			if g, ok := floor[imp]; ok && g >= f {
				out = append(out, fmt.Sprintf("%s (floor %d) imports %s (floor %d): imports point down only; move the code the two share to a lower floor", name, f, imp, g))
			}
		}
		tested := project(append(slices.Clone(p.TestImports), p.XTestImports...))
		slices.Sort(tested)
		for _, imp := range slices.Compact(tested) {
			g, ok := floor[imp]
			if imp == name || !ok || g < f || slices.Contains(helpers, imp) || slices.Contains(upward[name], imp) {
				continue
			}
			out = append(out, fmt.Sprintf("the tests of %s (floor %d) import %s (floor %d): a test reaches up only for its oracle or harness; list the arrow in testUpward with why", name, f, imp, g))
		}
	}
	return out
}

// listPackages lists every package of the module with its imports.
func listPackages(t *testing.T) []listed {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list %s/...: %v", module, err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages: is the test running inside the module?", len(pkgs))
	}
	return pkgs
}

// project keeps the imports that are the module's own packages, relative to the module.
func project(imports []string) []string {
	var out []string
	for _, imp := range imports {
		if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
			out = append(out, rel)
		}
	}
	return out
}

// The examples are code a user copies into a service: their non-test files import public
// packages only (their tests may use harnesses under internal/).
func TestExamplesImportPublicPackagesOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	for _, p := range listPackages(t) {
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if !strings.HasPrefix(name, "examples/") || strings.HasPrefix(name, "examples/internal/") {
			continue
		}
		for _, imp := range project(p.Imports) {
			if imp == "internal" || strings.HasPrefix(imp, "internal/") || strings.Contains(imp, "/internal/") || strings.HasSuffix(imp, "/internal") {
				t.Errorf("example %s imports %s: an example's code imports public packages only, so a user can copy it out", name, imp)
			}
		}
	}
}
