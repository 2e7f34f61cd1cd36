package figures

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/internal/golden"
)

// root is the module root, two directories up from this package.
var root = filepath.Join("..", "..")

// Each bound is the measured worst of at least MinRuns recorded runs plus its margin, rounded
// up: not a number typed by hand, and not one left wide after the model got better.
func TestClaimsAreMeasured(t *testing.T) {
	claims, err := Claims()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range claims {
		if seen[c.Name] {
			t.Errorf("claim %s twice", c.Name)
		}
		seen[c.Name] = true
		if c.What == "" || c.Test == "" || c.Package == "" || len(c.Figures) == 0 {
			t.Errorf("%s: a claim states what it is, its test, package and figures: %+v", c.Name, c)
		}
		if c.Stated && (c.Bound != 0 || c.Margin != 0) || !c.Stated && (c.Margin <= 0 || c.MarginWhy == "") {
			t.Errorf("%s: a bound states its margin and why; a stated figure has neither bound nor margin: %+v", c.Name, c)
		}
		runs, err := Runs(c.Test)
		if err != nil {
			t.Fatal(err)
		}
		covered := 0
		for _, r := range runs {
			n := 0
			for name := range r.Figures {
				if c.Covers(name) {
					n++
				}
			}
			if n > 0 {
				covered++
			}
		}
		if covered < MinRuns {
			t.Errorf("%s: %d recorded runs of %s cover it, want at least %d (CQLSIZE_RECORD_FIGURES=1 %s)",
				c.Name, covered, c.Test, MinRuns, c.Command())
			continue
		}
		worst, fig, run := c.Worst(runs)
		if c.Stated {
			continue
		}
		if want := c.WantMargin(runs); math.Abs(c.Margin-want) > 1e-9 {
			t.Errorf("%s: margin %s in bounds.json, but the runs moved its figures by up to %s: set it to %s",
				c.Name, c.Text(c.Margin, false), c.Text(c.Spread(runs), false), c.Text(want, false))
		}
		if want := c.WantBound(runs); math.Abs(c.Bound-want) > 1e-9 {
			t.Errorf("%s: bound %s in bounds.json, but the worst of %d runs is %s (%s, %s) and the margin %s: set it to %s",
				c.Name, c.Text(c.Bound, false), len(runs), c.Text(worst, true), fig, run.File, c.Text(c.Margin, false), c.Text(want, false))
		}
	}
}

// A figure a test holds to a bound is covered by a claim: none is recorded as held and left
// out of the bounds.
func TestEveryHeldFigureHasAClaim(t *testing.T) {
	claims, err := Claims()
	if err != nil {
		t.Fatal(err)
	}
	runs, err := Runs("")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		for name := range r.Figures {
			if c := claimOf(claims, name); c.Name == "(none)" {
				t.Errorf("%s: figure %s is held but no claim in bounds.json covers it", r.File, name)
			}
		}
		for name := range r.Shown {
			if r.ShownWhy != nil && r.ShownWhy[name] == "" {
				t.Errorf("%s: figure %s is shown without a reason", r.File, name)
			}
		}
	}
}

// docs/figures.md is generated from the runs and the bounds; a stale copy fails here.
func TestFiguresMarkdownIsCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, filepath.Join(root, "docs", "figures.md"), b.Bytes())
}

var space = regexp.MustCompile(`\s+`)

// The docs state each bound the tests enforce, in the words bounds.json gives for it: a
// figure on a page that differs from the bound (or the measured worst it cites) fails here.
func TestDocsStateTheBounds(t *testing.T) {
	text := space.ReplaceAllString(docsText(t), " ")
	claims, err := Claims()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claims {
		runs, err := Runs(c.Test)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Readme {
			want := space.ReplaceAllString(c.Phrase(p, runs), " ")
			if !strings.Contains(text, want) {
				t.Errorf("neither README.md nor a page of docs/ says %q (claim %s: bound %s)", want, c.Name, c.Text(c.Bound, false))
			}
		}
	}
}

