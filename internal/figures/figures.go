// Package figures keeps the accuracy figures the node tests measure and the bounds they hold
// them to in one place, so that a bound is the measured worst plus a stated margin and the
// docs (README.md and the docs/ pages) say the same number:
//
//   - bounds.json lists the claims: which recorded figures each covers, the margin over
//     their measured worst, and the bound the tests enforce (Bound reads it).
//   - runs/<test>/*.json are the measured runs, written by the node tests themselves when
//     CQLSIZE_RECORD_FIGURES=1 (Record).
//   - docs/figures.md is generated from both (go test ./internal/figures -update), and the
//     package's tests fail when a bound is not the worst of at least MinRuns runs plus its
//     margin, when a held figure is covered by no claim, or when the docs state a figure
//     other than the bound.
package figures

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// MinRuns is how many recorded runs a bound rests on at least.
const MinRuns = 5

// EnvRecord, set to 1, makes the node tests write their run into runs/ (Record).
const EnvRecord = "CQLSIZE_RECORD_FIGURES"

//go:embed bounds.json
var boundsJSON []byte

//go:embed runs
var runsFS embed.FS

// Claim is one bound: the figures it covers, and how it was set.
type Claim struct {
	Name    string   `json:"name"`    // what a test asks Bound for
	Test    string   `json:"test"`    // the test that measures it, as `go test -run` names it
	Package string   `json:"package"` // the test's package, ./path
	Figures []string `json:"figures"` // path.Match patterns of the recorded figure names it covers
	// Abs: the figures are absolute differences (a Zipf exponent), not relative errors.
	Abs    bool    `json:"abs,omitempty"`
	Margin float64 `json:"margin"` // added to the measured worst
	// MarginWhy says why the margin is what it is (how much the figure moves between runs).
	MarginWhy string  `json:"margin_why"`
	Bound     float64 `json:"bound"` // the worst plus the margin, rounded up to Step
	What      string  `json:"what"`  // one sentence for docs/figures.md
	// Stated: a measured figure the docs state (the worst of the runs, {worst}) that no
	// test holds to a bound (a run too long for make test); Bound and Margin are 0.
	Stated bool `json:"stated,omitempty"`
	// Readme is the text the docs (README.md or a docs/ page) state the bound in, with {bound} for it; "" when the
	// docs do not state it.
	Readme []string `json:"readme,omitempty"`
}

// Step is the precision a bound is rounded up to: 0.1% of a relative error, 0.01 of an
// absolute one.
func (c Claim) Step() float64 {
	if c.Abs {
		return 0.01
	}
	return 0.001
}

// Command is how to measure the claim: its go test command, or for a stated figure the
// command Package names.
func (c Claim) Command() string {
	if c.Stated {
		return c.Package
	}
	return fmt.Sprintf("go test -run '^%s$' %s", c.Test, c.Package)
}

