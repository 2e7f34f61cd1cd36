package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/cqlsize/cqlsize/evolve/backfill"
	"github.com/cqlsize/cqlsize/sizing"
)

// envProgress is the default of --progress: a Kubernetes Job or a CI step sets it once in
// its environment rather than on every command line.
const envProgress = "CQLSIZE_PROGRESS"

// The forms of --progress.
const (
	progressAuto = "auto" // a bar on a terminal, text lines otherwise
	progressText = "text" // text lines, even on a terminal
	progressJSON = "json" // JSON lines
	progressNone = "none"
)

// checkProgressFlag reads --progress (or $CQLSIZE_PROGRESS) and --progress-every.
func checkProgressFlag(env *Env, mode string, every time.Duration) (string, error) {
	from := "--progress"
	if mode == "" {
		mode, from = env.Getenv(envProgress), "$"+envProgress
	}
	mode = strings.ToLower(strings.TrimSpace(mode))
	switch mode {
	case "":
		mode = progressAuto
	case progressAuto, progressText, progressJSON, progressNone:
	default:
		return "", Usagef("%s %q: want auto, text, json or none", from, mode)
	}
	if every < time.Second {
		return "", Usagef("--progress-every %s: want at least 1s", every)
	}
	return mode, nil
}

// backfillProgress is what a backfill shows while it runs: the bar on a terminal, or, when
// no terminal watches (a CI job, a pod's log), a line every --progress-every on stderr, so
// a long run still says where it is. Lines are written by a ticker, not by the copy: a run
// stalled on a slow range or on ranges another run holds keeps reporting.
type backfillProgress struct {
	bar   *backfillBar
	lines *progressLines
	stop  chan struct{}
	done  chan struct{}
}

func newBackfillProgress(env *Env, mode string, every time.Duration, name string) *backfillProgress {
	p := &backfillProgress{}
	switch {
	case mode == progressNone:
	case mode == progressAuto && isTerminal(env.Stderr):
		p.bar = newBackfillBar(env)
	case mode == progressAuto, mode == progressText, mode == progressJSON:
		p.lines = newProgressLines(env.Stderr, mode == progressJSON, every, name, time.Now)
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.tick(every)
	}
	return p
}

// tick looks at the clock a few times an interval, so a line comes close to when it is due.
func (p *backfillProgress) tick(every time.Duration) {
	defer close(p.done)
	t := time.NewTicker(every / 4)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.lines.tick()
		}
	}
}

// update is the backfill's Progress callback.
func (p *backfillProgress) update(pr backfill.Progress) {
	if p.bar != nil {
		p.bar.update(pr)
	}
	if p.lines != nil {
		p.lines.update(pr)
	}
}

// finish clears the bar or stops the lines, before the summary is printed.
func (p *backfillProgress) finish() {
	if p.bar != nil {
		p.bar.finish()
	}
	if p.lines != nil {
		close(p.stop)
		<-p.done
	}
}

// progressLines prints the latest progress every interval, as text or as JSON lines. Its
// clock is a field, so a test drives the cadence.
type progressLines struct {
	mu    sync.Mutex
	w     io.Writer
	json  bool
	every time.Duration
	now   func() time.Time
	name  string

	start    time.Time
	last     time.Time // when the last line was printed (start before the first)
	lastRows int64     // rows at the last line
	cur      backfill.Progress
	seen     bool // a progress report came
}

func newProgressLines(w io.Writer, asJSON bool, every time.Duration, name string, now func() time.Time) *progressLines {
	t := now()
	return &progressLines{w: w, json: asJSON, every: every, now: now, name: name, start: t, last: t}
}

func (l *progressLines) update(p backfill.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur, l.seen = p, true
}

// tick prints a line when one is due: an interval after the last (or after the start), once
// the copy has reported where it is.
func (l *progressLines) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.seen || now.Sub(l.last) < l.every {
		return
	}
	s := l.stats(now)
	l.last, l.lastRows = now, l.cur.Rows
	if l.json {
		enc := json.NewEncoder(l.w) // one line, with -> as it is (not \u003e)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		return
	}
	fmt.Fprintln(l.w, s.text())
}

// progressStats is one progress line; its JSON is the JSON line.
type progressStats struct {
	Time           string  `json:"time"`
	Backfill       string  `json:"backfill"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Fraction       float64 `json:"fraction"` // of the share's token ring copied
	Ranges         int     `json:"ranges"`
	RangesDone     int     `json:"ranges_done"`
	RangesLeft     int     `json:"ranges_left"`
	Rows           int64   `json:"rows"`
	TargetRows     int64   `json:"target_rows"`
	Bytes          int64   `json:"bytes"`
	// RowsPerSecond is the rate since the last line (since the start for the first): a node
	// that slows down shows at once, not diluted by the whole run.
	RowsPerSecond float64 `json:"rows_per_second"`
	EstimatedRows float64 `json:"estimated_rows,omitempty"`
	ETASeconds    float64 `json:"eta_seconds,omitempty"` // from the share of the ring copied so far
	HeldByOther   int     `json:"held_by_other,omitempty"`
}

func (l *progressLines) stats(now time.Time) progressStats {
	p := l.cur
	s := progressStats{Time: now.UTC().Format(time.RFC3339), Backfill: l.name, ElapsedSeconds: math.Round(now.Sub(l.start).Seconds()*10) / 10,
		Fraction: math.Round(p.Fraction*1000) / 1000, Ranges: p.Ranges, RangesDone: p.RangesDone, RangesLeft: p.Ranges - p.RangesDone,
		Rows: p.Rows, TargetRows: p.TargetRows, Bytes: p.Bytes, EstimatedRows: math.Round(p.TotalRows),
		ETASeconds: p.ETA.Round(time.Second).Seconds(), HeldByOther: p.HeldByOther}
	if d := now.Sub(l.last).Seconds(); d > 0 {
		s.RowsPerSecond = math.Round(float64(p.Rows-l.lastRows) / d)
	}
	return s
}

// text is the line: `backfill ks.a -> ks.b: 41%, 105/256 ranges done, 151 left, 82113 rows
// (of ~200000), 4123 rows/s, 12.9 MB, 20s elapsed, ETA 29s`.
func (s progressStats) text() string {
	var b strings.Builder
	// Whole percents rounded down: 100% only once every range is copied.
	fmt.Fprintf(&b, "backfill %s: %d%%, %d/%d ranges done, %d left, %d rows", s.Backfill, int(math.Floor(100*s.Fraction)), s.RangesDone, s.Ranges, s.RangesLeft, s.Rows)
	if s.EstimatedRows > 0 {
		fmt.Fprintf(&b, " (of ~%.0f)", s.EstimatedRows)
	}
	fmt.Fprintf(&b, ", %.0f rows/s, %s, %s elapsed", s.RowsPerSecond, sizing.FormatBytes(float64(s.Bytes)),
		time.Duration(s.ElapsedSeconds*float64(time.Second)).Round(time.Second))
	if s.ETASeconds > 0 {
		fmt.Fprintf(&b, ", ETA %s", time.Duration(s.ETASeconds)*time.Second)
	}
	if s.HeldByOther > 0 {
		fmt.Fprintf(&b, ", %s held by another run", plural(s.HeldByOther, "range", "ranges"))
	}
	return b.String()
}
