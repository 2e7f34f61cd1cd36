package trending

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
)

// newestFirst orders timeuuids as the table does: by time, newest first (the ids here
// have distinct times).
func newestFirst(a, b gocql.UUID) int { return b.Time().Compare(a.Time()) }

func TestTrending(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema, err := Schema(ks)
	if err != nil {
		t.Fatal(err)
	}
	model, err := NewModel(s, ks)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The hot hashtag: 600 posts over three days; a quiet one: 3 posts.
	now := time.Date(2024, 8, 20, 18, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(20, 8))
	var hot []gocql.UUID
	write := func(tag string, at time.Time) gocql.UUID {
		p := &Post{ID: gocql.UUIDFromTime(at), UserID: gocql.TimeUUID(), Hashtag: tag, Content: "#" + tag}
		if _, err := model.Insert(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	for i := 0; i < 600; i++ {
		hot = append(hot, write("cassandra", now.Add(-time.Duration(rng.Int64N(int64(66*time.Hour))))))
	}
	for i := 0; i < 3; i++ {
		write("quiet", now.Add(-time.Duration(i)*24*time.Hour))
	}
	slices.SortFunc(hot, newestFirst)

	day, shard, err := Placement(hot[0])
	if err != nil {
		t.Fatal(err)
	}
	extest.RunQueries(t, s, schema, "queries.cql", map[string]any{
		"hashtag": "cassandra", "day": day, "shard": shard, "post_id": hot[0], "[limit]": 20,
	})

	// The shards share the load: each holds about a fifth of the newest day (the bounds
	// are over 4 standard deviations of a fair split away).
	perShard := make([]int, Shards)
	for i := range perShard {
		iter := s.Query("SELECT post_id FROM posts_by_hashtag WHERE hashtag = 'cassandra' AND day = ? AND shard = ?", day, i).Iter()
		perShard[i] = iter.NumRows()
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for _, n := range perShard {
		total += n
	}
	for i, n := range perShard {
		if n < total/Shards/3 || n > 2*total/Shards {
			t.Errorf("shard %d holds %d of the day's %d posts (%v): bucket.Shard does not spread them", i, n, total, perShard)
		}
	}
	t.Logf("%s: %d posts over %d shards: %v", day, total, Shards, perShard)

	tl := NewTimeline(s, ks, []byte("secret"))
	for _, limit := range []int{7, 50, 1000} {
		got := extest.Timeline[gocql.UUID](t, ctx, tl, denorm.PageRequest{Key: []any{"cassandra"}, Newest: now, Limit: limit}, "post_id")
		if !slices.Equal(got, hot) {
			t.Errorf("%d a page: %d posts, want the 600 newest first, each once", limit, len(got))
		}
	}
	// A 1-row page reads the newest day of each shard, nothing more.
	p, err := tl.Page(ctx, denorm.PageRequest{Key: []any{"cassandra"}, Newest: now, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Visited != Shards || len(p.Rows) != 1 || p.Rows[0]["post_id"] != hot[0] {
		t.Errorf("a 1-row page: %d rows in %d partition reads, want the newest post in %d", len(p.Rows), p.Visited, Shards)
	}
	// "The last 24 hours": two days of shards, then the timeline ends.
	oldest := now.Add(-24 * time.Hour)
	var want []gocql.UUID
	for _, id := range hot {
		if at, _ := bucket.UUIDTime(id); !at.Before(oldest) {
			want = append(want, id)
		}
	}
	p, err = tl.Page(ctx, denorm.PageRequest{Key: []any{"cassandra"}, Newest: now, Oldest: oldest, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var got []gocql.UUID
	for _, r := range p.Rows {
		got = append(got, r["post_id"].(gocql.UUID))
	}
	if !slices.Equal(got, want) || p.Next != "" || p.Visited != 2*Shards {
		t.Errorf("the last 24 hours: %d posts in %d partition reads (next %q), want %d in %d and the end", len(got), p.Visited, p.Next, len(want), 2*Shards)
	}
	// The quiet hashtag (3 posts, the last 3 days) without a bound: a page of 10 reads at
	// most 8 days (twice the 4 days, ceil(10 / 3.3), the median hashtag needs), finds the
	// 3 posts, and says it stopped early; the walk then goes on, page by page, to the
	// retention's end, the day holding 30 days before now: 31 days of shards in all. With
	// the last 72 hours as its bound, one page reads 4 days and ends.
	unbounded, err := tl.Page(ctx, denorm.PageRequest{Key: []any{"quiet"}, Newest: now, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	bounded, err := tl.Page(ctx, denorm.PageRequest{Key: []any{"quiet"}, Newest: now, Oldest: now.Add(-72 * time.Hour), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(unbounded.Rows) != 3 || unbounded.Visited != 8*Shards || !unbounded.StoppedEarly || unbounded.Next == "" {
		t.Errorf("quiet hashtag, no bound: %d rows in %d reads, stopped early %v; want 3 in %d, stopped early with a token",
			len(unbounded.Rows), unbounded.Visited, unbounded.StoppedEarly, 8*Shards)
	}
	if len(bounded.Rows) != 3 || bounded.Visited != 4*Shards || bounded.StoppedEarly || bounded.Next != "" {
		t.Errorf("quiet hashtag, last 72 hours: %d rows in %d reads, stopped early %v, token %q; want 3 in %d and the end",
			len(bounded.Rows), bounded.Visited, bounded.StoppedEarly, bounded.Next, 4*Shards)
	}
	visits, pages, req := unbounded.Visited, 1, denorm.PageRequest{Key: []any{"quiet"}, Limit: 10, Token: unbounded.Next}
	for ; req.Token != ""; pages++ {
		p, err := tl.Page(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Rows) != 0 || p.StoppedEarly != (p.Next != "") {
			t.Errorf("quiet hashtag, page %d after its posts: %d rows, stopped early %v, token %q", pages, len(p.Rows), p.StoppedEarly, p.Next)
		}
		visits, req.Token = visits+p.Visited, p.Next
	}
	if visits != 31*Shards {
		t.Errorf("quiet hashtag to the retention's end: %d partition reads in %d pages, want 31 days × %d shards", visits, pages, Shards)
	}
	t.Logf("quiet hashtag, 3 posts: %d partition reads in its first page with no bound (%d to the retention's end, %d pages), %d with the last 72 hours",
		unbounded.Visited, visits, pages, bounded.Visited)
}
