package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	chartW, chartH                       = 560, 280
	padLeft, padRight, padTop, padBottom = 70, 18, 34, 44
)

const (
	colorTypical = "#2563eb"
	colorLargest = "#ea580c"
	colorLimit   = "#dc2626"
	colorGrid    = "#e5e7eb"
	colorAxis    = "#6b7280"
)

// series is one line of a chart.
type series struct {
	name   string
	color  string
	dashed bool
	xs, ys []float64
}

// logScale maps values to a log10 axis spanning whole decades.
type logScale struct{ lo, hi float64 }

func newLogScale(values []float64) logScale {
	maxV, minV := 0.0, math.Inf(1)
	for _, v := range values {
		if v > 0 {
			maxV = math.Max(maxV, v)
			minV = math.Min(minV, v)
		}
	}
	if maxV == 0 {
		return logScale{1, 10}
	}
	hi := math.Pow(10, math.Ceil(math.Log10(maxV*1.15)))
	lo := math.Pow(10, math.Floor(math.Log10(minV)))
	if hi/lo > 1e7 { // keep the chart readable: at most seven decades
		lo = hi / 1e7
	}
	if lo == hi {
		lo = hi / 10
	}
	return logScale{lo, hi}
}

// y maps v to a fraction of the plot height from the bottom (values under lo sit on the axis).
func (s logScale) y(v float64) float64 {
	if v <= s.lo {
		return 0
	}
	return (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
}

// lineChart draws series over x in [0, xMax] on a log y axis, with a horizontal limit line; the
// x axis is ticked at round durations (tickStep).
func lineChart(title string, ss []series, xMax float64, limit float64, limitLabel string, yFmt func(float64) string) string {
	return lineChartW(chartW, title, ss, xMax, limit, limitLabel, yFmt)
}

// lineChartW is lineChart w user units wide (a page-wide chart draws wider rather than
// scaling its text up).
func lineChartW(w int, title string, ss []series, xMax float64, limit float64, limitLabel string, yFmt func(float64) string) string {
	var all []float64
	for _, s := range ss {
		all = append(all, s.ys...)
	}
	if limit > 0 {
		all = append(all, limit)
	}
	sc := newLogScale(all)
	if limit > 0 && sc.lo > limit/10 {
		sc.lo = math.Pow(10, math.Floor(math.Log10(limit/10))) // keep the limit off the bottom edge
	}
	pw, ph := float64(w-padLeft-padRight), float64(chartH-padTop-padBottom)
	px := func(x float64) float64 {
		if xMax <= 0 {
			return padLeft
		}
		return padLeft + pw*x/xMax
	}
	py := func(v float64) float64 { return padTop + ph*(1-sc.y(v)) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		w, chartH, w, chartH, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="20" class="ct">%s</text>`, padLeft, html.EscapeString(title))
	// Decade grid lines and labels.
	for d := sc.lo; d <= sc.hi*1.0001; d *= 10 {
		y := py(d)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`, padLeft, y, w-padRight, y, colorGrid)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="yl">%s</text>`, padLeft-6, y+4, html.EscapeString(yFmt(d)))
	}
	// X axis: ticks at a round step (12h, 1d, 7d, ...), not at fifths of the span.
	base := float64(chartH - padBottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`, padLeft, base, w-padRight, base, colorAxis)
	step := tickStep(xMax, 6)
	for i := 0; float64(i)*step <= xMax*(1+1e-9); i++ {
		x := float64(i) * step
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="xl">%s</text>`, px(x), base+16, html.EscapeString(Duration(Num(x))))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="xt">partition age</text>`, padLeft+pw/2, chartH-6)
	// The limit.
	if limit > 0 {
		y := py(limit)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`,
			padLeft, y, w-padRight, y, colorLimit)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="ll">%s</text>`, w-padRight-4, y-5, html.EscapeString(limitLabel))
	}
	// The series.
	for _, s := range ss {
		if len(s.xs) == 0 {
			continue
		}
		var pts []string
		for i := range s.xs {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.xs[i]), py(s.ys[i])))
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="2 3"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>`, strings.Join(pts, " "), s.color, dash)
		last := len(s.xs) - 1
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s: %s</title></circle>`,
			px(s.xs[last]), py(s.ys[last]), s.color, html.EscapeString(s.name), html.EscapeString(yFmt(s.ys[last])))
	}
	// Legend, right-aligned on the title line.
	lx := w - padRight
	for i := len(ss) - 1; i >= 0; i-- {
		s := ss[i]
		lx -= 18 + 6*len(s.name)
		fmt.Fprintf(&b, `<rect x="%d" y="30" width="14" height="3" fill="%s"/><text x="%d" y="35" class="lg">%s</text>`,
			lx, s.color, lx+18, html.EscapeString(s.name))
		lx -= 14
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// barChart draws horizontal bars (log x axis) against a limit: for a table whose workload
// gives a row count rather than a rate, so there is no growth over time to draw.
func barChart(title string, labels []string, values []float64, limit float64, limitLabel string, xFmt func(float64) string) string {
	all := append(append([]float64{}, values...), limit)
	sc := newLogScale(all)
	if limit > 0 && sc.lo > limit/10 {
		sc.lo = math.Pow(10, math.Floor(math.Log10(limit/10)))
	}
	const h = 200
	pw := float64(chartW - padLeft - padRight)
	px := func(v float64) float64 { return float64(padLeft) + pw*sc.y(v) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		chartW, h, chartW, h, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="20" class="ct">%s</text>`, padLeft, html.EscapeString(title))
	for d := sc.lo; d <= sc.hi*1.0001; d *= 10 {
		x := px(d)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="34" x2="%.1f" y2="%d" stroke="%s"/>`, x, x, h-30, colorGrid)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="xl">%s</text>`, x, h-14, html.EscapeString(xFmt(d)))
	}
	colors := []string{colorTypical, "#7c3aed", colorLargest}
	for i, v := range values {
		y := 44 + i*38
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="yl">%s</text>`, padLeft-6, y+17, html.EscapeString(labels[i]))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="24" rx="3" fill="%s"><title>%s: %s</title></rect>`,
			padLeft, y, math.Max(2, px(v)-padLeft), colors[i%len(colors)], html.EscapeString(labels[i]), html.EscapeString(xFmt(v)))
	}
	if limit > 0 {
		x := px(limit)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="34" x2="%.1f" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`, x, x, h-30, colorLimit)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="ll">%s</text>`, x-4, 32, html.EscapeString(limitLabel))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// tombstoneGauge draws tombstones per read against the warn and fail thresholds.
func tombstoneGauge(perRead, largest, peak float64, warn, fail int) string {
	labels := []string{"typical partition", "largest partition", "typical, worst age"}
	values := []float64{perRead, largest, peak}
	all := append(append([]float64{}, values...), float64(warn))
	if fail > 0 {
		all = append(all, float64(fail))
	}
	// Start the axis at 1 so a read with no tombstones shows as no bar.
	sc := newLogScale(append(all, 1))
	sc.lo = 1
	const w, h = 560, 180
	pw := float64(w - 150 - 40)
	px := func(v float64) float64 { return 150 + pw*sc.y(v) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="tombstones per read">`, w, h, w, h)
	b.WriteString(`<text x="150" y="16" class="ct">Tombstones a read counts</text>`)
	for d := sc.lo; d <= sc.hi*1.0001; d *= 10 {
		x := px(d)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="38" x2="%.1f" y2="%d" stroke="%s"/>`, x, x, h-26, colorGrid)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="xl">%s</text>`, x, h-10, html.EscapeString(Count(Num(d))))
	}
	for i, v := range values {
		y := 44 + i*34
		color := "#16a34a"
		switch {
		case fail > 0 && v > float64(fail):
			color = colorLimit
		case v > float64(warn):
			color = "#d97706"
		}
		fmt.Fprintf(&b, `<text x="144" y="%d" class="yl">%s</text>`, y+16, labels[i])
		fmt.Fprintf(&b, `<rect x="150" y="%d" width="%.1f" height="22" rx="3" fill="%s"><title>%s: %s</title></rect>`,
			y, math.Max(0, px(math.Max(v, 1))-150), color, labels[i], html.EscapeString(Count(Num(v))))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="bl">%s</text>`, px(math.Max(v, 1))+6, y+16, html.EscapeString(Count(Num(v))))
	}
	for _, th := range []struct {
		v     int
		label string
	}{{warn, "warn"}, {fail, "fail"}} {
		if th.v <= 0 {
			continue
		}
		x := px(float64(th.v))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="38" x2="%.1f" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`, x, x, h-26, colorLimit)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="ll">%s %s</text>`, x+28, 34, th.label, html.EscapeString(Count(Num(float64(th.v)))))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// tickSteps are the round durations an axis is ticked at, in seconds: a minute up to a decade.
var tickSteps = []float64{1, 5, 10, 30, 60, 300, 600, 1800, 3600, 2 * 3600, 6 * 3600, 12 * 3600,
	86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 182 * 86400,
	365.2425 * 86400, 2 * 365.2425 * 86400, 5 * 365.2425 * 86400, 10 * 365.2425 * 86400}

// tickStep is the smallest round step that puts at most most+1 ticks on [0, xMax] seconds.
func tickStep(xMax float64, most int) float64 {
	for _, s := range tickSteps {
		if xMax/s <= float64(most) {
			return s
		}
	}
	return math.Max(1, xMax/float64(most))
}
