package profile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cqlsize/cqlsize/workload"
)

// zipfRows is a synthetic table of n keys whose key of rank k holds round(c·k^-s) rows (at
// least one), the shape a loader writing Zipf-distributed rows leaves.
func zipfRows(n int, c, s float64) []float64 {
	rows := make([]float64, n)
	for k := 1; k <= n; k++ {
		rows[k-1] = math.Max(1, math.Round(c*math.Pow(float64(k), -s)))
	}
	return rows
}

// sample draws m of rows without replacement.
func sample(rng *rand.Rand, rows []float64, m int) []float64 {
	p := rng.Perm(len(rows))[:m]
	out := make([]float64, m)
	for i, j := range p {
		out[i] = rows[j]
	}
	return out
}

func TestFitSkewRecoversZipf(t *testing.T) {
	for _, tc := range []struct {
		keys, sample int
		c, s         float64
	}{
		// Sampled: 1,000 of 10,000 keys, the smallest partition holding 3 rows, so the
		// whole sample lies on the power law (a floor of 1 row flattens the tail: the fit
		// then uses only the partitions of 3 rows or more, and needs a few hundred of them).
		{10000, 1000, 3 * math.Pow(10000, 0.6), 0.6},
		{10000, 1000, 3 * math.Pow(10000, 0.8), 0.8},
		{10000, 1000, 3 * math.Pow(10000, 1.0), 1.0},
		{10000, 1000, 3 * math.Pow(10000, 1.2), 1.2},
		{10000, 1000, 3 * math.Pow(10000, 1.5), 1.5},
		{100000, 1000, 1e6, 1.1}, // a tail of 1-row partitions below rank ~300,000
		{2000, 2000, 2000, 1.0},  // the whole table read (--full)
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			rng := rand.New(rand.NewPCG(seed, 7))
			fit := FitSkew(sample(rng, zipfRows(tc.keys, tc.c, tc.s), tc.sample), float64(tc.sample)/float64(tc.keys))
			t.Logf("keys %d sample %d s %.1f seed %d: %+v", tc.keys, tc.sample, tc.s, seed, fit)
			if fit.Kind != "zipf" || math.Abs(fit.S-tc.s) > 0.1 {
				t.Errorf("keys %d, s %.1f, seed %d: got %s %.3f (R² %.3f), want zipf within 0.1", tc.keys, tc.s, seed, fit.Kind, fit.S, fit.R2)
			}
		}
	}
}

func TestFitSkewUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		rows []float64
	}{
		{"constant", func() []float64 {
			r := make([]float64, 500)
			for i := range r {
				r[i] = 40
			}
			return r
		}()},
		{"40 ± 10%", func() []float64 {
			r := make([]float64, 1000)
			for i := range r {
				r[i] = math.Round(40 * (0.9 + 0.2*rng.Float64()))
			}
			return r
		}()},
		{"too few", []float64{1, 100, 1000}},
	} {
		fit := FitSkew(tc.rows, 0.5)
		if fit.Kind != "uniform" {
			t.Errorf("%s: got %+v, want uniform", tc.name, fit)
		}
		if fit.Note == "" {
			t.Errorf("%s: uniform without a note saying why", tc.name)
		}
	}
}

// Quantile ranks as sizing does: p99 of 1,000 values is the 10th largest (rank ⌈n/100⌉).
func TestQuantileRanksAsSizing(t *testing.T) {
	s := make([]float64, 1000)
	for i := range s {
		s[i] = float64(i + 1)
	}
	for _, tc := range []struct{ q, want float64 }{{0.5, 501}, {0.99, 991}, {0.999, 1000}, {1, 1000}, {0, 1}} {
		if got := Quantile(s, tc.q); got != tc.want {
			t.Errorf("Quantile(1..1000, %v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if Quantile(nil, 0.5) != 0 {
		t.Error("Quantile of nothing is not 0")
	}
	d := Summarize([]float64{1, 2, 3, 4})
	if d.N != 4 || d.Mean != 2.5 || d.Min != 1 || d.Max != 4 || math.Abs(d.Std-1.2909944) > 1e-6 {
		t.Errorf("Summarize(1..4) = %+v", d)
	}
}

// TestMeanRowsFromFit holds the workload's mean rows to what it is for: the estimate's
// typical partition (mean × the activity of rank N/2) against the table's real median, over
// 40 walks of two skewed tables sampled at 46% and 32%. The Zipf fit's mean must be within 8%
// rms, and closer than the sample's own mean.
func TestMeanRowsFromFit(t *testing.T) {
	for _, tc := range []struct {
		keys    int
		s, mean float64
		frac    float64
	}{{2000, 1.1, 40, 0.46}, {3000, 0.8, 20, 0.32}} {
		n := float64(tc.keys)
		sk := workload.Skew{Kind: workload.Zipf, S: tc.s}
		rows := zipfRows(tc.keys, tc.mean*sk.Activity(n, 1), tc.s)
		truth := rows[tc.keys/2-1]
		var fitErr, meanErr float64
		const walks = 40
		for seed := uint64(0); seed < walks; seed++ {
			xs := sample(rand.New(rand.NewPCG(seed, 9)), rows, int(n*tc.frac))
			tb := &Table{PartitionsSeen: len(xs), RowsPerPartition: Summarize(xs), Skew: FitSkew(xs, tc.frac), Partitions: n, RingFraction: tc.frac}
			meanRows(tb)
			typical := func(mean float64) float64 {
				return mean * workload.Skew{Kind: workload.Zipf, S: tb.Skew.Fitted}.Activity(n, math.Ceil(n/2))
			}
			e1, e2 := typical(tb.MeanRows)/truth-1, typical(tb.RowsPerPartition.Mean)/truth-1
			fitErr += e1 * e1 / walks
			meanErr += e2 * e2 / walks
		}
		fitErr, meanErr = math.Sqrt(fitErr), math.Sqrt(meanErr)
		t.Logf("%d keys, zipf %.1f, %.0f%% sampled: typical partition rms error %.1f%% from the fit's mean, %.1f%% from the sample's", tc.keys, tc.s, 100*tc.frac, 100*fitErr, 100*meanErr)
		if fitErr > 0.08 || fitErr >= meanErr {
			t.Errorf("%d keys, zipf %.1f: the fit's mean puts the typical partition %.1f%% off (rms), the sample's %.1f%%", tc.keys, tc.s, 100*fitErr, 100*meanErr)
		}
	}
}

// Rows spread evenly over 1..10 a partition (a loader writing k%10+1 rows) fit a power law
// with R² 0.82: not Zipf.
func TestFitSkewEvenSpreadIsUniform(t *testing.T) {
	rows := make([]float64, 200)
	for k := range rows {
		rows[k] = float64(k%10 + 1)
	}
	if fit := FitSkew(rows, 0.5); fit.Kind != "uniform" {
		t.Errorf("rows 1..10 evenly: %+v, want uniform", fit)
	}
}
