package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/evolve/backfill"
	"github.com/cqlsize/cqlsize/internal/golden"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

var progressStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// The lines of one run, text and JSON, against the golden file: nothing before the copy
// reports or before the first interval, then a line an interval apart whatever the
// copy reports in between.
func TestBackfillProgressLinesGolden(t *testing.T) {
	var out bytes.Buffer
	for _, asJSON := range []bool{false, true} {
		clock := &fakeClock{t: progressStart}
		l := newProgressLines(&out, asJSON, 5*time.Second, "app.posts -> app.posts_by_user", clock.now)
		steps := []struct {
			at time.Duration // since the start
			p  *backfill.Progress
		}{
			{3 * time.Second, nil}, // nothing reported yet: no line
			{4 * time.Second, &backfill.Progress{Ranges: 256, Rows: 1500, TargetRows: 1400, Bytes: 120_000}},
			{5 * time.Second, nil}, // due: the first line
			{7 * time.Second, &backfill.Progress{Ranges: 256, RangesDone: 12, Fraction: 12.0 / 256, Rows: 9000, TargetRows: 8990, Bytes: 720_000,
				TotalRows: 200_000, TotalBytes: 16e6, ETA: 101 * time.Second}},
			{9 * time.Second, nil}, // 4 s after the last: not yet
			{10 * time.Second, nil},
			{16 * time.Second, &backfill.Progress{Ranges: 256, RangesDone: 255, Fraction: 255.0 / 256, Rows: 199_000, TargetRows: 199_000, Bytes: 15.9e6,
				TotalRows: 199_500, TotalBytes: 16e6, ETA: 100 * time.Millisecond, HeldByOther: 1}},
			{16 * time.Second, nil},
		}
		for _, s := range steps {
			clock.t = progressStart.Add(s.at)
			if s.p != nil {
				l.update(*s.p)
			}
			l.tick()
		}
	}
	golden.Compare(t, filepath.Join("testdata", "backfill_progress.golden"), out.Bytes())
}

// The figures of a line, worked out by hand: 24,000 rows in the 6 s since a line at 6,000
// rows is 4,000 rows a second, 96 of 256 ranges leave 160, 37.5% of the ring shows as 37%.
func TestBackfillProgressLineFigures(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: progressStart}
	l := newProgressLines(&out, true, 6*time.Second, "a.b -> a.c", clock.now)
	l.update(backfill.Progress{Ranges: 256, Rows: 6000})
	clock.advance(6 * time.Second)
	l.tick()
	l.update(backfill.Progress{Ranges: 256, RangesDone: 96, Fraction: 0.375, Rows: 30_000, ETA: 20 * time.Second})
	clock.advance(6 * time.Second)
	l.tick()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), out.String())
	}
	var first, second progressStats
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil {
		t.Fatal(err)
	}
	if first.RowsPerSecond != 1000 || first.ElapsedSeconds != 6 || first.RangesLeft != 256 {
		t.Errorf("first line %+v: want 1000 rows/s (6000 rows in 6 s), 6 s elapsed, 256 ranges left", first)
	}
	if second.RowsPerSecond != 4000 || second.ElapsedSeconds != 12 || second.RangesLeft != 160 || second.ETASeconds != 20 ||
		second.Time != "2026-03-01T12:00:12Z" || second.Fraction != 0.375 {
		t.Errorf("second line %+v: want 4000 rows/s (24000 rows in 6 s), 12 s elapsed, 160 ranges left, ETA 20 s at 12:00:12", second)
	}
	want := "backfill a.b -> a.c: 37%, 96/256 ranges done, 160 left, 30000 rows, 4000 rows/s, 0 B, 12s elapsed, ETA 20s"
	if got := second.text(); got != want {
		t.Errorf("text\n got %q\nwant %q", got, want)
	}
}

// The cadence: ticks every second print a line every 5 s; ticks every 3 s print at the
// first tick 5 s or more after the last line (6, 12, 18 s); updates alone print nothing.
func TestBackfillProgressCadence(t *testing.T) {
	for _, tc := range []struct {
		tick time.Duration
		want []string // the times of the lines
	}{
		{time.Second, []string{"12:00:05", "12:00:10", "12:00:15", "12:00:20"}},
		{3 * time.Second, []string{"12:00:06", "12:00:12", "12:00:18"}},
		{7 * time.Second, []string{"12:00:07", "12:00:14", "12:00:21"}},
	} {
		var out bytes.Buffer
		clock := &fakeClock{t: progressStart}
		l := newProgressLines(&out, true, 5*time.Second, "a.b -> a.c", clock.now)
		var rows int64
		for at := time.Duration(0); at <= 23*time.Second; at += 500 * time.Millisecond {
			clock.t = progressStart.Add(at)
			rows += 100
			l.update(backfill.Progress{Ranges: 4, Rows: rows})
			if at > 0 && at%tc.tick == 0 {
				l.tick()
			}
		}
		var got []string
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			var s progressStats
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
			}
			got = append(got, strings.TrimSuffix(strings.TrimPrefix(s.Time, "2026-03-01T"), "Z"))
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("ticks every %s: lines at %v, want %v", tc.tick, got, tc.want)
		}
	}
}

