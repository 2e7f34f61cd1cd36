// Command benchbackfill measures `cqlsize backfill` side by side with the hand-written
// parallel token-range copy of package backfillcheck, in one run against one cluster: rows a
// second of each at the same consistency, their ratio, and the backfill's peak resident set
// (VmHWM from /proc while it runs, and the kernel's maxrss when it exits).
//
//	make bench-backfill                       # 1,000,000 rows on the test node
//	make bench-backfill ARGS="-rows 200000 -rounds 3"
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

type config struct {
	hosts            []string
	rows             int
	rounds           int
	consistency      string
	writeConsistency string
	bin              string
	keep             bool
	check            bool
	keyspace         string
	backfillArgs     string
}

func main() {
	var c config
	hosts := flag.String("hosts", os.Getenv("CASSANDRA_HOSTS"), "the cluster (default $CASSANDRA_HOSTS)")
	flag.IntVar(&c.rows, "rows", 1_000_000, "source rows")
	flag.IntVar(&c.rounds, "rounds", 3, "copies of each kind, alternated; their medians are compared (0 with -keep: write the table and stop)")
	flag.StringVar(&c.consistency, "consistency", "LOCAL_ONE", "consistency of both copies' reads")
	flag.StringVar(&c.writeConsistency, "write-consistency", "LOCAL_QUORUM", "consistency of both copies' writes")
	flag.StringVar(&c.bin, "bin", "", "the cqlsize binary (default: go build ./cmd/cqlsize)")
	flag.BoolVar(&c.keep, "keep", false, "keep the keyspace")
	flag.BoolVar(&c.check, "check", false, "check the backfill's last copy with the checker")
	flag.StringVar(&c.backfillArgs, "backfill-args", "", "more flags of cqlsize backfill, such as \"--workers 8\"")
	flag.StringVar(&c.keyspace, "keyspace", "", "race in this keyspace, kept by an earlier -keep run, instead of writing a new one (-rows must match)")
	flag.Parse()
	c.hosts = strings.Split(*hosts, ",")
	if *hosts == "" || c.rows < 1 || c.rounds < 0 || c.rounds == 0 && !c.keep {
		fmt.Fprintln(os.Stderr, "benchbackfill: need -hosts (or $CASSANDRA_HOSTS), -rows >= 1 and -rounds >= 1 (or 0 with -keep)")
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "benchbackfill:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	cons, err := parseConsistency(c.consistency)
	if err != nil {
		return err
	}
	wcons, err := parseConsistency(c.writeConsistency)
	if err != nil {
		return err
	}
	if c.bin == "" {
		dir, err := os.MkdirTemp("", "benchbackfill-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.bin = filepath.Join(dir, "cqlsize")
		build := exec.Command("go", "build", "-o", c.bin, "./cmd/cqlsize")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/cqlsize (run from the repository root): %v\n%s", err, out)
		}
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	ks := "bench_backfill_" + hex.EncodeToString(b[:])
	if c.keyspace != "" {
		ks = c.keyspace
	}
	cluster := gocql.NewCluster(c.hosts...)
	cluster.Timeout, cluster.ConnectTimeout, cluster.Consistency = 30*time.Second, 10*time.Second, cons
	s, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("connect to %v: %w", c.hosts, err)
	}
	defer s.Close()
	ctx := context.Background()
	tb := backfillcheck.Tables{Source: ks + ".posts", Month: ks + ".posts_by_month"}
	ref := ks + ".posts_by_month_ref"
	if c.keyspace != "" {
		return race(ctx, c, s, ks, tb, ref, cons, wcons)
	}
	if err := s.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		return err
	}
	if !c.keep {
		defer s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() //nolint:errcheck // best effort
	}
	if err := tb.Create(ctx, s); err != nil {
		return err
	}
	if err := (backfillcheck.Tables{Month: ref}).Create(ctx, s); err != nil {
		return err
	}
	t0 := time.Now()
	if _, err := backfillcheck.Generate(ctx, s, tb, backfillcheck.Spec{Rows: c.rows, Seed: 1, Consistency: cons}); err != nil {
		return err
	}
	fmt.Printf("keyspace %s: %d source rows written in %s\n", ks, c.rows, time.Since(t0).Round(time.Millisecond))
	if c.rounds == 0 {
		return nil
	}
	return race(ctx, c, s, ks, tb, ref, cons, wcons)
}

