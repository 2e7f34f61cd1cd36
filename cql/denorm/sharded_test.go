package denorm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cassandratest"
)

// compareCell must order values as the node does, or a shard merge interleaves shards out
// of order. The node is the judge: it returns each table's rows in clustering order.
func TestCompareCellMatchesCassandra(t *testing.T) {
	s, _, ks := postsKeyspace(t)
	rng := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	gen := map[string]func(i int) any{
		"timeuuid": func(i int) any {
			node := make([]byte, 6)
			for j := range node {
				node[j] = byte(rng.UintN(256))
			}
			// Few timestamps, so many UUIDs share one and the clock and node bytes
			// (signed in Cassandra's order) decide.
			ticks := int64(0x01b21dd213814000) + base.UnixNano()/100 + int64(rng.IntN(4))<<33 + int64(rng.IntN(3))
			return gocql.TimeUUIDWith(ticks, uint32(rng.UintN(1<<14)), node)
		},
		"timestamp": func(i int) any {
			return base.Add(time.Duration(rng.Int64N(1<<50)-1<<49) * time.Millisecond / 1000).Truncate(time.Millisecond)
		},
		"bigint":   func(i int) any { return rng.Int64() - 1<<62 },
		"int":      func(i int) any { return int32(rng.Uint32()) },
		"smallint": func(i int) any { return int16(rng.Uint32()) },
		"tinyint":  func(i int) any { return int8(rng.Uint32()) },
		"text": func(i int) any {
			return []string{"", "a", "ab", "B", "é", "z", "\u00ff", "日本", "a\u0000"}[i%9] + fmt.Sprint(rng.IntN(50))
		},
		"blob":    func(i int) any { return []byte{byte(rng.UintN(256)), byte(rng.UintN(256))}[:rng.IntN(3)] },
		"date":    func(i int) any { return base.AddDate(0, 0, rng.IntN(200000)-100000) },
		"time":    func(i int) any { return time.Duration(rng.Int64N(int64(24 * time.Hour))) },
		"boolean": func(i int) any { return i%2 == 0 },
	}
	for typ, next := range gen {
		table := "ord_" + typ
		cassandratest.DDL(t, s, ks, fmt.Sprintf("CREATE TABLE %s (k int, c %s, PRIMARY KEY (k, c))", table, typ))
		for i := 0; i < 150; i++ {
			if err := s.Query(fmt.Sprintf("INSERT INTO %s (k, c) VALUES (0, ?)", table), next(i)).Exec(); err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
		}
		iter := s.Query(fmt.Sprintf("SELECT c FROM %s WHERE k = 0", table)).Iter()
		info := iter.Columns()[0].TypeInfo
		var got [][]byte
		for {
			row := map[string]any{}
			if !iter.MapScan(row) {
				break
			}
			b, err := gocql.Marshal(info, row["c"])
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b)
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		kind := typeNamed(typ)
		if !knownOrder(kind) {
			t.Fatalf("%s: no known order", typ)
		}
		for i := 1; i < len(got); i++ {
			if compareCell(kind, got[i-1], got[i]) >= 0 {
				t.Errorf("%s: the node puts %x before %x; compareCell does not", typ, got[i-1], got[i])
			}
		}
		if len(got) < 2 {
			t.Errorf("%s: %d distinct values, nothing compared", typ, len(got))
		}
	}
}

// hashtagPosts creates a sharded posts_by_hashtag in ks (s's keyspace) and writes n posts
// of one hashtag at random times in [from, to), each to the shard bucket.Shard picks from
// its id.
func hashtagPosts(t *testing.T, s *gocql.Session, ks, tag string, shards, n int, from, to time.Time, seed uint64) []gocql.UUID {
	t.Helper()
	cassandratest.DDL(t, s, ks, "CREATE TABLE IF NOT EXISTS tag_posts (hashtag text, month text, shard int, post_id timeuuid, content text, PRIMARY KEY ((hashtag, month, shard), post_id)) WITH CLUSTERING ORDER BY (post_id DESC)")
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []gocql.UUID
	for i := 0; i < n; i++ {
		at := from.Add(time.Duration(rng.Int64N(int64(to.Sub(from)))))
		out = append(out, writeTagPost(t, s, tag, shards, at))
	}
	slices.SortFunc(out, func(a, b gocql.UUID) int { return compareTimeUUID(b[:], a[:]) }) // newest first
	return out
}

