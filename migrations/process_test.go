package migrations_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/internal/cqlsizebin"
	"github.com/cqlsize/cqlsize/migrations"
)

// The tests in this file run the real cqlsize binary as separate OS processes, the way
// every instance of a service runs migrations at start-up.

func TestMain(m *testing.M) {
	code := m.Run()
	cqlsizebin.Cleanup()
	os.Exit(code)
}

// cqlsizeBinary builds ./cmd/cqlsize once per test binary.
func cqlsizeBinary(t *testing.T) string { return cqlsizebin.Path(t) }

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func cqlsizeCmd(t *testing.T, ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, cqlsizeBinary(t), args...)
	cmd.Env = append(os.Environ(), "CASSANDRA_HOSTS="+strings.Join(cassandratest.Hosts(t), ","))
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// A counter per data migration detects a second application: counter updates are not
// idempotent, so a migration applied twice leaves 2.
var concurrentSet = map[string]string{
	"0001_runs.cql": `CREATE TABLE IF NOT EXISTS runs (k text PRIMARY KEY, n counter);
UPDATE runs SET n = n + 1 WHERE k = 'm1';`,
	"0002_items.cql": `CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY, v text);
INSERT INTO items (id, v) VALUES (1, 'one; two');
UPDATE runs SET n = n + 1 WHERE k = 'm2';`,
	"0003_alter.cql": `ALTER TABLE items ADD extra text;
CREATE TABLE IF NOT EXISTS items_by_v (v text, id int, PRIMARY KEY (v, id));
UPDATE runs SET n = n + 1 WHERE k = 'm3';`,
}

type procResult struct {
	code           int
	stdout, stderr string
}

// checkOneApplier checks that every process of a concurrent deploy exited 0 at version 3 and
// that exactly one of them applied the migrations (the others found the work done).
func checkOneApplier(t *testing.T, results []procResult) {
	t.Helper()
	appliers := 0
	for i, r := range results {
		if r.code != 0 {
			t.Errorf("process %d: exit %d\nstdout: %s\nstderr: %s", i, r.code, r.stdout, r.stderr)
			continue
		}
		switch {
		case strings.Contains(r.stdout, "applied 3 migrations") && strings.Contains(r.stdout, "now at version 3"):
			appliers++
		case strings.Contains(r.stdout, "up to date, at version 3"):
		default:
			t.Errorf("process %d ended without reaching version 3: %q", i, r.stdout)
		}
	}
	if appliers != 1 {
		t.Errorf("%d processes applied the migrations; want exactly 1", appliers)
	}
}

func runProc(cmd *exec.Cmd) procResult {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return procResult{code, out.String(), errb.String()}
}

// TestConcurrentProcesses starts 8 cqlsize processes on the same folder at the same moment,
// ten times, each time on a fresh keyspace: every migration is applied exactly once, no
// process fails, and every process ends at the same version.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 80 processes against the cluster")
	}
	const procs, reps = 8, 10
	cqlsizeBinary(t) // build before the clock of the first repetition starts
	dir := writeFiles(t, concurrentSet)
	for rep := 1; rep <= reps; rep++ {
		t.Run(fmt.Sprintf("rep%02d", rep), func(t *testing.T) {
			s, ks := cassandratest.Keyspace(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmds := make([]*exec.Cmd, procs)
			for i := range cmds {
				cmds[i] = cqlsizeCmd(t, ctx, nil, "migrate", "up", "--keyspace", ks, "--dir", dir, "--lock-ttl", "10s", "--lock-timeout", "90s")
			}
			results := make([]procResult, procs)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range cmds {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					<-start
					results[i] = runProc(cmds[i])
				}(i)
			}
			begun := time.Now()
			close(start)
			wg.Wait()

			checkOneApplier(t, results)
			t.Logf("8 processes finished in %s", time.Since(begun).Round(time.Millisecond))
			checkAppliedOnce(t, s, ks, map[string]int64{"m1": 1, "m2": 1, "m3": 1}, 3)
			checkSchemaMatchesFiles(t, s, ks, dir)
		})
	}
}

