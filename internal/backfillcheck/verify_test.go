package backfillcheck_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

// verifyFindsHandDeletes runs --verify after a backfill the checker found clean (0 missing,
// exit 0), removes rows from each target by hand, and runs --verify --full again: it must
// name the removed rows as missing and exit 1.
func verifyFindsHandDeletes(t *testing.T, s *gocql.Session, hosts []string, ks string, tb backfillcheck.Tables) {
	t.Helper()
	for _, target := range []struct {
		table string
		rules []string
	}{{tb.Month, monthRules}, {tb.TagDay, tagDayRules}} {
		for _, extra := range [][]string{{"--verify"}, {"--verify", "--full"}} {
			p := start(t, "verify "+target.table, backfillArgs(hosts, ks, tb.Source, target.table, target.rules, extra...)...)
			if code := p.wait(t, 5*time.Minute); code != 0 || !saysMissing(p, 0) {
				t.Errorf("after a clean backfill, want exit 0 and 0 missing:\n%v", p)
			}
		}
	}
	src, err := backfillcheck.ReadSource(context.Background(), s, tb.Source, backfillcheck.ReadOptions{Consistency: gocql.One})
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
}

// saysMissing reports whether p's output gives n as the number of missing rows.
func saysMissing(p *proc, n int) bool {
	out := p.out.String() + p.err.String()
	re := regexp.MustCompile(fmt.Sprintf(`(?i)(\b%d\b[^\n\d]{0,20}missing|"?missing"?[^\n\d]{0,20}\b%d\b)`, n, n))
	return re.MatchString(out)
}
