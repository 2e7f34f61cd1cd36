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
}

func main() {
	var c config
	hosts := flag.String("hosts", os.Getenv("CASSANDRA_HOSTS"), "the cluster (default $CASSANDRA_HOSTS)")
	flag.IntVar(&c.rows, "rows", 1_000_000, "source rows")
	flag.IntVar(&c.rounds, "rounds", 1, "copies of each kind, alternated; the best of each is compared")
	flag.StringVar(&c.consistency, "consistency", "LOCAL_ONE", "consistency of both copies' reads")
	flag.StringVar(&c.writeConsistency, "write-consistency", "LOCAL_QUORUM", "consistency of both copies' writes")
	flag.StringVar(&c.bin, "bin", "", "the cqlsize binary (default: go build ./cmd/cqlsize)")
	flag.BoolVar(&c.keep, "keep", false, "keep the keyspace")
	flag.BoolVar(&c.check, "check", false, "check the backfill's last copy with the checker")
	flag.Parse()
	c.hosts = strings.Split(*hosts, ",")
	if *hosts == "" || c.rows < 1 || c.rounds < 1 {
		fmt.Fprintln(os.Stderr, "benchbackfill: need -hosts (or $CASSANDRA_HOSTS), -rows >= 1 and -rounds >= 1")
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
	cluster := gocql.NewCluster(c.hosts...)
	cluster.Timeout, cluster.ConnectTimeout, cluster.Consistency = 30*time.Second, 10*time.Second, cons
	s, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("connect to %v: %w", c.hosts, err)
	}
	defer s.Close()
	if err := s.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		return err
	}
	if !c.keep {
		defer s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() //nolint:errcheck // best effort
	}
	ctx := context.Background()
	tb := backfillcheck.Tables{Source: ks + ".posts", Month: ks + ".posts_by_month"}
	ref := ks + ".posts_by_month_ref"
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
	return race(ctx, c, s, ks, tb, ref, cons, wcons)
}

// race alternates the two copies c.rounds times each (the target emptied before each), and
// prints every run and the comparison of the best of each.
func race(ctx context.Context, c config, s *gocql.Session, ks string, tb backfillcheck.Tables, ref string, cons, wcons gocql.Consistency) error {
	var refRates, bfRates []float64
	var peakKB, maxrssKB int64
	for round := 1; round <= c.rounds; round++ {
		if err := s.Query("TRUNCATE " + ref).Exec(); err != nil {
			return err
		}
		t0 := time.Now()
		n, err := backfillcheck.Copy(ctx, s, tb.Source, ref, "", backfillcheck.CopySpec{Consistency: cons, WriteConsistency: wcons})
		if err != nil {
			return err
		}
		d := time.Since(t0)
		refRates = append(refRates, float64(n)/d.Seconds())
		fmt.Printf("round %d: hand-written gocql copy: %d rows in %s: %.0f rows/s\n", round, n, d.Round(time.Millisecond), refRates[len(refRates)-1])

		if err := s.Query("TRUNCATE " + tb.Month).Exec(); err != nil {
			return err
		}
		r, err := backfill(c, ks)
		if err != nil {
			return err
		}
		bfRates = append(bfRates, float64(c.rows)/r.elapsed.Seconds())
		peakKB, maxrssKB = max(peakKB, r.vmHWM), max(maxrssKB, r.maxrss)
		fmt.Printf("round %d: cqlsize backfill: %d rows in %s: %.0f rows/s, VmHWM %.1f MB, maxrss %.1f MB\n", round, c.rows,
			r.elapsed.Round(time.Millisecond), bfRates[len(bfRates)-1], float64(r.vmHWM)/1024, float64(r.maxrss)/1024)
	}
	sort.Float64s(refRates)
	sort.Float64s(bfRates)
	best, bestRef := bfRates[len(bfRates)-1], refRates[len(refRates)-1]
	fmt.Printf("best of %d: cqlsize backfill %.0f rows/s, hand-written copy %.0f rows/s: ratio %.2f (goal >= 0.80)\n", c.rounds, best, bestRef, best/bestRef)
	fmt.Printf("peak RSS of cqlsize backfill copying %d rows: VmHWM %.1f MB, maxrss %.1f MB (goal < 200 MB)\n", c.rows, float64(peakKB)/1024, float64(maxrssKB)/1024)
	if c.check {
		return check(ctx, s, tb, cons)
	}
	return nil
}

type result struct {
	elapsed       time.Duration
	vmHWM, maxrss int64 // kB
}

// backfill runs the cqlsize backfill of the source into posts_by_month as a process,
// sampling its VmHWM every 20 ms (the peak so far, so the last sample is the peak up to
// then) and reading the kernel's maxrss when it exits.
func backfill(c config, ks string) (result, error) {
	cmd := exec.Command(c.bin, "backfill", "--hosts", strings.Join(c.hosts, ","), "-k", ks, "--from", "posts", "--to", "posts_by_month",
		"--derive", "month=month(created_at)", "--consistency", c.consistency, "--write-consistency", c.writeConsistency)
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
			if err != nil {
				return r, fmt.Errorf("cqlsize backfill: %v\n%s", err, out.String())
			}
			return r, nil
		case <-tick.C:
			r.vmHWM = max(r.vmHWM, backfillcheck.PeakRSS(cmd.Process.Pid))
		}
	}
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
