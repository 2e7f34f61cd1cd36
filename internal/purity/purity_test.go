package purity

import (
	"os/exec"
	"strings"
	"testing"
)

// pure lists the packages docs/layout.md says import no driver.
var pure = []string{
	"bucket", "sizing", "sizing/disk", "sizing/readcost", "internal/lz4block", "workload", "tombstone", "severity", "finding", "codes",
	"cql", "cql/options", "cql/bound", "cql/keylayout", "cql/check", "cql/lint", "cql/nodesettings", "cql/derive", "design", "evolve",
}

// drivers are the module paths a pure package must not reach, directly or through another.
var drivers = []string{"github.com/gocql/gocql", "github.com/scylladb/gocqlx", "github.com/testcontainers/testcontainers-go"}

func TestPurePackagesImportNoDriver(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	for _, p := range pure {
		path := "github.com/cqlsize/cqlsize/" + p
		out, err := exec.Command("go", "list", "-deps", path).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", path, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, d := range drivers {
				if dep == d || strings.HasPrefix(dep, d+"/") {
					t.Errorf("%s imports %s (through its dependencies): docs/layout.md promises it imports no driver", p, dep)
				}
			}
		}
	}
}
