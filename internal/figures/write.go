package figures

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Percent writes a relative error or bound as the docs do: one decimal; a bound (unsigned)
// drops a decimal of 0 ("1.6%", "10%"); an error (signed) keeps it, with its sign (a minus
// sign, U+2212, as the docs write it) unless it rounds to 0 ("+1.0%", "−0.3%", "0.0%").
func Percent(v float64, signed bool) string {
	s := fmt.Sprintf("%.1f", math.Abs(100*v))
	switch {
	case !signed:
		return strings.TrimSuffix(s, ".0") + "%"
	case s == "0.0":
		return "0.0%"
	case v < 0:
		return "−" + s + "%"
	}
	return "+" + s + "%"
}

// Text is how the docs write a value of the claim: a percentage, or for an absolute
// difference a number with two decimals.
func (c Claim) Text(v float64, signed bool) string {
	if !c.Abs {
		return Percent(v, signed)
	}
	if signed {
		return fmt.Sprintf("%+.2f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Phrase is one of the claim's docs phrases with its figures in: {bound}, {worst} (the
// measured worst, unsigned) and {runs}.
func (c Claim) Phrase(p string, runs []Run) string {
	w, _, _ := c.Worst(runs)
	return strings.NewReplacer("{bound}", c.Text(c.Bound, false), "{worst}", c.Text(math.Abs(w), false),
		"{runs}", fmt.Sprint(len(runs))).Replace(p)
}

// ModelRow is one reference workload of docs/byte-model.md's accuracy table: the model's and the
// classic formula's error, each the worst over the runs (the one of largest magnitude, with
// its sign); "largest / typical" when the two partitions differ.
type ModelRow struct {
	Workload, Model, Classic string
}

// ModelTable is docs/byte-model.md's accuracy table from the runs of TestModelMatchesCassandra, in
// the order the workloads are recorded (alphabetical).
func ModelTable(runs []Run) []ModelRow {
	worst := func(name string) (float64, bool) {
		var v float64
		found := false
		for _, r := range runs {
			x, ok := r.Figures[name]
			if !ok {
				x, ok = r.Shown[name]
			}
			if ok && (!found || math.Abs(x) > math.Abs(v)) {
				v, found = x, true
			}
		}
		return v, found
	}
	pair := func(kind, w string) string {
		l, _ := worst(kind + "/" + w + "/largest")
		t, _ := worst(kind + "/" + w + "/typical")
		if Percent(l, true) == Percent(t, true) {
			return Percent(l, true)
		}
		return Percent(l, true) + " / " + Percent(t, true)
	}
	seen := map[string]bool{}
	for _, r := range runs {
		for name := range r.Figures {
			if parts := strings.Split(name, "/"); len(parts) == 3 && parts[0] == "model" {
				seen[parts[1]] = true
			}
		}
	}
	var names []string
	for w := range seen {
		names = append(names, w)
	}
	sort.Strings(names)
	var rows []ModelRow
	for _, w := range names {
		rows = append(rows, ModelRow{Workload: w, Model: pair("model", w), Classic: pair("classic", w)})
	}
	return rows
}

// worstOf is the figure name's value of largest magnitude over runs, held or shown, and
// whether it was shown (not held) in that run; ok is false when no run has it.
func worstOf(runs []Run, name string) (v float64, shown, ok bool) {
	for _, r := range runs {
		x, held := r.Figures[name]
		sh := false
		if !held {
			if x, sh = r.Shown[name]; !sh {
				continue
			}
		}
		if !ok || math.Abs(x) > math.Abs(v) {
			v, shown, ok = x, sh, true
		}
	}
	return v, shown, ok
}

// shownWhy is the newest reason the runs give for showing the figure name without a bound.
func shownWhy(runs []Run, name string) string {
	why := ""
	for _, r := range runs {
		if r.ShownWhy[name] != "" {
			why = r.ShownWhy[name]
		}
	}
	return why
}

// ProfileColumns are the figures of docs/profile.md's profile tables, in their column order
// after the skew.
var ProfileColumns = []string{"typical", "largest", "disk-live", "estimate-data"}

// ProfileRow is one table of a profile mode (sampled or full) over the runs: rows p99 and
// the ProfileColumns as docs/profile.md writes them, the worst of the runs, in parentheses where
// shown and not held; Skew is the fitted exponent's worst difference from the loaded one.
type ProfileRow struct {
	Table, Mode string
	RowsP99     string
	Skew        float64
	Columns     []string
}

// ProfileTable is docs/profile.md's profile table of mode from runs of `make accuracy`'s profile
// part, tables in alphabetical order.
func ProfileTable(runs []Run, mode string) []ProfileRow {
	tables := map[string]bool{}
	for _, r := range runs {
		for _, m := range []map[string]float64{r.Figures, r.Shown} {
			for name := range m {
				if p := strings.Split(name, "/"); len(p) == 4 && p[0] == "profile" && p[1] == mode {
					tables[p[2]] = true
				}
			}
		}
	}
	cell := func(name string) string {
		v, shown, ok := worstOf(runs, name)
		switch {
		case !ok:
			return "-"
		case shown && strings.HasPrefix(shownWhy(runs, name), "estimate projects"):
			// A bucketed table: estimate sizes every bucket its retention keeps, the node
			// holds the ones loaded, so the difference is no error.
			return "(projection)"
		case shown:
			return "(" + Percent(v, true) + ")"
		}
		return Percent(v, true)
	}
	var rows []ProfileRow
	for _, tb := range sorted(tables) {
		pre := "profile/" + mode + "/" + tb + "/"
		skew, _, _ := worstOf(runs, pre+"skew")
		row := ProfileRow{Table: tb, Mode: mode, RowsP99: cell(pre + "rows-p99"), Skew: skew}
		for _, c := range ProfileColumns {
			row.Columns = append(row.Columns, cell(pre+c))
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteMarkdown writes docs/figures.md: every claim with its bound, measured worst, margin
// and runs; each held figure over the runs; the figures shown without a bound and why; the
// reference workloads' table.
func WriteMarkdown(w io.Writer) error {
	claims, err := Claims()
	if err != nil {
		return err
	}
	all, err := Runs("")
	if err != nil {
		return err
	}
	p := &printer{w: w}
	p.f("# Measured accuracy figures\n\n")
	p.f("Generated by `go test ./internal/figures -update` from the recorded runs (internal/figures/runs) and the\n")
	p.f("bounds (internal/figures/bounds.json); do not edit. Each bound is the worst figure measured over at least\n")
	p.f("%d runs on the Cassandra 5.0.9 dev node plus the margin stated beside it, rounded up; the node test holds the\n", MinRuns)
	p.f("tool to it, and the docs state it (TestDocsStateTheBounds fails when they differ). Record a run with\n")
	p.f("`CQLSIZE_RECORD_FIGURES=1` on the test's command (internal/figures/runs/README.md).\n\n")
	p.f("| claim | bound | measured worst | margin | runs | test |\n|---|---:|---:|---:|---:|---|\n")
	for _, c := range claims {
		runs := runsOf(all, c.Test)
		v, fig, _ := c.Worst(runs)
		bound, margin, cmd := c.Text(c.Bound, false), c.Text(c.Margin, false), c.Command()
		if c.Stated {
			bound, margin = "stated, not held", "-"
		}
		p.f("| %s | %s | %s (%s) | %s | %d | `%s` |\n", c.Name, bound, c.Text(v, true), fig, margin, len(runs), cmd)
	}
	p.f("\n")
	for _, c := range claims {
		if c.Stated {
			p.f("- **%s**: %s Measured and stated in docs/byte-model.md; no test holds it (%s).\n", c.Name, c.What, c.Package)
			continue
		}
		p.f("- **%s** (%s): %s Margin %s: %s.\n", c.Name, c.Text(c.Bound, false), c.What, c.Text(c.Margin, false), c.MarginWhy)
	}
	for _, test := range tests(claims) {
		p.test(test, claims, runsOf(all, test))
	}
	if rows := ModelTable(runsOf(all, "TestModelMatchesCassandra")); len(rows) > 0 {
		p.f("\n## The reference workloads (docs/byte-model.md's accuracy table)\n\n")
		p.f("The worst error of each over the runs; largest / typical partition where they differ.\n\n")
		p.f("| workload | model error | classic error |\n|---|---|---|\n")
		for _, r := range rows {
			p.f("| %s | %s | %s |\n", r.Workload, r.Model, r.Classic)
		}
	}
	for _, test := range profileTests(all) {
		runs := runsOf(all, test)
		p.f("\n## The profile tables of `make accuracy` (%s, docs/profile.md's profile tables)\n\n", test)
		p.f("The worst of %d runs (`CQLSIZE_RECORD_FIGURES=1 make accuracy ARGS=\"-only profile\"`); in parentheses where shown and not held.\n", len(runs))
		for _, mode := range []string{"sampled", "full"} {
			p.f("\n| table (%s) | rows p99 | skew fitted − loaded | typical | largest | on disk (profile vs Space used live) | estimate's Data.db |\n|---|---|---|---|---|---|---|\n", mode)
			for _, r := range ProfileTable(runs, mode) {
				p.f("| %s | %s | %+.2f | %s |\n", r.Table, r.RowsP99, r.Skew, strings.Join(r.Columns, " | "))
			}
		}
	}
	return p.err
}

// profileTests are the recorded runs of `make accuracy`'s profile part, one name a setting.
func profileTests(all []Run) []string {
	seen := map[string]bool{}
	for _, r := range all {
		if strings.HasPrefix(r.Test, "accuracy-profile-") {
			seen[r.Test] = true
		}
	}
	return sorted(seen)
}

// printer writes formatted text and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}

// test writes one test's runs: when and at what load, each held figure run by run with its
// claim, and the shown figures' ranges with the reason they are not held.
func (p *printer) test(test string, claims []Claim, runs []Run) {
	p.f("\n## %s\n\n", test)
	for i, r := range runs {
		p.f("- run %d: started %s, load average at its end %s\n", i+1, r.Started.Format("2006-01-02 15:04 UTC"), r.Load)
	}
	names := map[string]bool{}
	shown := map[string]bool{}
	for _, r := range runs {
		for n := range r.Figures {
			names[n] = true
		}
		for n := range r.Shown {
			shown[n] = true
		}
	}
	p.f("\n| figure | claim |")
	for i := range runs {
		p.f(" run %d |", i+1)
	}
	p.f("\n|---|---|%s\n", strings.Repeat("---:|", len(runs)))
	for _, n := range sorted(names) {
		c := claimOf(claims, n)
		p.f("| %s | %s |", n, c.Name)
		for _, r := range runs {
			if v, ok := r.Figures[n]; ok {
				p.f(" %s |", c.Text(v, true))
			} else {
				p.f(" - |")
			}
		}
		p.f("\n")
	}
	if len(shown) == 0 {
		return
	}
	p.f("\nShown, not held to a bound (the tool's output says so where the user sees it):\n\n| figure | range over the runs | why |\n|---|---|---|\n")
	for _, n := range sorted(shown) {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range runs {
			if v, ok := r.Shown[n]; ok {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		p.f("| %s | %s to %s | %s |\n", n, Percent(lo, true), Percent(hi, true), shownWhy(runs, n))
	}
}

func runsOf(all []Run, test string) []Run {
	var out []Run
	for _, r := range all {
		if r.Test == test {
			out = append(out, r)
		}
	}
	return out
}

// tests are the claims' tests, in the order they first appear.
func tests(claims []Claim) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range claims {
		if !seen[c.Test] {
			seen[c.Test] = true
			out = append(out, c.Test)
		}
	}
	return out
}

// claimOf is the first claim that covers the figure (a zero Claim when none does).
func claimOf(claims []Claim, figure string) Claim {
	for _, c := range claims {
		if c.Covers(figure) {
			return c
		}
	}
	return Claim{Name: "(none)"}
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
