package profile

import (
	"fmt"
	"math"
	"sort"
)

// SkewFit is how rows spread over the sampled partitions: a Zipf exponent fitted to rows per
// partition, or uniform, with the fit's goodness.
type SkewFit struct {
	Kind   string  `json:"kind"`           // "zipf" or "uniform"
	S      float64 `json:"s,omitempty"`    // the Zipf exponent (kind zipf)
	Fitted float64 `json:"fitted"`         // the exponent the regression found, even when it chose uniform
	R2     float64 `json:"r2"`             // goodness: R² of the log-log rank-size fit (1 is a perfect power law)
	Points int     `json:"points"`         // partitions the fit used
	Note   string  `json:"note,omitempty"` // why uniform, or what the fit left out

	// intercept of the regression, the sample size and whether it was a census, for Head.
	intercept float64
	n         int
	census    bool
}

// Head returns the rows of the busiest key (rank 1) of a table of partitions keys the fit
// implies, or 0 when the fit is not Zipf. The sample's r-th largest partition has the
// population rank K_(r) with K_(r)/N ~ Beta(r, n−r+1), so E[log K_(r)] = log N + ψ(r) −
// ψ(n+1), and the regression's intercept a gives log C = a + s·(log N − ψ(n+1)).
func (f SkewFit) Head(partitions float64) float64 {
	if f.Kind != "zipf" || f.n == 0 || !(partitions >= float64(f.n)) {
		return 0
	}
	if f.census {
		return math.Exp(f.intercept)
	}
	return math.Exp(f.intercept + f.Fitted*(math.Log(partitions)-digammaInt(f.n+1)))
}

// digammaInt is ψ(k) for a whole k ≥ 1: −γ + H(k−1), summed exactly up to 1e6 and by the
// asymptotic series beyond.
func digammaInt(k int) float64 {
	if k < 1 {
		return math.NaN()
	}
	if k > 1_000_000 {
		x := float64(k)
		return math.Log(x) - 1/(2*x) - 1/(12*x*x)
	}
	h := 0.0
	for j := k - 1; j >= 1; j-- {
		h += 1 / float64(j)
	}
	return h - eulerGamma
}

// Below these the fit calls the spread uniform: an exponent under minZipfS moves the largest
// of a million keys less than the sampling noise does, and an R² under minZipfR2 means the
// rank-size curve is not a power law (rows spread evenly over 1..10 fit one with R² 0.82;
// Zipf tables fit with 0.98 and more).
const (
	minZipfS    = 0.1
	minZipfR2   = 0.9
	minFitN     = 10
	fitFloorRow = 3 // values below are too coarse (1, 2 rows) to place on a log scale
)

// FitSkew fits key skew to the rows of sampled partitions by rank-size regression.
//
// Under Zipf(s) the partition of key rank k holds C·k^-s rows. Sampling n of N keys
// uniformly, the sample's r-th largest partition has a population rank K_(r) whose
// expectation of log is ψ(r) + log(N/n) (K_(r)·n/N is close to a Gamma(r) variable), so
// log rows = const − s·ψ(r): the slope of log rows on the digamma of the sample rank is −s,
// whatever N and n are, and the top ranks carry no bias from the noise of the few largest
// keys the sample happened to catch. Each rank is weighted by 1/ψ'(r), the inverse of that
// log's variance, so the noisy top ranks do not steer the slope. Partitions with fewer than fitFloorRow rows are left out
// when enough others remain: integer row counts of 1 or 2 flatten the tail.
//
// fraction is the share of the table's partitions the sample holds (the share of the token
// ring walked). A census (fraction ≥ 0.999: every partition read) has exact ranks, so the fit
// is the plain least squares of log rows on log r.
func FitSkew(rows []float64, fraction float64) SkewFit {
	census := fraction >= 0.999
	xs := make([]float64, 0, len(rows))
	for _, r := range rows {
		if r > 0 && !math.IsInf(r, 0) && !math.IsNaN(r) {
			xs = append(xs, r)
		}
	}
	if len(xs) < minFitN {
		return SkewFit{Kind: "uniform", Points: len(xs), Note: fmt.Sprintf("too few partitions (%d) to fit a skew", len(xs))}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(xs)))
	use := len(xs)
	note := ""
	if k := sort.Search(len(xs), func(i int) bool { return xs[i] < fitFloorRow }); k >= minFitN && k < len(xs) {
		use = k
		note = fmt.Sprintf("fitted on the %d partitions of %d rows or more", k, fitFloorRow)
	}
	var sw, sx, sy, sxx, sxy, syy float64
	h, h2 := 0.0, 0.0 // H(r-1) and Σ_{k<r} 1/k²
	for r := 1; r <= use; r++ {
		x := h - eulerGamma               // ψ(r)
		w := 1 / (math.Pi*math.Pi/6 - h2) // 1/ψ'(r): the variance of log K_(r)
		if census {
			x, w = math.Log(float64(r)), 1
		}
		y := math.Log(xs[r-1])
		sw, sx, sy, sxx, sxy, syy = sw+w, sx+w*x, sy+w*y, sxx+w*x*x, sxy+w*x*y, syy+w*y*y
		h += 1 / float64(r)
		h2 += 1 / float64(r*r)
	}
	vx, vy, cxy := sxx-sx*sx/sw, syy-sy*sy/sw, sxy-sx*sy/sw
	fit := SkewFit{Points: use, Note: note, n: len(xs), census: census}
	if vy <= 1e-12 || vx <= 0 {
		fit.Kind, fit.R2 = "uniform", 0
		fit.Note = "every sampled partition holds the same rows"
		return fit
	}
	slope := cxy / vx
	fit.intercept = (sy - slope*sx) / sw
	fit.Fitted = round3(-slope)
	fit.R2 = round3(cxy * cxy / (vx * vy))
	switch {
	case -slope < minZipfS:
		fit.Kind = "uniform"
		fit.Note = joinNote(note, fmt.Sprintf("fitted exponent %.3g is below %.1f", -slope, minZipfS))
	case fit.R2 < minZipfR2:
		fit.Kind = "uniform"
		fit.Note = joinNote(note, fmt.Sprintf("rows per partition do not follow a power law (R² %.2f)", fit.R2))
	default:
		fit.Kind, fit.S = "zipf", round3(-slope)
	}
	return fit
}

const eulerGamma = 0.5772156649015329

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
