package migrations_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// A run records a statement's done record with the next write (the next intent, the
// file's finish), so a run killed between two statements leaves the first recorded only as
// being sent. These tests kill runs there, and anywhere, and check what the next run makes
// of it: every statement applied exactly once, or a stop in doubt that a person resolves.
// The lease is 10 s: on a loaded shared node a shorter one can lapse mid-run, which stops
// the run before the kill (safely, but the test wants the kill).

// betweenSet mixes what the bookkeeping tells apart: schema changes (done folded into the
// next write, judged from the live schema by a successor), idempotent INSERTs and UPDATEs
// (one intent for the run of them, re-sent by a successor) and counter updates (done
// recorded at once: a successor could only stop in doubt at them).
var betweenSet = map[string]string{
	"0001_runs.cql": "CREATE TABLE IF NOT EXISTS runs (k text PRIMARY KEY, n counter);\n",
	"0002_mixed.cql": `CREATE TABLE a (k int PRIMARY KEY, v int);
INSERT INTO a (k, v) VALUES (1, 1);
INSERT INTO a (k, v) VALUES (2, 2);
UPDATE a SET v = 3 WHERE k = 1;
UPDATE runs SET n = n + 1 WHERE k = 's5';
ALTER TABLE a ADD c text;
INSERT INTO a (k, v, c) VALUES (3, 3, 'x');
UPDATE runs SET n = n + 1 WHERE k = 's8';
`,
}

// checkBetweenSet checks the data and schema of betweenSet after a run that exited 0.
func checkBetweenSet(t *testing.T, s *gocql.Session, ks, dir string) {
	t.Helper()
	checkAppliedOnce(t, s, ks, map[string]int64{"s5": 1, "s8": 1}, 2)
	checkSchemaMatchesFiles(t, s, ks, dir)
	want := map[int]string{1: "3 <nil>", 2: "2 <nil>", 3: "3 x"}
	iter := s.Query(`SELECT k, v, c FROM a`).Consistency(gocql.Quorum).Iter()
	var k, v int
	var c *string
	got := map[int]string{}
	for iter.Scan(&k, &v, &c) {
		cs := "<nil>"
		if c != nil {
			cs = *c
		}
		got[k] = fmt.Sprint(v, " ", cs)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows of a: %v, want %v", got, want)
	}
}

// startPaused starts `migrate up` paused after statement k of 0002 and returns it once it
// says so. A run that stops before (exit 3: a schema change that missed the client's
// timeout on a loaded node, a lease that lapsed) is started again, as a deploy would.
func startPaused(t *testing.T, ctx context.Context, ks, dir string, k int) *exec.Cmd {
	t.Helper()
	var seen strings.Builder
	for attempt := 1; attempt <= 3; attempt++ {
		cmd := cqlsizeCmd(t, ctx, []string{fmt.Sprintf("CQLSIZE_TEST_PAUSE_AFTER=2:%d", k)},
			"migrate", "up", "--keyspace", ks, "--dir", dir, "--lock-ttl", "10s", "--lock-timeout", "1m")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			seen.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), fmt.Sprintf("paused after statement %d of ", k)) {
				return cmd
			}
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			break
		}
	}
	t.Fatalf("the run never paused after statement %d; its stderr:\n%s", k, seen.String())
	return nil
}

// upAgain runs `migrate up` as the next deploy would, again while it exits 3 (retryable:
// on a loaded node a schema change can miss the client's timeout), at most three times.
func upAgain(t *testing.T, ctx context.Context, args ...string) procResult {
	t.Helper()
	var all procResult // the last exit status, and what every attempt printed
	for attempt := 1; attempt <= 3; attempt++ {
		r := runProc(cqlsizeCmd(t, ctx, nil, args...))
		all.code, all.stdout, all.stderr = r.code, all.stdout+r.stdout, all.stderr+r.stderr
		if r.code != 3 {
			break
		}
		t.Logf("attempt %d exited 3 (retryable): %s", attempt, strings.TrimSpace(r.stderr))
	}
	return all
}

