package backfillcheck_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/backfillcheck"
	"github.com/cqlsize/cqlsize/internal/cqlsizebin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	cqlsizebin.Cleanup()
	os.Exit(code)
}

// cqlsize is the command built from this module: the backfill runs as a real process.
func cqlsize(t *testing.T) string { return cqlsizebin.Path(t) }

// proc is a cqlsize process the test started.
type proc struct {
	name     string
	cmd      *exec.Cmd
	out, err bytes.Buffer
	done     chan struct{}
	code     int
	elapsed  time.Duration
	peakKB   int64 // VmHWM, sampled while it ran
}

// start runs cqlsize with args; the process is killed at cleanup if still running.
func start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(cqlsize(t), args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	began := time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("%s: start: %v", name, err)
	}
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		waited := make(chan error, 1)
		go func() { waited <- p.cmd.Wait() }()
		for {
			select {
			case err := <-waited:
				p.elapsed = time.Since(began)
				p.code = exitCode(err)
				close(p.done)
				return
			case <-tick.C:
				if kb := backfillcheck.PeakRSS(p.cmd.Process.Pid); kb > p.peakKB {
					p.peakKB = kb
				}
			}
		}
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return -1
}

// wait waits up to timeout for p to exit and returns its exit status.
func (p *proc) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("%s did not finish within %s\nstdout:\n%s\nstderr:\n%s", p.name, timeout, tail(p.out.String()), tail(p.err.String()))
	}
	return p.code
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

func (p *proc) String() string {
	return fmt.Sprintf("%s: exit %d after %s\nstdout:\n%s\nstderr:\n%s", p.name, p.code, p.elapsed.Round(time.Millisecond), tail(p.out.String()), tail(p.err.String()))
}

func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 25 {
		lines = append([]string{fmt.Sprintf("[%d lines before]", len(lines)-25)}, lines[len(lines)-25:]...)
	}
	return strings.Join(lines, "\n")
}

// envInt reads a row count from the environment: def when unset.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 {
		t.Fatalf("%s=%q: want a whole number of at least 100", name, v)
	}
	return n
}

// copied counts, in 32 thin slices of the ring (1/1024 each, ~3% of it), the rows of a
// target table whose partition key is keyCols: a cheap, engine-independent look at how far
// a copy got.
func copied(ctx context.Context, s *gocql.Session, table, keyCols string) (int, error) {
	var total int
	for _, r := range slices32() {
		var n int
		q := fmt.Sprintf("SELECT count(*) FROM %s WHERE token(%s) > ? AND token(%s) <= ?", table, keyCols, keyCols)
		if err := s.Query(q, r.Start, r.End).WithContext(ctx).Scan(&n); err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

func slices32() []backfillcheck.TokenRange {
	ring := backfillcheck.SplitRing(32)
	out := make([]backfillcheck.TokenRange, len(ring))
	for i, r := range ring {
		out[i] = backfillcheck.TokenRange{Start: r.Start, End: r.Start + (r.End-r.Start)/32}
	}
	return out
}

// killMidCopy waits until a quarter of the expected rows of table are there (in the slices
// copied looks at), then SIGKILLs every process of ps still running and says how many.
func killMidCopy(t *testing.T, s *gocql.Session, table, keyCols string, expected int, ps ...*proc) int {
	t.Helper()
	n := waitCopied(t, s, table, keyCols, expected/32/4, ps...)
	killed := 0
	for _, p := range ps {
		if p.running() {
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.done
			killed++
		}
	}
	t.Logf("SIGKILLed %d backfill processes with %d rows in the sampled slices of %s (about %d%% of %d)", killed, n, table, n*100/max(expected/32, 1), expected)
	return killed
}

// waitCopied waits until at least want rows of table are in the sampled slices and returns
// how many; it fails t when the processes ps all end first.
func waitCopied(t *testing.T, s *gocql.Session, table, keyCols string, want int, ps ...*proc) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		n, err := copied(context.Background(), s, table, keyCols)
		if err == nil && n >= want {
			return n
		}
		alive := false
		for _, p := range ps {
			alive = alive || p.running()
		}
		if !alive || time.Now().After(deadline) {
			t.Fatalf("the copies ended (or stalled) before %d rows were in the sampled slices of %s (%d, %v):\n%v", want, table, n, err, ps)
		}
		time.Sleep(150 * time.Millisecond)
	}
}