// checkSchemaMatchesFiles compares the keyspace as system_schema has it with what the cql
// model says the (unqualified) files produce in it; the bookkeeping tables are not in the files.
func checkSchemaMatchesFiles(t *testing.T, s *gocql.Session, ks, dir string) {
	t.Helper()
	migs, err := migrations.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := cql.NewSchema()
	want.Keyspaces[ks] = cql.NewKeyspace(ks)
	want.Current = ks
	for _, m := range migs {
		if err := want.ApplyAll(m.Parsed); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := liveschema.Read(ctx, s, ks)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range liveschema.Diff(want, got) {
		if !strings.Contains(d, "table cqlsize_migrations") {
			t.Errorf("schema differs from the files: %s", d)
		}
	}
}

// checkAppliedOnce checks the counters and that the bookkeeping has every file applied.
func checkAppliedOnce(t *testing.T, s *gocql.Session, ks string, want map[string]int64, files int) {
	t.Helper()
	for k, n := range want {
		var got int64
		if err := s.Query(`SELECT n FROM runs WHERE k = ?`, k).Consistency(gocql.Quorum).Scan(&got); err != nil || got != n {
			t.Errorf("runs[%s] = %d (%v), want %d: a data migration ran %d times", k, got, err, n, got)
		}
	}
	iter := s.Query(`SELECT version, state, applied, statements FROM cqlsize_migrations WHERE target = ?`, ks).Consistency(gocql.Quorum).Iter()
	var version int64
	var state string
	var applied, statements, rows int
	for iter.Scan(&version, &state, &applied, &statements) {
		rows++
		if state != "applied" || applied != statements {
			t.Errorf("bookkeeping version %d: state %s, %d of %d statements", version, state, applied, statements)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if rows != files {
		t.Errorf("bookkeeping has %d rows, want %d", rows, files)
	}
}

// TestKilledMidFileIsFinishedByNextRun kills (SIGKILL) a process that paused after the
// second of four statements of a file; the next run waits for the dead holder's lease to
// expire, says where the dead run stopped, and applies statements 3 and 4 only.
func TestKilledMidFileIsFinishedByNextRun(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	dir := writeFiles(t, map[string]string{
		"0001_runs.cql": `CREATE TABLE IF NOT EXISTS runs (k text PRIMARY KEY, n counter);`,
		"0002_two_halves.cql": `CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);
UPDATE runs SET n = n + 1 WHERE k = 's2';
CREATE TABLE b (k int PRIMARY KEY);
UPDATE runs SET n = n + 1 WHERE k = 's4';`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ttl = 3 * time.Second
	first := cqlsizeCmd(t, ctx, []string{"CQLSIZE_TEST_PAUSE_AFTER=2:2"},
		"migrate", "up", "--keyspace", ks, "--dir", dir, "--lock-ttl", ttl.String())
	stderr, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	paused := false
	var seen strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "paused after statement 2 of ") {
			paused = true
			break
		}
	}
	if !paused {
		_ = first.Process.Kill()
		_ = first.Wait()
		t.Fatalf("the first run never paused; its stderr:\n%s", seen.String())
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	killed := time.Now()

	second := runProc(cqlsizeCmd(t, ctx, nil, "migrate", "up", "--keyspace", ks, "--dir", dir, "--lock-ttl", ttl.String(), "--lock-timeout", "1m"))
	if second.code != 0 {
		t.Fatalf("second run: exit %d\nstdout: %s\nstderr: %s", second.code, second.stdout, second.stderr)
	}
	waited := time.Since(killed)
	if waited > ttl+20*time.Second {
		t.Errorf("the second run took %s after the kill; the lease TTL is %s", waited, ttl)
	}
	t.Logf("the second run finished %s after the kill (lease TTL %s)", waited.Round(time.Millisecond), ttl)
	for _, want := range []string{"resuming at statement 3 of 4", "applied statements 1-2 of 4", "applied 1 migration "} {
		if !strings.Contains(second.stderr+second.stdout, want) {
			t.Errorf("second run does not say %q:\nstdout: %s\nstderr: %s", want, second.stdout, second.stderr)
		}
	}
	checkAppliedOnce(t, s, ks, map[string]int64{"s2": 1, "s4": 1}, 2)
	checkSchemaMatchesFiles(t, s, ks, dir)
}
