package viewinghistory

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
)

type play struct {
	UserID, ShowID gocql.UUID
	WatchedAt      time.Time
	Position       int32
	Completed      *bool // nil until the show is finished or abandoned: sent unset
}

func months() bucket.Scheme {
	s, _ := bucket.New(bucket.Month())
	return s
}

func mappings() []denorm.Mapping[play] {
	m := months()
	return []denorm.Mapping[play]{
		denorm.Map("viewing_history", func(p *play, out *denorm.Rows) error {
			out.Add().Set("user_id", p.UserID).Set("month", m.For(p.WatchedAt).String()).Set("watched_at", p.WatchedAt).
				Set("show_id", p.ShowID).Set("position", p.Position).Set("completed", p.Completed)
			return nil
		}),
		denorm.Map("progress_by_user", func(p *play, out *denorm.Rows) error {
			out.Add().Set("user_id", p.UserID).Set("show_id", p.ShowID).Set("position", p.Position).
				Set("completed", p.Completed).Set("last_watched", p.WatchedAt)
			return nil
		}),
	}
}

func TestViewingHistory(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema := extest.Schema(t, "migrations", ks)
	if tb := schema.Table(ks, "viewing_history"); tb.Options.CompactionClass() != "TimeWindowCompactionStrategy" || tb.Options.DefaultTTL != 63072000 {
		t.Fatalf("viewing_history: compaction %s, default TTL %d", tb.Options.CompactionClass(), tb.Options.DefaultTTL)
	}
	model, err := denorm.New(s, schema, denorm.Options{Keyspace: ks}, mappings()...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	user := gocql.TimeUUID()
	shows := []gocql.UUID{gocql.TimeUUID(), gocql.TimeUUID(), gocql.TimeUUID()}
	// 40 plays over about two months, every 36 hours, cycling through three shows.
	now := time.Now().UTC().Truncate(time.Millisecond)
	var plays []play
	for i := 39; i >= 0; i-- {
		p := play{UserID: user, ShowID: shows[i%3], WatchedAt: now.Add(-time.Duration(i) * 36 * time.Hour), Position: int32(60 * i)}
		if i%5 == 0 {
			done := true
			p.Completed = &done
		}
		if _, err := model.Insert(ctx, &p); err != nil {
			t.Fatal(err)
		}
		plays = append(plays, p)
	}
	newest := plays[len(plays)-1]
	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{
		"user_id": user, "month": months().For(newest.WatchedAt).String(), "watched_at": newest.WatchedAt.Add(-72 * time.Hour),
	})
	if rows["continue_watching"] != 3 {
		t.Errorf("continue_watching: %d shows, want 3", rows["continue_watching"])
	}

	// The table's two-year TTL applies to rows written without one.
	var ttl int
	if err := s.Query("SELECT TTL(position) FROM viewing_history WHERE user_id = ? AND month = ? LIMIT 1", user, months().For(newest.WatchedAt).String()).Scan(&ttl); err != nil {
		t.Fatal(err)
	}
	if ttl < 63072000-600 || ttl > 63072000 {
		t.Errorf("TTL %d, want the table default of 63072000", ttl)
	}

	// The whole history, newest first, across the months.
	tl := &denorm.Timeline{Session: s, Query: "SELECT watched_at, show_id FROM viewing_history WHERE user_id = ? AND month = ?",
		Scheme: months(), MaxBuckets: 4}
	got := extest.Timeline[time.Time](t, ctx, tl, denorm.PageRequest{Key: []any{user}, Newest: newest.WatchedAt, Limit: 9}, "watched_at")
	var want []time.Time
	for i := len(plays) - 1; i >= 0; i-- {
		want = append(want, plays[i].WatchedAt)
	}
	if !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("history has %d plays, want all %d newest first", len(got), len(want))
	}
}
