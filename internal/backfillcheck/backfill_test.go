package backfillcheck_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

// The derive rules of the two targets, as a user writes them.
var (
	monthRules  = []string{"month=month(created_at)"}
	tagDayRules = []string{"hashtag=each(hashtags)", "day=day(created_at)"}
)

// backfillArgs is the command line of a backfill from source to target in ks.
func backfillArgs(hosts []string, ks, source, target string, rules []string, extra ...string) []string {
	// A lease of 10 s, not 30: a killed run's ranges are free again sooner, and the rerun
	// waits less for them.
	args := []string{"backfill", "--hosts", strings.Join(hosts, ","), "-k", ks, "--from", source, "--to", target, "--lease", "10s"}
	for _, r := range rules {
		args = append(args, "--derive", r)
	}
	return append(args, extra...)
}

// checkAll reads the source and both targets with the checker and fails t on any
// difference. It returns the target rows it read, by table.
func checkAll(t *testing.T, s *gocql.Session, tb backfillcheck.Tables, cons gocql.Consistency, slack time.Duration) map[string]map[string]backfillcheck.Row {
	t.Helper()
	read := map[string]map[string]backfillcheck.Row{}
	ctx := context.Background()
	opts := backfillcheck.ReadOptions{Consistency: cons}
	began := time.Now()
	src, err := backfillcheck.ReadSource(ctx, s, tb.Source, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []struct {
		name   string
		read   func(context.Context, *gocql.Session, string, backfillcheck.ReadOptions) (map[string]backfillcheck.Row, error)
		expect func([]backfillcheck.SourceRow) map[string]backfillcheck.Expected
	}{{tb.Month, backfillcheck.ReadMonth, backfillcheck.ExpectMonth}, {tb.TagDay, backfillcheck.ReadTagDay, backfillcheck.ExpectTagDay}} {
		if target.name == "" {
			continue
		}
		found, err := target.read(ctx, s, target.name, opts)
		if err != nil {
			t.Fatal(err)
		}
		read[target.name] = found
		rep := backfillcheck.Compare(target.name, target.expect(src), found, slack)
		t.Log(rep)
		if !rep.OK() {
			t.Errorf("the checker disagrees with the backfill: %s", rep)
		}
		if rep.TTLCells == 0 {
			t.Errorf("%s: no cell with a TTL was compared: the TTL check proved nothing", target.name)
		}
	}
	t.Logf("checker: %d source rows read and both targets compared in %s", len(src), time.Since(began).Round(time.Millisecond))
	return read
}

// Issue: the backfill into a re-keyed table (month bucket) and a fan-out table (one row per
// hashtag, day bucket), while a service keeps writing to all three tables, SIGKILLed once
// mid-copy and rerun; then every row of both targets is compared with the source.
func TestBackfillUnderDualWritesKilledAndRerun(t *testing.T) {
	rows := envInt(t, "CQLSIZE_BACKFILL_ROWS", 200_000)
	tb := backfillcheck.DefaultTables
	s, ks := keyspace(t, tb)
	hosts := cassandratest.Hosts(t)
	ctx := context.Background()
	cqlsize(t) // build before the clock starts
	began := time.Now()
	posts, err := backfillcheck.Generate(ctx, s, tb, backfillcheck.Spec{Rows: rows, Seed: 16, Consistency: gocql.One, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated %d source rows in %s", rows, time.Since(began).Round(time.Millisecond))

	m := backfillcheck.StartMutator(s, tb, posts, backfillcheck.MutatorSpec{Consistency: gocql.One, Rate: 300, Seed: 16})
	defer m.Stop()
	copyStart := time.Now()
	month := start(t, "backfill month (first run)", backfillArgs(hosts, ks, tb.Source, tb.Month, monthRules)...)
	tagDay := start(t, "backfill tag/day (first run)", backfillArgs(hosts, ks, tb.Source, tb.TagDay, tagDayRules)...)
	opsAtStart := m.Ops()
	if killed := killMidCopy(t, s, tb.Month, "user_id, month", rows, month, tagDay); killed == 0 {
		t.Fatalf("no backfill was running when the kill came:\n%v\n%v", month, tagDay)
	}
	t.Logf("%v\n%v", month, tagDay)
	month2 := start(t, "backfill month (rerun)", backfillArgs(hosts, ks, tb.Source, tb.Month, monthRules)...)
	tagDay2 := start(t, "backfill tag/day (rerun)", backfillArgs(hosts, ks, tb.Source, tb.TagDay, tagDayRules)...)
	for _, p := range []*proc{month2, tagDay2} {
		if code := p.wait(t, 10*time.Minute); code != 0 {
			t.Fatalf("%v", p)
		}
		t.Logf("%v", p)
	}
	slack := time.Since(copyStart)
	during := m.Ops() - opsAtStart
	stats := m.Stop()
	t.Logf("service writes during the copy: %d (%s)", during, stats)
	if stats.Errors > 0 {
		t.Fatalf("the mutator failed: %s: %v", stats, stats.FirstErr)
	}
	if during < 50 || stats.Deletes == 0 || stats.Retags == 0 {
		t.Fatalf("too few service writes during the copy to prove anything: %d (%s)", during, stats)
	}
	read := checkAll(t, s, tb, gocql.One, slack)
	if t.Failed() {
		return
	}
	pythonAgrees(t, hosts, ks, tb, read[tb.Month], read[tb.TagDay], 300)
	// --verify of a sample after a clean backfill: nothing missing (the rows removed by hand
	// are found by TestBackfillVerifyFindsRowsRemovedByHand, on fewer rows: --full reads
	// every row again).
	verifyClean(t, hosts, ks, tb, "--verify")
}