// Covers reports whether the recorded figure name is one of the claim's.
func (c Claim) Covers(name string) bool {
	for _, p := range c.Figures {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// Run is one measured run of a node test.
type Run struct {
	Test    string    `json:"test"`
	Started time.Time `json:"started"`
	// Load is /proc/loadavg when the run was recorded, at its end: the node shares its cores.
	Load string `json:"load,omitempty"`
	// Figures are held to a claim's bound; Shown are measured and shown, not held (each
	// with the reason the test gives for it in ShownWhy).
	Figures  map[string]float64 `json:"figures"`
	Shown    map[string]float64 `json:"shown,omitempty"`
	ShownWhy map[string]string  `json:"shown_why,omitempty"`
	File     string             `json:"-"`
}

// Claims returns bounds.json.
func Claims() ([]Claim, error) {
	var cs []Claim
	dec := json.NewDecoder(bytes.NewReader(boundsJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cs); err != nil {
		return nil, fmt.Errorf("internal/figures/bounds.json: %w", err)
	}
	return cs, nil
}

// Runs returns the recorded runs of test ("" for all), oldest first.
func Runs(test string) ([]Run, error) {
	var out []Run
	err := fs.WalkDir(runsFS, "runs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		b, err := runsFS.ReadFile(p)
		if err != nil {
			return err
		}
		var r Run
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return fmt.Errorf("internal/figures/%s: %w", p, err)
		}
		r.File = p
		if test == "" || r.Test == test {
			out = append(out, r)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, err
}

// Worst is the measured worst of the claim's figures over runs: the largest magnitude, with
// its sign, the figure and the run it came from.
func (c Claim) Worst(runs []Run) (v float64, figure string, run *Run) {
	for i := range runs {
		names := make([]string, 0, len(runs[i].Figures))
		for name := range runs[i].Figures {
			names = append(names, name)
		}
		sort.Strings(names) // of equal figures, the first by name and run, every time
		for _, name := range names {
			if x := runs[i].Figures[name]; c.Covers(name) && (run == nil || math.Abs(x) > math.Abs(v)) {
				v, figure, run = x, name, &runs[i]
			}
		}
	}
	return v, figure, run
}

// Spread is how far the runs moved the claim's figures: the largest difference between two
// runs' values of one figure.
func (c Claim) Spread(runs []Run) float64 {
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, r := range runs {
		for name, x := range r.Figures {
			if !c.Covers(name) {
				continue
			}
			if v, ok := lo[name]; !ok || x < v {
				lo[name] = x
			}
			if v, ok := hi[name]; !ok || x > v {
				hi[name] = x
			}
		}
	}
	var s float64
	for name := range lo {
		s = math.Max(s, hi[name]-lo[name])
	}
	return s
}

// WantMargin is the margin a bound adds to its worst: the runs' Spread rounded up to half a
// percent (0.01 of an absolute figure), and at least half a percent (0.02): what the figures
// moved between runs, so that a run like the recorded ones passes and a regression of more
// does not.
func (c Claim) WantMargin(runs []Run) float64 {
	step, least := 0.005, 0.005
	if c.Abs {
		step, least = 0.01, 0.02
	}
	return math.Max(least, math.Ceil(c.Spread(runs)/step-1e-6)*step)
}

// WantBound is the bound the runs and the margin give: the worst magnitude plus the margin,
// rounded up to Step.
func (c Claim) WantBound(runs []Run) float64 {
	v, _, _ := c.Worst(runs)
	step := c.Step()
	return math.Ceil((math.Abs(v)+c.Margin)/step-1e-6) * step
}

// Lookup returns the named claim.
func Lookup(name string) (Claim, error) {
	cs, err := Claims()
	if err != nil {
		return Claim{}, err
	}
	for _, c := range cs {
		if c.Name == name {
			return c, nil
		}
	}
	return Claim{}, fmt.Errorf("internal/figures/bounds.json has no claim %q", name)
}

// Bound returns the bound of the named claim, failing t when bounds.json has none.
func Bound(t testing.TB, name string) float64 {
	t.Helper()
	c, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c.Bound
}

// MustBound is Bound for a package variable: bounds.json is compiled in, so a missing claim
// is a build mistake that TestClaimsAreMeasured names, and it panics.
func MustBound(name string) float64 {
	c, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return c.Bound
}

// Recording reports whether this run is to be recorded (CQLSIZE_RECORD_FIGURES=1): a run is
// recorded on purpose, to measure.
func Recording() bool { return os.Getenv(EnvRecord) == "1" }

// Record writes the run of t into internal/figures/runs/<test>/ when Recording: held are
// the figures its bounds cover, shown those it shows without a bound (shownWhy says why).
func Record(t testing.TB, started time.Time, held, shown map[string]float64, shownWhy map[string]string) {
	t.Helper()
	if !Recording() {
		return
	}
	p, err := Save(Run{Test: strings.SplitN(t.Name(), "/", 2)[0], Started: started, Figures: held, Shown: shown, ShownWhy: shownWhy})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded this run's figures in %s", p)
}

// Save writes r, with the load average now, as internal/figures/runs/<r.Test>/<started>.json
// in the module above the working directory, and returns the file's path.
func Save(r Run) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("record figures: %w", err)
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(load)); len(f) >= 3 {
			r.Load = strings.Join(f[:3], " ")
		}
	}
	r.Started = r.Started.UTC().Truncate(time.Second)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", fmt.Errorf("record figures: %w", err)
	}
	dir := filepath.Join(root, "internal", "figures", "runs", r.Test)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("record figures: %w", err)
	}
	p := filepath.Join(dir, r.Started.Format("20060102T150405Z")+".json")
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("record figures: %w", err)
	}
	return p, nil
}

// moduleRoot is the directory of the module's go.mod above the working directory.
func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/cqlsize/cqlsize\n")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod of github.com/cqlsize/cqlsize above the working directory")
		}
		d = parent
	}
}