// docs/byte-model.md's table of the reference workloads shows the worst error of each over the
// recorded runs, as docs/figures.md does.
func TestDocsModelTableIsMeasured(t *testing.T) {
	docs, runs := docsAndRuns(t, "TestModelMatchesCassandra")
	rows := ModelTable(runs)
	if len(rows) == 0 {
		t.Fatal("no recorded run of TestModelMatchesCassandra")
	}
	docRows := map[string][]string{}
	for _, cells := range tableRows(docs) {
		if len(cells) == 4 {
			docRows[cells[0]] = cells
		}
	}
	for _, r := range rows {
		cells, ok := docRows[r.Workload]
		if !ok {
			t.Errorf("docs/byte-model.md's accuracy table has no row %s", r.Workload)
			continue
		}
		if cells[2] != r.Model || cells[3] != r.Classic {
			t.Errorf("docs/byte-model.md: %s model %s, classic %s; the runs' worst: %s, %s", r.Workload, cells[2], cells[3], r.Model, r.Classic)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		v      float64
		signed bool
		want   string
	}{
		{0.016, false, "1.6%"}, {0.10, false, "10%"}, {-0.0114, true, "−1.1%"}, {0.0004, true, "0.0%"}, {2.235, true, "+223.5%"},
	} {
		if got := Percent(c.v, c.signed); got != c.want {
			t.Errorf("Percent(%v, %v) = %q, want %q", c.v, c.signed, got, c.want)
		}
	}
	c := Claim{Margin: 0.005, Figures: []string{"model/*/typical"}}
	runs := []Run{{Figures: map[string]float64{"model/a/typical": -0.0112, "model/b/largest": 0.5}}}
	if got := c.WantBound(runs); math.Abs(got-0.017) > 1e-9 {
		t.Errorf("WantBound = %v, want 0.017 (worst 1.12%% + 0.5%%, rounded up; model/b/largest is not the claim's)", got)
	}
}

// docs/profile.md's profile tables (sampled, and the Zipf tables read whole) show the worst of the
// recorded runs of `make accuracy`'s profile part, in parentheses where a figure is shown and
// not held, as docs/figures.md does.
func TestDocsProfileTablesAreMeasured(t *testing.T) {
	docs, all := docsAndRuns(t, "")
	tests := profileTests(all)
	if len(tests) != 1 {
		t.Fatalf("want the runs of one setting of make accuracy's profile part, have %v", tests)
	}
	runs := runsOf(all, tests[0])
	if len(runs) < MinRuns {
		t.Errorf("%d recorded runs of %s, want at least %d", len(runs), tests[0], MinRuns)
	}
	// The sampled table has a column saying what the table exercises; the full one does not.
	byMode := map[string]map[string][]string{"sampled": {}, "full": {}}
	for _, cells := range tableRows(docs) {
		switch {
		case len(cells) == 8:
			byMode["sampled"][cells[0]] = append(cells[:1:1], cells[2:]...)
		case len(cells) == 7:
			byMode["full"][cells[0]] = cells
		}
	}
	for mode, rows := range byMode {
		want := ProfileTable(runs, mode)
		if len(want) == 0 {
			t.Errorf("no %s profile figures recorded", mode)
		}
		for _, w := range want {
			got, ok := rows[w.Table]
			if !ok {
				t.Errorf("docs/profile.md's %s profile table has no row %s", mode, w.Table)
				continue
			}
			wantCells := append([]string{w.RowsP99}, w.Columns...)
			gotCells := append([]string{got[1]}, got[3:]...)
			if strings.Join(gotCells, " | ") != strings.Join(wantCells, " | ") {
				t.Errorf("docs/profile.md, %s %s: rows p99, typical, largest, on disk, estimate %q; the runs' worst %q", mode, w.Table, gotCells, wantCells)
			}
			if diff, ok := skewDiff(got[2]); !ok || math.Abs(diff-w.Skew) > 0.005 {
				t.Errorf("docs/profile.md, %s %s: skew %q, the runs' worst fitted − loaded is %+.2f", mode, w.Table, got[2], w.Skew)
			}
		}
	}
}

// skewDiff reads a skew cell, "uniform" or "loaded / fitted", as fitted − loaded.
func skewDiff(cell string) (float64, bool) {
	if cell == "uniform" {
		return 0, true
	}
	var loaded, fitted float64
	if _, err := fmt.Sscanf(cell, "%g / %g", &loaded, &fitted); err != nil {
		return 0, false
	}
	return fitted - loaded, true
}

// docsAndRuns reads the docs (docsText) and the recorded runs of test ("" for all).
func docsAndRuns(t *testing.T, test string) (string, []Run) {
	t.Helper()
	runs, err := Runs(test)
	if err != nil {
		t.Fatal(err)
	}
	return docsText(t), runs
}

// docsText is what a reader of the docs reads: README.md and the pages of docs/, but not
// docs/figures.md, which is generated from the runs (a figure must be stated where the reader
// meets it, not only in the generated record).
func docsText(t *testing.T) string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		if filepath.Base(p) == "figures.md" {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
		b.WriteString("\n")
	}
	return b.String()
}

// tableRows are the cells of every Markdown table row in text.
func tableRows(text string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "| ") {
			rows = append(rows, strings.Split(strings.Trim(line, "| "), " | "))
		}
	}
	return rows
}
