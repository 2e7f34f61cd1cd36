package workload

import (
	"math"
	"testing"
)

// TestCappedMeanMatchesSum checks the closed form of the truncated mean against a direct sum.
func TestCappedMeanMatchesSum(t *testing.T) {
	for _, c := range []struct{ n, s, limit float64 }{{1000, 1.1, 20}, {1000, 0.8, 3}, {5000, 1.5, 100}, {100, 1.1, 0.5}} {
		z := Skew{Kind: Zipf, S: c.s}
		var sum float64
		for k := 1.0; k <= c.n; k++ {
			sum += math.Min(z.Activity(c.n, k), c.limit)
		}
		if got, want := z.CappedMean(c.n, c.limit), sum/c.n; math.Abs(got-want) > 1e-9 {
			t.Errorf("n=%v s=%v limit=%v: CappedMean %v, sum %v", c.n, c.s, c.limit, got, want)
		}
	}
}

func TestHarmonic(t *testing.T) {
	exact := func(n int, s float64) float64 {
		var h float64
		for k := n; k >= 1; k-- {
			h += math.Pow(float64(k), -s)
		}
		return h
	}
	for _, s := range []float64{0.5, 0.9, 1, 1.1, 1.5, 2} {
		for _, n := range []int{1, 2, 10, 64, 65, 100, 1000, 12345, 1000000} {
			got, want := harmonic(float64(n), s), exact(n, s)
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("harmonic(%d, %g) = %.12g, want %.12g", n, s, got, want)
			}
		}
	}
	// A billion keys: H(1e9, 1) = ln(1e9) + γ + 1/(2e9) - ...
	if got, want := harmonic(1e9, 1), math.Log(1e9)+0.5772156649015329+0.5e-9; math.Abs(got-want) > 1e-9 {
		t.Errorf("harmonic(1e9, 1) = %.12g, want %.12g", got, want)
	}
	// Activities average to 1 over the keys.
	z := Skew{Kind: Zipf, S: 1.1}
	var sum float64
	for k := 1; k <= 1000; k++ {
		sum += z.Activity(1000, float64(k))
	}
	if math.Abs(sum-1000) > 1e-6 {
		t.Errorf("activities sum to %v over 1000 keys, want 1000", sum)
	}
	if a := (Skew{}).Activity(1000, 1); a != 1 {
		t.Errorf("uniform activity %v", a)
	}
}

func BenchmarkHarmonicBillion(b *testing.B) {
	for i := 0; i < b.N; i++ {
		harmonic(1e9, 1.1)
	}
}
