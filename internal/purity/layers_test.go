package purity

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the project's module path; the tables below name packages relative to it.
const module = "github.com/cqlsize/cqlsize"

// layers is the one place that says which project packages each package's non-test files
// may import. A package missing from it, or an import it does not list, fails
// TestImportLayering. To add a package, add its row here: the packages it imports, lowest
// layer first. The rows run from the bottom (no project imports) to the top (the CLI).
var layers = map[string][]string{
	// The vocabulary every analysis shares.
	"severity":          {},
	"bucket":            {},
	"internal/version":  {},
	"internal/golden":   {},
	"cql/options":       {},
	"internal/figures":  {},
	"internal/lz4block": {},
	"cql":               {"cql/options"},
	"finding":           {"cql", "severity"},

	// Pure engines over the cql model: no driver (purity_test.go), no CLI.
	"cql/bound": {"cql"},
	"cql/check": {"cql", "cql/bound", "design", "finding", "severity"},
	"cql/lint":  {"cql", "cql/bound", "finding", "severity"},
	// What a node's settings refuse: judged from the settings the caller read.
	"cql/nodesettings": {"cql"},
	"cql/derive":       {"bucket", "cql"},
	"workload":         {"bucket", "cql"},
	"sizing":           {"cql", "cql/bound", "finding", "severity", "workload"},
	"sizing/disk":      {"cql", "internal/lz4block"},
	"tombstone":        {"cql", "finding", "severity"},
	"codes":            {"cql/check", "cql/lint", "finding", "sizing", "tombstone"},
	// The design engine: its sizes are sizing's estimates, so check (which suggests its
	// tables) sits above it.
	"design": {"cql", "cql/bound", "severity", "sizing", "workload"},
	// The evolve planner: a new table sized by sizing, its backfill's rules by derive.
	"evolve": {"cql", "cql/derive", "sizing", "workload"},

	// Libraries that talk to a cluster.
	"internal/tokenscan": {},
	"internal/ddl":       {},
	"connect":            {},
	// A throwaway node in a container (testcontainers-go), for migrate --container.
	"internal/nodecontainer": {},
	"cql/liveschema":         {"cql"},
	"cql/denorm":             {"bucket", "cql", "cql/derive", "internal/ddl", "internal/tokenscan"},
	"migrations":             {"cql", "cql/liveschema", "cql/nodesettings", "cql/options", "internal/ddl", "internal/version"},
	"profile":                {"cql", "cql/liveschema", "internal/tokenscan", "sizing", "sizing/disk", "workload"},

	// Test harnesses: a real node, the fault ring, the node with authentication.
	"cassandratest":       {"connect", "internal/ddl", "internal/nodecontainer", "internal/version"},
	"internal/ringtest":   {"cassandratest", "connect"},
	"internal/authtest":   {"cassandratest", "connect"},
	"internal/tlstest":    {"cassandratest", "connect"},
	"internal/cqlsizebin": {},
	// testcontainers' reaper, built into the image testcontainers-go starts (scripts/cassandra image).
	"internal/reaper":          {},
	"internal/reaper/cmd/ryuk": {"internal/reaper"},

	// The independent proof of a backfill imports no project package: nothing it checks is
	// computed by the code it judges. Its benchmark races the backfill command.
	"internal/backfillcheck":                   {},
	"internal/backfillcheck/cmd/benchbackfill": {"internal/backfillcheck"},

	// The CLI and what only it uses.
	"internal/workloadflag": {"cql", "workload"},
	"internal/report":       {"cql", "finding", "profile", "sizing", "tombstone", "workload"},
	"internal/cli": {"codes", "connect", "cql", "cql/check", "cql/denorm", "cql/derive", "cql/lint", "cql/liveschema", "cql/nodesettings", "cql/options", "design",
		"evolve", "finding", "internal/nodecontainer", "internal/report", "internal/tokenscan", "internal/version", "internal/workloadflag",
		"migrations", "profile", "sizing",
		"tombstone", "workload"},
	"cmd/cqlsize": {"internal/cli"},

	// The accuracy harness (the byte model and profile against the node's own files).
	"internal/accuracy":     {"cql", "cql/liveschema", "internal/figures", "profile", "sizing", "workload"},
	"internal/accuracy/cmd": {"connect", "internal/accuracy", "internal/figures", "profile"},

	// The examples import public packages only, so each can be copied into a service;
	// examples/internal/extest is their shared test harness.
	"examples/posts":             {"bucket", "connect", "cql", "cql/denorm", "migrations"},
	"examples/posts/cmd/postsvc": {"connect", "cql/denorm", "examples/posts", "migrations"},
	"examples/trending":          {"bucket", "cql", "cql/denorm"},
	"examples/likes":             {},
	"examples/magazines":         {},
	"examples/orders":            {},
	"examples/sensors":           {},
	"examples/viewing_history":   {},
	"examples/internal/extest": {"connect", "cql", "cql/check", "cql/denorm", "internal/ringtest", "migrations",
		"sizing", "workload"},

	// Packages that hold tests only.
	"internal/purity": {},
	"scripts":         {},
}

