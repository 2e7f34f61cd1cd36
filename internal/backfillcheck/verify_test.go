package backfillcheck_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

// verifyClean runs the backfill's verification of both targets with the extra flags after a
// backfill the checker found clean: it must report 0 missing and exit 0.
func verifyClean(t *testing.T, hosts []string, ks string, tb backfillcheck.Tables, extra ...string) {
	t.Helper()
	for _, target := range []struct {
		table string
		rules []string
	}{{tb.Month, monthRules}, {tb.TagDay, tagDayRules}} {
		p := start(t, "verify "+target.table, backfillArgs(hosts, ks, tb.Source, target.table, target.rules, extra...)...)
		if code := p.wait(t, 5*time.Minute); code != 0 || !saysMissing(p, 0) {
			t.Errorf("after a clean backfill, want exit 0 and 0 missing:\n%v", p)
		} else {
			t.Logf("%v", p)
		}
	}
}

// Issue: --verify finds rows removed from a target by hand, and reports 0 after a clean
// backfill. Rows are removed from both targets after a backfill the checker found clean;
// --verify --full must name exactly that many missing and exit 1; a sampled --verify must
// find some of the half of a target removed.
func TestBackfillVerifyFindsRowsRemovedByHand(t *testing.T) {
	tb := backfillcheck.DefaultTables
	s, ks := keyspace(t, tb)
	hosts := cassandratest.Hosts(t)
	ctx := context.Background()
	if _, err := backfillcheck.Generate(ctx, s, tb, backfillcheck.Spec{Rows: 3000, Seed: 9, Consistency: gocql.One}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	for _, target := range []struct {
		table string
		rules []string
	}{{tb.Month, monthRules}, {tb.TagDay, tagDayRules}} {
		if p := start(t, "backfill "+target.table, backfillArgs(hosts, ks, tb.Source, target.table, target.rules)...); p.wait(t, 5*time.Minute) != 0 {
			t.Fatalf("%v", p)
		}
	}
	checkAll(t, s, tb, gocql.One, time.Since(began))
	verifyClean(t, hosts, ks, tb, "--verify", "--full")
	if t.Failed() {
		return
	}
	src, err := backfillcheck.ReadSource(ctx, s, tb.Source, backfillcheck.ReadOptions{Consistency: gocql.One})
	if err != nil {
		t.Fatal(err)
	}
	removed := map[string]int{}
	for _, r := range src {
		if removed[tb.Month] < 5 {
			if err := s.Query("DELETE FROM "+tb.Month+" WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?",
				r.UserID, backfillcheck.Month(r.CreatedAt), r.CreatedAt, r.PostID).Exec(); err != nil {
				t.Fatal(err)
			}
			removed[tb.Month]++
			continue
		}
		if removed[tb.TagDay] < 3 && len(r.Hashtags) > 0 {
			if err := s.Query("DELETE FROM "+tb.TagDay+" WHERE hashtag = ? AND day = ? AND created_at = ? AND user_id = ? AND post_id = ?",
				r.Hashtags[0], backfillcheck.Day(r.CreatedAt), r.CreatedAt, r.UserID, r.PostID).Exec(); err != nil {
				t.Fatal(err)
			}
			removed[tb.TagDay]++
		}
	}
	for _, target := range []struct {
		table string
		rules []string
	}{{tb.Month, monthRules}, {tb.TagDay, tagDayRules}} {
		p := start(t, "verify --full "+target.table+" after removing rows", backfillArgs(hosts, ks, tb.Source, target.table, target.rules, "--verify", "--full")...)
		if code := p.wait(t, 5*time.Minute); code != 1 || !saysMissing(p, removed[target.table]) {
			t.Errorf("after removing %d rows of %s by hand, want exit 1 and %d missing:\n%v", removed[target.table], target.table, removed[target.table], p)
		} else {
			t.Logf("%v", p)
		}
	}
	// Half the month table gone: a sample of 200 source rows finds some of them.
	n := 0
	for i, r := range src {
		if i%2 == 0 {
			if err := s.Query("DELETE FROM "+tb.Month+" WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?",
				r.UserID, backfillcheck.Month(r.CreatedAt), r.CreatedAt, r.PostID).Exec(); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	p := start(t, "verify a sample after removing half", backfillArgs(hosts, ks, tb.Source, tb.Month, monthRules, "--verify", "--sample", "200")...)
	if code := p.wait(t, 5*time.Minute); code != 1 || saysMissing(p, 0) {
		t.Errorf("after removing %d of %d rows of %s, a sampled --verify must exit 1 and find some missing:\n%v", n, len(src), tb.Month, p)
	} else {
		t.Logf("%v", p)
	}
}

// saysMissing reports whether p's output gives n as the number of missing rows.
func saysMissing(p *proc, n int) bool {
	out := p.out.String() + p.err.String()
	re := regexp.MustCompile(fmt.Sprintf(`\b%d missing\b`, n))
	return re.MatchString(out)
}