// race alternates the two copies c.rounds times each (the targets emptied before each, the
// backfill run with --restart, so every round copies the whole table), and
// prints every run, the median and spread of each and the ratio of the medians.
func race(ctx context.Context, c config, s *gocql.Session, ks string, tb backfillcheck.Tables, ref string, cons, wcons gocql.Consistency) error {
	var refRates, bfRates []float64
	var peakKB, maxrssKB int64
	for round := 1; round <= c.rounds; round++ {
		if err := s.Query("TRUNCATE " + ref).Exec(); err != nil {
			return err
		}
		t0, cpu0 := time.Now(), selfCPU()
		n, err := backfillcheck.Copy(ctx, s, tb.Source, ref, "", backfillcheck.CopySpec{Consistency: cons, WriteConsistency: wcons})
		if err != nil {
			return err
		}
		d, cpu := time.Since(t0), selfCPU()-cpu0
		refRates = append(refRates, float64(n)/d.Seconds())
		fmt.Printf("round %d: hand-written gocql copy: %d rows in %s: %.0f rows/s, CPU %.0f µs a row\n", round, n, d.Round(time.Millisecond),
			refRates[len(refRates)-1], float64(cpu.Microseconds())/float64(n))

		if err := s.Query("TRUNCATE " + tb.Month).Exec(); err != nil {
			return err
		}
		r, err := runBackfill(c, ks)
		if err != nil {
			return err
		}
		bfRates = append(bfRates, float64(c.rows)/r.elapsed.Seconds())
		peakKB, maxrssKB = max(peakKB, r.vmHWM), max(maxrssKB, r.maxrss)
		fmt.Printf("round %d: cqlsize backfill: %d rows in %s: %.0f rows/s, CPU %.0f µs a row, VmHWM %.1f MB, maxrss %.1f MB\n", round, c.rows,
			r.elapsed.Round(time.Millisecond), bfRates[len(bfRates)-1], float64(r.cpu.Microseconds())/float64(c.rows), float64(r.vmHWM)/1024, float64(r.maxrss)/1024)
	}
	bf, rf := summarize(bfRates), summarize(refRates)
	fmt.Printf("cqlsize backfill:   median %.0f rows/s over %d rounds (%s)\n", bf.median, c.rounds, bf)
	fmt.Printf("hand-written copy:  median %.0f rows/s over %d rounds (%s)\n", rf.median, c.rounds, rf)
	fmt.Printf("ratio of the medians %.2f, of the bests %.2f (goal >= 0.95)\n", bf.median/rf.median, bf.best/rf.best)
	fmt.Printf("peak RSS of cqlsize backfill copying %d rows: VmHWM %.1f MB, maxrss %.1f MB (goal < 100 MB)\n", c.rows, float64(peakKB)/1024, float64(maxrssKB)/1024)
	if c.check {
		return check(ctx, s, tb, cons)
	}
	return nil
}

// spread is the median, least and best of a run's rates.
type spread struct{ median, least, best float64 }

func summarize(rates []float64) spread {
	r := append([]float64(nil), rates...)
	sort.Float64s(r)
	m := r[len(r)/2]
	if len(r)%2 == 0 {
		m = (r[len(r)/2-1] + r[len(r)/2]) / 2
	}
	return spread{median: m, least: r[0], best: r[len(r)-1]}
}

func (s spread) String() string {
	return fmt.Sprintf("spread %.0f-%.0f, %.0f%% of the median", s.least, s.best, 100*(s.best-s.least)/s.median)
}

type result struct {
	elapsed, cpu  time.Duration
	vmHWM, maxrss int64 // kB
}

// runBackfill runs the cqlsize backfill of the source into posts_by_month as a process,
// sampling its VmHWM every 20 ms (the peak so far, so the last sample is the peak up to
// then) and reading the kernel's maxrss when it exits.
func runBackfill(c config, ks string) (result, error) {
	cmd := exec.Command(c.bin, "backfill", "--hosts", strings.Join(c.hosts, ","), "-k", ks, "--from", "posts", "--to", "posts_by_month",
		"--derive", "month=month(created_at)", "--consistency", c.consistency, "--write-consistency", c.writeConsistency,
		"--restart") // every round copies the whole table, whatever the round before recorded
	cmd.Args = append(cmd.Args, strings.Fields(c.backfillArgs)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var r result
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			r.elapsed = time.Since(t0)
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				r.maxrss = ru.Maxrss
			}
			r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			if err != nil {
				return r, fmt.Errorf("cqlsize backfill: %v\n%s", err, out.String())
			}
			return r, nil
		case <-tick.C:
			r.vmHWM = max(r.vmHWM, backfillcheck.PeakRSS(cmd.Process.Pid))
		}
	}
}

// selfCPU is the CPU time this process has used, user and system: the reference copy runs
// in it, so its share of the machine (loaded by other work) is comparable to the backfill's.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func check(ctx context.Context, s *gocql.Session, tb backfillcheck.Tables, cons gocql.Consistency) error {
	opts := backfillcheck.ReadOptions{Consistency: cons}
	src, err := backfillcheck.ReadSource(ctx, s, tb.Source, opts)
	if err != nil {
		return err
	}
	found, err := backfillcheck.ReadMonth(ctx, s, tb.Month, opts)
	if err != nil {
		return err
	}
	rep := backfillcheck.Compare(tb.Month, backfillcheck.ExpectMonth(src), found, time.Hour)
	fmt.Println("checker:", rep)
	if !rep.OK() {
		return fmt.Errorf("the backfill's copy differs from the source")
	}
	return nil
}

func parseConsistency(s string) (gocql.Consistency, error) {
	var c gocql.Consistency
	if err := c.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return 0, fmt.Errorf("-consistency %q: %w", s, err)
	}
	return c, nil
}
