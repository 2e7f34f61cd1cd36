package purity

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// layoutDoc is the page that tells a reader what each package holds and which are pure.
var layoutDoc = filepath.Join("..", "..", "docs", "layout.md")

// docs/layout.md has a row for every package on the layering floors (examples and the
// internal/accuracy command aside: the examples have docs/examples.md), and its sentence on
// pure packages names exactly the packages TestPurePackagesImportNoDriver holds to it.
func TestLayoutDocNamesEveryPackage(t *testing.T) {
	src, err := os.ReadFile(layoutDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	for _, p := range slices.Concat(floors...) {
		if strings.HasPrefix(p, "examples/") || p == "internal/accuracy/cmd" || p == "scripts" {
			continue
		}
		if !strings.Contains(doc, "| `"+p+"` |") {
			t.Errorf("docs/layout.md has no row for package %s: add one saying what it holds", p)
		}
	}
	m := regexp.MustCompile(`Pure packages \(([^)]*)\) import no driver`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatal(`docs/layout.md does not say "Pure packages (...) import no driver"`)
	}
	var named []string
	for _, f := range strings.Split(m[1], ",") {
		named = append(named, strings.Trim(strings.TrimSpace(f), "`"))
	}
	slices.Sort(named)
	want := slices.Clone(pure)
	slices.Sort(want)
	if !slices.Equal(named, want) {
		t.Errorf("docs/layout.md calls %v pure; the purity test holds %v", named, want)
	}
}