func writeTagPost(t *testing.T, s *gocql.Session, tag string, shards int, at time.Time) gocql.UUID {
	id := gocql.UUIDFromTime(at)
	shard, err := bucket.Shard(id[:], shards)
	if err != nil {
		t.Error(err)
		return id
	}
	if err := s.Query("INSERT INTO tag_posts (hashtag, month, shard, post_id, content) VALUES (?, ?, ?, ?, 'x')",
		tag, months.For(at).String(), shard, id).Exec(); err != nil {
		t.Error(err)
	}
	return id
}

func scroll(t *testing.T, tl *Timeline, req PageRequest) (got []gocql.UUID, pages, visits int) {
	t.Helper()
	for {
		p, err := tl.Page(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Rows) > req.Limit {
			t.Fatalf("%d rows for a limit of %d", len(p.Rows), req.Limit)
		}
		got, pages, visits = append(got, ids(p.Rows)...), pages+1, visits+p.Visited
		if p.StoppedEarly != (p.Next != "" && len(p.Rows) < req.Limit) {
			t.Errorf("page %d: %d rows for a limit of %d, token %q, stopped early %v: a short page with a token, and only one, stopped early",
				pages, len(p.Rows), req.Limit, p.Next, p.StoppedEarly)
		}
		if req.Token = p.Next; req.Token == "" {
			return
		}
		if pages > 10_000 {
			t.Fatal("no end")
		}
	}
}

