package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/migrations"
)

// envPauseAfter is a test-only hook, deliberately absent from --help:
// CQLSIZE_TEST_PAUSE_AFTER=VERSION:STATEMENT makes `migrate up` stop after that statement
// of that file has run (its done record, unless it is written at once, rides on the next
// bookkeeping write, which is not made), print "paused after ..." on stderr and wait to be
// killed (or interrupted). The process tests use it to SIGKILL a run at an exact point of a
// file and check the next run finishes the job without applying anything twice.
const envPauseAfter = "CQLSIZE_TEST_PAUSE_AFTER"

// progress prints one line per migration with its duration (and per statement with -v)
// on stderr, plus a progress bar redrawn in place when stderr is a terminal.
type progress struct {
	termLine
	verbose bool
	total   int // statements this run should apply, for the bar
	done    int

	ctx          context.Context
	pauseVersion int64
	pauseStmt    int
}

func newProgress(ctx context.Context, env *Env, verbose bool, total int) *progress {
	p := &progress{termLine: newTermLine(env), verbose: verbose, total: total, ctx: ctx}
	if v := env.Getenv(envPauseAfter); v != "" {
		ver, stmt, ok := strings.Cut(v, ":")
		p.pauseVersion, _ = strconv.ParseInt(ver, 10, 64)
		p.pauseStmt, _ = strconv.Atoi(stmt)
		if !ok || p.pauseVersion <= 0 || p.pauseStmt <= 0 {
			p.pauseVersion = 0
		}
	}
	return p
}

// isTerminal reports whether w is a character device (a terminal), not a file or a pipe.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) line(format string, args ...any) {
	p.clear()
	fmt.Fprintln(p.w, cliWords(fmt.Sprintf(format, args...)))
}

func (p *progress) drawBar(e migrations.Event) {
	if !p.tty || p.total <= 0 {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s %d/%d statements  %s", gauge(p.done*gaugeWidth/p.total), p.done, p.total, e.Migration)
	p.bar = true
}

func (p *progress) on(e migrations.Event) {
	p.mu.Lock()
	switch e.Kind {
	case migrations.StatementDone:
		p.done++
		if p.verbose {
			p.line("%s", e)
		}
		p.drawBar(e)
	case migrations.MigrationStart:
		if e.From > 1 || p.verbose {
			p.line("%s", e)
		}
		p.drawBar(e)
	case migrations.MigrationDone:
		p.line("applied %s (%s) in %s", e.Migration, plural(e.Total, "statement", "statements"), e.Duration.Round(1e6))
	case migrations.LockAcquired:
		if p.verbose {
			p.line("%s", e)
		}
	default:
		p.line("%s", e)
	}
	pause := e.Kind == migrations.StatementDone && p.pauseVersion != 0 &&
		e.Migration.Version == p.pauseVersion && e.Statement == p.pauseStmt
	if pause {
		p.line("paused after statement %d of %s (%s)", e.Statement, e.Migration, envPauseAfter)
	}
	p.mu.Unlock()
	if pause {
		<-p.ctx.Done()
	}
}
