package accuracy

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/profile"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// check builds a ProfileCheck of a table whose truth is 1,000-byte typical and 100,000-byte
// largest partitions, p99 of 50 rows, 1 MB on disk; got scales every prediction.
func check(skew float64, full bool, got float64, fitted float64, predicted bool) ProfileCheck {
	var rows []int
	for i := 0; i < 100; i++ {
		rows = append(rows, 50)
	}
	c := ProfileCheck{
		Loaded: Loaded{Table: ProfileTable{Reference: Reference{Name: "t"}, Skew: skew}, Rows: rows},
		Truth:  &Truth{Partitions: 100, Typical: 1000, Largest: 100000, Max: 120000, SpaceUsedLive: 1e6, DataDiskBytes: 9e5},
		Profile: &profile.Table{Name: "t", PartitionsSeen: 50,
			Disk: profile.Disk{Predicted: predicted, Total: 1e6 * got, Note: "no sample"}},
		Workload: &workload.TableWorkload{Name: "t", CompressionRatio: 0.9},
		Estimate: &sizing.Estimate{Typical: sizing.Partition{Bytes: 1000 * got}, Largest: sizing.Partition{Bytes: 100000 * got},
			P99: sizing.Partition{Rows: 50 * got}, TotalBytes: 1e6 * got, Keys: 100, Partitions: 100},
		Full: full,
	}
	if fitted > 0 {
		c.Workload.Skew = workload.Skew{Kind: workload.Zipf, S: fitted}
	}
	return c
}

// heldBounds is the bound each held figure of a uniform table answers to, as the README
// states them (internal/figures): a prediction off by more than its bound is a miss.
var heldBounds = []struct {
	name  string
	bound *float64
}{
	{"typical partition", &PartitionBound}, {"largest partition (busiest key)", &PartitionBound},
	{"rows/partition p99", &RowsP99Bound}, {"on disk (Space used live)", &DiskBound}, {"estimate on disk (Data.db)", &DiskBound},
}

// missedAt lists the held figures a uniform table misses when every prediction is off by
// the factor got.
func missedAt(got float64) []string {
	var out []string
	for _, h := range heldBounds {
		if math.Abs(got-1) > *h.bound+1e-9 {
			out = append(out, h.name)
		}
	}
	return out
}

func TestFigures(t *testing.T) {
	type tc struct {
		name   string
		c      ProfileCheck
		missed []string // figures over their bound
	}
	cases := []tc{{"uniform, exact", check(0, false, 1, 0, true), nil}}
	// Just inside and just outside each bound, both ways.
	for _, b := range []float64{PartitionBound, RowsP99Bound, DiskBound} {
		for _, got := range []float64{1 + b - 0.002, 1 + b + 0.002, 1 - b - 0.002} {
			cases = append(cases, tc{fmt.Sprintf("uniform, %+.1f%% off", 100*(got-1)), check(0, false, got, 0, true), missedAt(got)})
		}
	}
	off := 1 + 2*max(PartitionBound, RowsP99Bound, DiskBound) // off by more than any bound
	cases = append(cases, []tc{
		{"uniform read as zipf", check(0, false, 1, 0.3, true), []string{"skew"}},
		{"sampled zipf, sizes off, exponent close", check(1.1, false, off, 1.1+SkewBound/2, true), nil},
		{"sampled zipf, exponent off", check(1.1, false, 1, 1.1-SkewBound-0.01, true), []string{"skew"}},
		{"full zipf, sizes off", check(1.1, true, off, 1.1, true), missedAt(off)},
		{"zipf read as uniform", check(0.8, true, 1, 0, true), []string{"skew"}},
		{"no disk prediction", check(0, false, 1, 0, false), nil},
		{"bucketed, estimate projects more buckets", func() ProfileCheck {
			c := check(0, false, 1, 0, true)
			c.Estimate.Partitions, c.Estimate.TotalBytes = 36500, 365e6
			return c
		}(), nil},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var missed []string
			figs := c.c.Figures()
			for _, f := range figs {
				if !f.OK() {
					missed = append(missed, f.Name)
				}
			}
			if strings.Join(missed, ",") != strings.Join(c.missed, ",") {
				t.Errorf("missed %q, want %q", missed, c.missed)
			}
			if figs[FigMax].Shown == "" {
				t.Error("the single largest partition is held to a bound")
			}
			if !c.c.Profile.Disk.Predicted && (figs[FigDisk].Skip == "" || !strings.Contains(figs[FigDisk].Skip, "no sample")) {
				t.Errorf("no prediction: disk figure %+v", figs[FigDisk])
			}
		})
	}
}

func TestWriteProfileTableAndMillion(t *testing.T) {
	// The second table is off by more than any bound: its typical, largest, rows p99 and
	// estimate's Data.db miss (its disk is not predicted, so not compared).
	off := 1 + max(PartitionBound, RowsP99Bound, DiskBound) + 0.01
	run := &ProfileRun{Result: &profile.Result{Rows: 123, RateAchieved: 45}, Sample: 500,
		Tables: []ProfileCheck{check(1.1, false, 1.3, 1.1+SkewBound/2, true), check(0, false, off, 0, false)}}
	var b strings.Builder
	if err := WriteProfileTable(&b, run); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"(+30.0%)", fmt.Sprintf("%+.1f%% !", 100*(off-1)), "4 figures over their bound", "sampled (--sample 500)", "not compared: the profile predicted no disk size: no sample"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	b.Reset()
	m := &MillionRun{Rows: 1000000, Partitions: 10000, Rate: 5000, Sample: 1000, RowsRead: 100000, RateAchieved: 4900,
		Before: LatencySample{Label: "before", Reads: 750, Span: 15 * time.Second, ClientP50: time.Millisecond, CoordReadP99: 50},
		During: LatencySample{Label: "during profile", Reads: 1000, Span: 20 * time.Second}}
	if err := WriteMillion(&b, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1000000 rows in 10000 partitions", "--rate 5000", "50.0 (0 errors)", "1.00 ms", "0/50"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

func TestParseProxyHistograms(t *testing.T) {
	out := `proxy histograms
Percentile       Read Latency      Write Latency      Range Latency   CAS Read Latency  CAS Write Latency View Write Latency
                     (micros)           (micros)           (micros)           (micros)           (micros)           (micros)
50%                    215.00              42.00             642.00            1109.00            1109.00               0.00
99%                   6866.00            8239.00           29521.00            3973.00           14237.00               0.00
Max                 263210.00          219342.00          126934.00            3973.00           24601.00               0.00
`
	h, err := parseProxyHistograms(out)
	if err != nil {
		t.Fatal(err)
	}
	if h["50%"][0] != 215 || h["99%"][2] != 29521 || h["Max"][0] != 263210 {
		t.Errorf("parseProxyHistograms = %v", h)
	}
	if _, err := parseProxyHistograms("nothing"); err == nil {
		t.Error("no percentile lines: no error")
	}
}