func TestBackfillProgressFlags(t *testing.T) {
	base := []string{"backfill", "-k", "app", "--from", "a", "--to", "b"}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--progress", "lines"}, nil, `--progress "lines": want auto, text, json or none`},
		{nil, map[string]string{envProgress: "yes"}, `$CQLSIZE_PROGRESS "yes": want auto, text, json or none`},
		{[]string{"--progress-every", "500ms"}, nil, "--progress-every 500ms: want at least 1s"},
	} {
		env := map[string]string{"CASSANDRA_HOSTS": "127.0.0.1:1"}
		for k, v := range tc.env {
			env[k] = v
		}
		code, out, errOut := runEnv(t, env, append(base, tc.args...)...)
		if code != ExitBadInput || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v %v: exit %d\nstdout: %s\nstderr: %s\nwant exit 2 and %q", tc.args, tc.env, code, out, errOut, tc.want)
		}
	}
	env := &Env{Getenv: func(k string) string { return map[string]string{envProgress: "JSON"}[k] }}
	if m, err := checkProgressFlag(env, "", time.Second); m != progressJSON || err != nil {
		t.Errorf("$CQLSIZE_PROGRESS=JSON: %q, %v; want json", m, err)
	}
	if m, err := checkProgressFlag(env, "none", time.Second); m != progressNone || err != nil {
		t.Errorf("--progress none over $CQLSIZE_PROGRESS=JSON: %q, %v; want none (the flag wins)", m, err)
	}
}

// The real binary with its output piped, as in a CI job or a pod: a slow backfill (--rate)
// prints progress lines on stderr every --progress-every, text by default and JSON lines
// with --progress json, and its summary on stdout is whole.
func TestClusterBackfillProgressLinesOnAPipe(t *testing.T) {
	hosts := cassandratest.Hosts(t)
	_, ks := backfillKeyspace(t, 150)
	bin := filepath.Join(t.TempDir(), "cqlsize")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/cqlsize").CombinedOutput(); err != nil {
		t.Fatalf("build cqlsize: %v\n%s", err, out)
	}
	run := func(extra ...string) (string, string) {
		t.Helper()
		args := append([]string{"backfill", "--hosts", strings.Join(hosts, ","), "-k", ks, "--from", "posts", "--to", "posts_by_month",
			"--derive", "month=month(created_at)", "--ranges", "16", "--rate", "40/s", "--progress-every", "1s", "--restart", "--format", "json"}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), envProgress+"=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr // pipes, not a terminal
		if err := cmd.Run(); err != nil {
			t.Fatalf("backfill %v: %v\nstdout: %s\nstderr: %s", extra, err, stdout.String(), stderr.String())
		}
		var res backfill.Result
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.Rows != 150 {
			t.Fatalf("the summary on stdout is not whole (%v, %d rows, want 150):\n%s", err, res.Rows, stdout.String())
		}
		return stdout.String(), stderr.String()
	}
	// 150 rows at 40 a second take about 4 s: three lines or more, a second apart.
	_, errText := run()
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(errText), "\n") {
		if strings.HasPrefix(line, "backfill "+ks+".posts -> "+ks+".posts_by_month: ") && strings.Contains(line, " rows/s, ") {
			lines = append(lines, line)
		}
	}
	if len(lines) < 2 || strings.Contains(errText, "\r") || strings.Contains(errText, "\x1b[") {
		t.Errorf("want progress lines (and no bar) on a piped stderr:\n%q", errText)
	}
	_, errJSON := run("--progress", "json")
	n := 0
	var last progressStats
	for _, line := range strings.Split(strings.TrimSpace(errJSON), "\n") {
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("stderr holds a line that is not JSON: %q (%v)\n%s", line, err, errJSON)
		}
		n++
	}
	if n < 2 || last.Ranges != 16 || last.Rows <= 0 || last.Rows > 150 || last.Backfill != ks+".posts -> "+ks+".posts_by_month" {
		t.Errorf("want 2 JSON lines or more, the last of 16 ranges and 1-150 rows:\n%s", errJSON)
	}
	if _, errNone := run("--progress", "none"); errNone != "" {
		t.Errorf("--progress none printed on stderr:\n%s", errNone)
	}
}
