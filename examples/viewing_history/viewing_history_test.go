package viewinghistory_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
	viewinghistory "github.com/cqlsize/cqlsize/examples/viewing_history"
)

func TestViewingHistory(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema, err := viewinghistory.Schema(ks)
	if err != nil {
		t.Fatal(err)
	}
	if tb := schema.Table(ks, "viewing_history"); tb.Options.CompactionClass() != "TimeWindowCompactionStrategy" || tb.Options.DefaultTTL != 63072000 {
		t.Fatalf("viewing_history: compaction %s, default TTL %d", tb.Options.CompactionClass(), tb.Options.DefaultTTL)
	}
	if ttl := schema.Table(ks, "viewing_history").Options.DefaultTTL; time.Duration(ttl)*time.Second != viewinghistory.Retention {
		t.Errorf("the tables keep plays %d s, Retention says %s", ttl, viewinghistory.Retention)
	}
	st, err := viewinghistory.NewStore(s, ks, []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	user := gocql.TimeUUID()
	shows := []gocql.UUID{gocql.TimeUUID(), gocql.TimeUUID(), gocql.TimeUUID()}
	// 40 plays over about two months, every 36 hours, cycling through three shows.
	now := time.Now().UTC().Truncate(time.Millisecond)
	var plays []viewinghistory.Play
	for i := 39; i >= 0; i-- {
		p := viewinghistory.Play{UserID: user, ShowID: shows[i%3], WatchedAt: now.Add(-time.Duration(i) * 36 * time.Hour), Position: int32(60 * i)}
		if i%5 == 0 {
			done := true
			p.Completed = &done
		}
		if err := st.Record(ctx, &p); err != nil {
			t.Fatal(err)
		}
		plays = append(plays, p)
	}
	newest := plays[len(plays)-1]
	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{
		"user_id": user, "month": viewinghistory.Months().For(newest.WatchedAt).String(), "watched_at": newest.WatchedAt.Add(-72 * time.Hour),
	})
	if rows["continue_watching"] != 3 {
		t.Errorf("continue_watching: %d shows, want 3", rows["continue_watching"])
	}
	// Each show's progress is its newest play (the last three plays, one per show), with
	// completed as the newest play that set it left it: a play sends it unset, not null.
	progress, err := st.ContinueWatching(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	latest := map[gocql.UUID]viewinghistory.Play{}
	for _, p := range plays {
		if p.Completed == nil {
			p.Completed = latest[p.ShowID].Completed
		}
		latest[p.ShowID] = p
	}
	if len(progress) != 3 {
		t.Errorf("ContinueWatching: %d shows, want 3", len(progress))
	}
	for _, g := range progress {
		w, ok := latest[g.ShowID]
		if !ok || g.Position != w.Position || !g.LastWatched.Equal(w.WatchedAt) || (g.Completed == nil) != (w.Completed == nil) ||
			g.Completed != nil && *g.Completed != *w.Completed {
			t.Errorf("progress in %s: position %d at %s (completed %v), want its newest play %+v", g.ShowID, g.Position, g.LastWatched, g.Completed, w)
		}
	}

	// The table's two-year TTL applies to rows written without one.
	var ttl int
	if err := s.Query("SELECT TTL(position) FROM viewing_history WHERE user_id = ? AND month = ? LIMIT 1", user, viewinghistory.Months().For(newest.WatchedAt).String()).Scan(&ttl); err != nil {
		t.Fatal(err)
	}
	if ttl < 63072000-600 || ttl > 63072000 {
		t.Errorf("TTL %d, want the table default of 63072000", ttl)
	}

	// The whole history, newest first, across the months.
	got := extest.Timeline[time.Time](t, ctx, st.History, denorm.PageRequest{Key: []any{user}, Newest: newest.WatchedAt, Limit: 9}, "watched_at")
	var want []time.Time
	for i := len(plays) - 1; i >= 0; i-- {
		want = append(want, plays[i].WatchedAt)
	}
	if !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("history has %d plays, want all %d newest first", len(got), len(want))
	}
}