// TestKilledBetweenStatements kills (SIGKILL) a run right after statement k of 0002 ran,
// for a k of each kind, and runs `migrate up` again: it exits 0, says how it judged what the
// dead run left, and every statement is applied exactly once.
func TestKilledBetweenStatements(t *testing.T) {
	cqlsizeBinary(t)
	dir := writeFiles(t, betweenSet)
	for _, c := range []struct {
		k    int
		says string // what the successor says about where the dead run stopped
	}{
		{1, "had been applied"},                      // CREATE TABLE: found as written in the live schema
		{3, "stopped during statements 2-4"},         // mid-way through the intent of three DML statements
		{5, "applied statements 1-5 of 8"},           // a counter update: recorded as done at once
		{6, "had been applied"},                      // ALTER TABLE ADD: the column is there
		{7, "it is idempotent, so it is sent again"}, // an INSERT alone between two counters
	} {
		t.Run(fmt.Sprintf("after%d", c.k), func(t *testing.T) {
			s, ks := cassandratest.Keyspace(t)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			first := startPaused(t, ctx, ks, dir, c.k)
			if err := first.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = first.Wait()
			next := upAgain(t, ctx, "migrate", "up", "--keyspace", ks, "--dir", dir, "--lock-ttl", "10s", "--lock-timeout", "1m", "-v")
			if next.code != 0 {
				t.Fatalf("next run: exit %d\nstdout: %s\nstderr: %s", next.code, next.stdout, next.stderr)
			}
			if !strings.Contains(next.stdout+next.stderr, c.says) {
				t.Errorf("next run does not say %q:\nstdout: %s\nstderr: %s", c.says, next.stdout, next.stderr)
			}
			checkBetweenSet(t, s, ks, dir)
		})
	}
}

var resolveCmd = regexp.MustCompile(`cqlsize migrate resolve (\d+) (\d+) --applied`)

// TestKilledAnywhere kills runs of betweenSet at random moments (not at a pause: during a
// bookkeeping write, a statement, an agreement wait). The next run exits 0, or stops in
// doubt (exit 4) at a counter update; then the counter says whether it ran, that is
// recorded with `migrate resolve`, and the run after exits 0. Either way every statement
// is applied exactly once.
func TestKilledAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("kills runs against the cluster")
	}
	cqlsizeBinary(t)
	dir := writeFiles(t, betweenSet)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for round := 1; round <= 4; round++ {
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
			s, ks := cassandratest.Keyspace(t)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			args := []string{"migrate", "up", "--keyspace", ks, "--dir", dir, "--lock-ttl", "10s", "--lock-timeout", "1m"}
			// The first file runs to the end, so that the kill lands in the second.
			if r := upAgain(t, ctx, append(args, "--to", "1")...); r.code != 0 {
				t.Fatalf("version 1: exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
			first := cqlsizeCmd(t, ctx, nil, args...)
			if err := first.Start(); err != nil {
				t.Fatal(err)
			}
			delay := time.Duration(200+rng.IntN(1500)) * time.Millisecond
			time.Sleep(delay)
			_ = first.Process.Signal(syscall.SIGKILL)
			_ = first.Wait()
			next := upAgain(t, ctx, args...)
			if next.code == 4 {
				m := resolveCmd.FindStringSubmatch(next.stdout + next.stderr)
				if m == nil {
					t.Fatalf("in doubt without a resolve command:\n%s%s", next.stdout, next.stderr)
				}
				key := map[string]string{"5": "s5", "8": "s8"}[m[2]]
				if m[1] != "2" || key == "" {
					t.Fatalf("in doubt at version %s statement %s, which is not a counter update:\n%s%s", m[1], m[2], next.stdout, next.stderr)
				}
				var n int64
				_ = s.Query(`SELECT n FROM runs WHERE k = ?`, key).Consistency(gocql.Quorum).Scan(&n)
				decision := map[bool]string{true: "--applied", false: "--rerun"}[n == 1]
				t.Logf("killed after %s: in doubt at statement %s, counter %d: resolved %s", delay, m[2], n, decision)
				if r := runProc(cqlsizeCmd(t, ctx, nil, "migrate", "resolve", m[1], m[2], decision, "--keyspace", ks, "--dir", dir)); r.code != 0 {
					t.Fatalf("resolve: exit %d: %s%s", r.code, r.stdout, r.stderr)
				}
				next = upAgain(t, ctx, args...)
			} else {
				t.Logf("killed after %s: the next run exited %d", delay, next.code)
			}
			if next.code != 0 {
				t.Fatalf("next run: exit %d\nstdout: %s\nstderr: %s", next.code, next.stdout, next.stderr)
			}
			checkBetweenSet(t, s, ks, dir)
		})
	}
}