// testHelpers may be imported by any package's tests: they give a test a real node, the
// fault ring, the node with authentication, the TLS nodes, a golden file, the measured bound
// it holds a figure to, or the cqlsize binary.
var testHelpers = []string{"cassandratest", "connect", "internal/authtest", "internal/cqlsizebin", "internal/figures", "internal/golden", "internal/ringtest", "internal/tlstest"}

// testLayers lists the further arrows a package's tests take (beyond its row in layers and
// testHelpers): a test may reach higher than its package when that layer is its oracle or
// its harness.
var testLayers = map[string][]string{
	"codes":                    {"cql", "internal/cli"},                  // every registered code is reachable from the CLI
	"cql/check":                {"cql/lint", "workload"},                 // check and lint agree on the same shapes; volumes for sized suggestions
	"design":                   {"bucket", "cql/check", "cql/denorm"},    // the cases read as the command reads them, written through denorm and read back bucket by bucket
	"cql/denorm":               {"cql/liveschema", "sizing", "workload"}, // a plan's writes sized by the byte model; the backfill compiled against the live tables
	"internal/workloadflag":    {"sizing"},                               // flags through an estimate
	"profile":                  {"internal/accuracy"},                    // the node's sstablepartitions sizes are the growth test's truth
	"sizing/disk":              {"internal/accuracy"},                    // CompressionInfo.db read as the accuracy tests read it: the chunks the node wrote
	"scripts":                  {"internal/version"},                     // the node's version is the one tested against
	"examples/likes":           {"bucket", "cql/denorm", "examples/internal/extest"},
	"examples/magazines":       {"cql/denorm", "examples/internal/extest"},
	"examples/orders":          {"cql/denorm", "examples/internal/extest"},
	"examples/posts":           {"evolve", "examples/internal/extest"}, // the evolve scenario plans the migration it adds
	"examples/sensors":         {"bucket", "cql/denorm", "examples/internal/extest"},
	"examples/trending":        {"examples/internal/extest", "sizing", "workload"},
	"examples/viewing_history": {"bucket", "cql/denorm", "examples/internal/extest"},
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
	seen := map[string]bool{}
	for _, p := range pkgs {
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		seen[name] = true
		allowed, ok := layers[name]
		if !ok {
			t.Errorf("package %s has no row in the layering table (internal/purity/layers_test.go): add one listing the project packages it imports", name)
			continue
		}
		for _, imp := range project(p.Imports) {
			if !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s: not an arrow the layering table allows; add it to the row of %s if it belongs there, or move the code", name, imp, name)
			}
		}
		tested := project(append(p.TestImports, p.XTestImports...))
		slices.Sort(tested)
		for _, imp := range slices.Compact(tested) {
			if imp != name && !slices.Contains(p.Imports, module+"/"+imp) && !slices.Contains(allowed, imp) && !slices.Contains(testHelpers, imp) && !slices.Contains(testLayers[name], imp) {
				t.Errorf("the tests of %s import %s: not an arrow the layering table allows for tests; add it to testLayers if it belongs there", name, imp)
			}
		}
	}
	for name := range layers {
		if !seen[name] {
			t.Errorf("the layering table has a row for %s, which is no package of the module: remove or rename it", name)
		}
	}
	for name := range testLayers {
		if !seen[name] {
			t.Errorf("testLayers has a row for %s, which is no package of the module: remove or rename it", name)
		}
	}
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
