package accuracy

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteProfileTable prints the profile check: per table, the truth (what was loaded and what
// sstablepartitions and tablestats report), what the profile measured and what estimate
// predicts from its workload file, with each error and a mark where a bound is missed.
func WriteProfileTable(w io.Writer, run *ProfileRun) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "table\tpartitions true/profile\trows p99 loaded/profile/estimate\tskew loaded/fitted (R²)\t"+
		"typical true/estimate\tlargest (busiest key) true/estimate\tlargest single\ton disk live/profile\tData.db true/estimate\tmean partition on disk true/profile\t")
	for _, c := range run.Tables {
		f := c.Figures()
		p := c.Profile
		skew := fmt.Sprintf("%s/%s (%.2f)", skewName(c.Loaded.Table.Skew), skewName(f[FigSkew].Got), p.Skew.R2)
		perDisk := "-"
		if p.Disk.Predicted {
			mean := float64(c.Truth.DataDiskBytes) / float64(c.Truth.Partitions)
			perDisk = fmt.Sprintf("%.0f/%.0f %s", mean, p.Disk.PerPartition, pct(rel(p.Disk.PerPartition, mean)))
		}
		fmt.Fprintf(tw, "%s\t%d/%.0f\t%.0f/%.0f/%.0f %s\t%s %s\t%.0f/%.0f %s\t%.0f/%.0f %s\t%.0f %s\t%d/%.0f %s\t%d/%.0f %s\t%s\t\n",
			c.Loaded.Table.Name, c.Truth.Partitions, p.Partitions,
			c.Loaded.RowsP99(), p.RowsPerPartition.P99, c.Estimate.P99.Rows, mark(f[FigRowsP99]),
			skew, mark(f[FigSkew]),
			f[FigTypical].Truth, f[FigTypical].Got, mark(f[FigTypical]),
			f[FigLargest].Truth, f[FigLargest].Got, mark(f[FigLargest]),
			f[FigMax].Truth, mark(f[FigMax]),
			c.Truth.SpaceUsedLive, f[FigDisk].Got, mark(f[FigDisk]),
			c.Truth.DataDiskBytes, f[FigEstimateDisk].Got, mark(f[FigEstimateDisk]),
			perDisk)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	missed := 0
	for _, c := range run.Tables {
		for _, f := range c.Figures() {
			if !f.OK() {
				missed++
			}
		}
	}
	for _, c := range run.Tables {
		for _, f := range c.Figures() {
			if f.Skip != "" {
				fmt.Fprintf(w, "%s: %s not compared: %s\n", c.Loaded.Table.Name, f.Name, f.Skip)
			}
		}
	}
	mode := fmt.Sprintf("sampled (--sample %d)", run.Sample)
	if run.Full {
		mode = "read whole (--full)"
	}
	r := run.Result
	_, err := fmt.Fprintf(w, "\nprofile %s; errors in parentheses are shown, not held to a bound (a sampled Zipf table: accuracy.SampledZipf; the single largest partition); ! marks a miss.\n", mode)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%d tables, %d figures over their bound (partitions %.1f%%, rows p99 %.1f%%, skew ±%.2f, disk %.1f%%); "+
		"profile read %d rows in %s (%.0f rows/s, rate set %s)%s\n",
		len(run.Tables), missed, 100*PartitionBound, 100*RowsP99Bound, SkewBound, 100*DiskBound,
		r.Rows, run.ProfileTook.Round(10*time.Millisecond), r.RateAchieved, rateSet(r.RateSet), partial(r.Partial, r.Problems))
	return err
}

// mark is a figure's error, with " !" where it misses its bound.
func mark(f Figure) string {
	if f.Skip != "" {
		return "(n/a)"
	}
	s := pct(f.Err())
	if f.Abs {
		s = fmt.Sprintf("%+.2f", f.Err())
	}
	switch {
	case f.Shown != "":
		s = "(" + s + ")"
	case !f.OK():
		s += " !"
	}
	return s
}

