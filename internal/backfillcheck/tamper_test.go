package backfillcheck_test

import (
	"context"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

// The reference copy is right by the checker, a mutator's dual writes keep it right, and
// each way a copy goes wrong is counted once where it was made: the checker can fail.
func TestCheckerCatchesBadCopies(t *testing.T) {
	s, ks, posts := setup(t, 3000)
	ctx := context.Background()
	tb := backfillcheck.DefaultTables
	start := time.Now()
	n, err := backfillcheck.Copy(ctx, s, tb.Source, tb.Month, tb.TagDay, backfillcheck.CopySpec{Consistency: gocql.One})
	if err != nil {
		t.Fatal(err)
	}
	slack := time.Since(start)
	if n != 3000 {
		t.Fatalf("the reference copy read %d source rows, want 3000", n)
	}
	m := backfillcheck.StartMutator(s, tb, posts, backfillcheck.MutatorSpec{Consistency: gocql.One, Rate: 400, Seed: 3})
	time.Sleep(3 * time.Second)
	stats := m.Stop()
	t.Logf("mutator: %s", stats)
	if stats.Errors > 0 || stats.Inserts == 0 || stats.Edits == 0 || stats.Retags == 0 || stats.Deletes == 0 || stats.Unlikes == 0 {
		t.Fatalf("mutator: %s (first error %v)", stats, stats.FirstErr)
	}
	month, tagDay, fm, ft := check(t, s, slack)
	pythonAgrees(t, cassandratest.Hosts(t), ks, tb, fm, ft, 200)
	for _, r := range []backfillcheck.Report{month, tagDay} {
		t.Log(r)
		if !r.OK() || r.TTLCells == 0 || r.Expected < 3000 {
			t.Fatalf("a correct copy: %s", r)
		}
	}

	src, err := backfillcheck.ReadSource(ctx, s, tb.Source, backfillcheck.ReadOptions{Consistency: gocql.One})
	if err != nil {
		t.Fatal(err)
	}
	var plain, ttl, tagged []backfillcheck.SourceRow
	for _, r := range src {
		c, ok := r.Cells["content"]
		switch {
		case ok && c.TTL > 0:
			ttl = append(ttl, r)
		case ok && len(r.Hashtags) > 0:
			tagged = append(tagged, r)
		case ok:
			plain = append(plain, r)
		}
	}
	if len(plain) < 5 || len(ttl) < 1 || len(tagged) < 2 {
		t.Fatalf("too few rows to tamper with: %d plain, %d with a TTL, %d tagged", len(plain), len(ttl), len(tagged))
	}
	exec := func(stmt string, args ...any) {
		t.Helper()
		if err := s.Query(stmt, args...).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	where := " WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?"
	key := func(r backfillcheck.SourceRow) []any {
		return []any{r.UserID, backfillcheck.Month(r.CreatedAt), r.CreatedAt, r.PostID}
	}
	now := time.Now().UnixMicro()
	// Three month rows lost.
	for _, r := range plain[:3] {
		exec("DELETE FROM "+tb.Month+where, key(r)...)
	}
	// A content copied at the current time: the same value, another write time.
	exec("UPDATE "+tb.Month+" USING TIMESTAMP ? SET content = ?"+where, append([]any{now, *plain[3].Content}, key(plain[3])...)...)
	// Another value at the source's own write time (the greater value wins the tie).
	exec("UPDATE "+tb.Month+" USING TIMESTAMP ? SET content = ?"+where,
		append([]any{plain[4].Cells["content"].Write, "\U0010FFFF tampered"}, key(plain[4])...)...)
	// A TTL that is not the remaining one: the cell expires 10 minutes late.
	c := ttl[0].Cells["content"]
	exec("UPDATE "+tb.Month+" USING TIMESTAMP ? AND TTL ? SET content = ?"+where,
		append([]any{c.Write, c.TTL + 600, *ttl[0].Content}, key(ttl[0])...)...)
	// A post deleted by the service, then copied back at the current time by a naive copy.
	gone := tagged[0]
	exec("DELETE FROM "+tb.Source+" USING TIMESTAMP ? WHERE user_id = ? AND created_at = ? AND post_id = ?", now, gone.UserID, gone.CreatedAt, gone.PostID)
	exec("DELETE FROM "+tb.Month+" USING TIMESTAMP ?"+where, append([]any{now}, key(gone)...)...)
	exec("INSERT INTO "+tb.Month+" (user_id, month, created_at, post_id, content) VALUES (?, ?, ?, ?, ?)", append(key(gone), *gone.Content)...)
	// Fan-out: its rows are left alone (a copy that missed the delete) and one row of another post is
	// written to the wrong day.
	moved := tagged[1]
	exec("DELETE FROM "+tb.TagDay+" WHERE hashtag = ? AND day = ? AND created_at = ? AND user_id = ? AND post_id = ?",
		moved.Hashtags[0], backfillcheck.Day(moved.CreatedAt), moved.CreatedAt, moved.UserID, moved.PostID)
	exec("INSERT INTO "+tb.TagDay+" (hashtag, day, created_at, user_id, post_id, content) VALUES (?, ?, ?, ?, ?, ?)",
		moved.Hashtags[0], backfillcheck.Day(moved.CreatedAt).AddDate(0, 0, 1), moved.CreatedAt, moved.UserID, moved.PostID, *moved.Content)

	month, tagDay, _, _ = check(t, s, slack)
	t.Log(month)
	t.Log(tagDay)
	if month.Missing != 3 || month.Extra != 1 || month.Values != 1 || month.Writes != 1 || month.TTLs != 1 {
		t.Errorf("%s\nwant 3 missing, 1 extra, 1 with other values, 1 with another write time, 1 with another TTL", month)
	}
	extraTags := len(gone.Hashtags) + 1
	if tagDay.Missing != 1 || tagDay.Extra != extraTags || tagDay.Values+tagDay.Writes+tagDay.TTLs != 0 {
		t.Errorf("%s\nwant 1 missing, %d extra", tagDay, extraTags)
	}
}