func TestShardedTimeline(t *testing.T) {
	s, _, ks := postsKeyspace(t)
	const shards = 4
	newest := time.Date(2024, 8, 20, 0, 0, 0, 0, time.UTC)
	hot := hashtagPosts(t, s, ks, "hot", shards, 300, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), newest, 1)
	// A sparse tag: most of its partitions (month, shard) are empty.
	sparse := hashtagPosts(t, s, ks, "sparse", shards, 5, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), newest, 2)
	tl := &Timeline{Session: s, Query: "SELECT post_id FROM tag_posts WHERE hashtag = ? AND month = ? AND shard = ?",
		Scheme: months, Shards: shards, Retention: newest.Sub(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)), Secret: []byte("k")}
	for tag, want := range map[string][]gocql.UUID{"hot": hot, "sparse": sparse} {
		for _, limit := range []int{1, 3, 10, 64, 1000} {
			got, pages, visits := scroll(t, tl, PageRequest{Key: []any{tag}, Newest: newest, Limit: limit})
			if !slices.Equal(got, want) {
				t.Errorf("%s, %d a page: %d rows in %d pages, want the %d newest first, each once", tag, limit, len(got), pages, len(want))
			}
			t.Logf("%s over %d shards, %d a page: %d rows, %d pages, %d partition reads", tag, shards, limit, len(got), pages, visits)
		}
	}
	// A 1-row page reads the newest bucket of each shard: any shard may hold the newest row.
	p, err := tl.Page(context.Background(), PageRequest{Key: []any{"hot"}, Newest: newest, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Visited != shards || len(p.Rows) != 1 || ids(p.Rows)[0] != hot[0] {
		t.Errorf("a 1-row page: %d rows in %d partition reads, want the newest post in %d", len(p.Rows), p.Visited, shards)
	}
	// The oldest bound holds across shards.
	oldest := time.Date(2024, 7, 15, 0, 0, 0, 0, time.UTC)
	var want []gocql.UUID
	for _, id := range hot {
		if at, _ := bucket.UUIDTime(id); !at.Before(oldest) {
			want = append(want, id)
		}
	}
	got, _, visits := scroll(t, tl, PageRequest{Key: []any{"hot"}, Newest: newest, Oldest: oldest, Limit: 1000})
	if !slices.Equal(got, want) || visits != 2*shards {
		t.Errorf("oldest bound: %d rows in %d partition reads, want %d in %d (2 months × %d shards)", len(got), visits, len(want), 2*shards, shards)
	}
	// Read with the wrong shard count, a token is refused.
	p, _ = tl.Page(context.Background(), PageRequest{Key: []any{"hot"}, Newest: newest, Limit: 5})
	eight := *tl
	eight.Shards = 8
	if _, err := eight.Page(context.Background(), PageRequest{Key: []any{"hot"}, Limit: 5, Token: p.Next}); err == nil {
		t.Error("a token of 4 shards was read by a timeline of 8")
	}
}

// The sharded merge under writers and deleters: never a repeat, never a skipped row that
// existed for the whole scroll, always newest first.
func TestShardedTimelineUnderWrites(t *testing.T) {
	s, _, ks := postsKeyspace(t)
	const shards, writers, deleters = 4, 3, 2
	from, newest := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 8, 31, 0, 0, 0, 0, time.UTC)
	stable := hashtagPosts(t, s, ks, "hot", shards, 200, from, newest, 5)
	deletable := hashtagPosts(t, s, ks, "hot", shards, 100, from, newest, 6)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop); wg.Wait() }) }
	defer halt() // before the keyspace's cleanup closes the session
	var inserted, deleted atomic.Int64
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 9))
			for i := 0; i < 100; i++ {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				writeTagPost(t, s, "hot", shards, from.Add(time.Duration(rng.Int64N(int64(newest.Sub(from))))))
				inserted.Add(1)
			}
		}(uint64(w))
	}
	victims := make(chan gocql.UUID, len(deletable))
	for _, id := range deletable {
		victims <- id
	}
	close(victims)
	for d := 0; d < deleters; d++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range victims {
				select {
				case <-stop:
					return
				case <-time.After(8 * time.Millisecond):
				}
				at, _ := bucket.UUIDTime(id)
				shard, _ := bucket.Shard(id[:], shards)
				if err := s.Query("DELETE FROM tag_posts WHERE hashtag = 'hot' AND month = ? AND shard = ? AND post_id = ?",
					months.For(at).String(), shard, id).WithContext(ctx).Exec(); err == nil {
					deleted.Add(1)
				}
			}
		}()
	}
	tl := &Timeline{Session: s, Query: "SELECT post_id FROM tag_posts WHERE hashtag = ? AND month = ? AND shard = ?", Scheme: months, Shards: shards, Retention: newest.Sub(from)}
	seen := map[gocql.UUID]bool{}
	var last gocql.UUID
	req := PageRequest{Key: []any{"hot"}, Newest: newest, Limit: 6}
	pages, visits := 0, 0
	for ; ; pages++ {
		p, err := tl.Page(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		visits += p.Visited
		for _, id := range ids(p.Rows) {
			if seen[id] {
				t.Fatalf("page %d repeats %s", pages, id)
			}
			if last != (gocql.UUID{}) && compareTimeUUID(id[:], last[:]) >= 0 {
				t.Fatalf("page %d: %s is not older than %s", pages, id, last)
			}
			seen[id], last = true, id
		}
		if req.Token = p.Next; req.Token == "" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	halt()
	missing := checkScroll(t, stable, seen, inserted.Load(), deleted.Load())
	t.Logf("%d shards: %d rows that stayed, %d deletable; %d writers inserted %d, %d deleters deleted %d, during %d pages of 6 (%d rows, %d partition reads): 0 repeated, %d skipped",
		shards, len(stable), len(deletable), writers, inserted.Load(), deleters, deleted.Load(), pages+1, len(seen), visits, missing)
}