func skewName(s float64) string {
	if s == 0 {
		return "uniform"
	}
	return fmt.Sprintf("%.2f", s)
}

func rateSet(r float64) string {
	if r <= 0 {
		return "none"
	}
	return fmt.Sprintf("%.0f rows/s", r)
}

func partial(p bool, problems []string) string {
	if !p {
		return ""
	}
	return "; PARTIAL: " + strings.Join(problems, "; ")
}

// LatencySample is the node's read latency over a span: what a steady probe of
// single-partition reads saw from the client, and the coordinator's own figures
// (nodetool proxyhistograms, node-wide, microseconds).
type LatencySample struct {
	Label                      string
	Span                       time.Duration
	Reads, Errors              int
	ClientP50, ClientP99       time.Duration
	ClientMax                  time.Duration
	CoordReadP50, CoordReadP99 float64 // µs: single-partition reads
	CoordScanP50, CoordScanP99 float64 // µs: range reads (the profile's token-range walk)
}

// MillionRun is the 1M-row run: how long loading and profiling took and the node's read
// latency before and during the profile.
type MillionRun struct {
	Rows           int
	Partitions     int
	LoadTook       time.Duration
	Rate           float64
	Sample         int
	ProfileTook    time.Duration
	RowsRead       int64
	RateAchieved   float64
	Before, During LatencySample
}

// WriteMillion prints the 1M-row run.
func WriteMillion(w io.Writer, m *MillionRun) error {
	fmt.Fprintf(w, "\n1M-row run: %d rows in %d partitions loaded, flushed and compacted in %s\n", m.Rows, m.Partitions, m.LoadTook.Round(time.Second))
	fmt.Fprintf(w, "profile --sample %d --rate %.0f: %s, %d rows read (%.0f rows/s achieved)\n",
		m.Sample, m.Rate, m.ProfileTook.Round(100*time.Millisecond), m.RowsRead, m.RateAchieved)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "read latency\tspan\tprobe reads/s\tclient p50\tclient p99\tclient max\tcoordinator read p50/p99 µs\tcoordinator range p50/p99 µs\t")
	for _, l := range []LatencySample{m.Before, m.During} {
		fmt.Fprintf(tw, "%s\t%s\t%.1f (%d errors)\t%s\t%s\t%s\t%.0f/%.0f\t%.0f/%.0f\t\n", l.Label, l.Span.Round(100*time.Millisecond),
			float64(l.Reads)/l.Span.Seconds(), l.Errors,
			ms(l.ClientP50), ms(l.ClientP99), ms(l.ClientMax), l.CoordReadP50, l.CoordReadP99, l.CoordScanP50, l.CoordScanP99)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "(client: a steady probe of single-partition reads, LIMIT 10, at ONE, from this machine; coordinator: nodetool proxyhistograms right after each span, node-wide, Cassandra's decaying histograms)")
	return err
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// ProfileFigures are the runs' figures as internal/figures records them,
// "profile/MODE/TABLE/KEY" (MODE sampled or full): held, those compared to a bound; shown,
// those shown without one, with why. A figure that cannot be compared is left out.
func ProfileFigures(runs ...*ProfileRun) (held, shown map[string]float64, why map[string]string) {
	held, shown, why = map[string]float64{}, map[string]float64{}, map[string]string{}
	for _, run := range runs {
		mode := "sampled"
		if run.Full {
			mode = "full"
		}
		for _, c := range run.Tables {
			sortFigures("profile/"+mode+"/"+c.Loaded.Table.Name+"/", c.Figures(), held, shown, why)
		}
	}
	return held, shown, why
}

// sortFigures files figs under prefix + their key: held, those compared to a bound; shown,
// those shown without one, with why; one that cannot be compared is left out.
func sortFigures(prefix string, figs []Figure, held, shown map[string]float64, why map[string]string) {
	for _, f := range figs {
		key := prefix + f.Key
		switch {
		case f.Skip != "":
		case f.Shown != "":
			shown[key], why[key] = f.Err(), f.Shown
		default:
			held[key] = f.Err()
		}
	}
}
