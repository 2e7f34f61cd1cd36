package denorm

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// tiersCQL is a hashtag table on tiers, with the entity it is written from, in keyspace KS.
const tiersCQL = `
CREATE TABLE KS.posts (post_id text PRIMARY KEY, created_at timestamp, tags frozen<set<text>>, writer int);
CREATE TABLE KS.posts_by_post_id (post_id text PRIMARY KEY, created_at timestamp, tags frozen<set<text>>, writer int);
CREATE TABLE KS.posts_by_tag (tag text, bucket text, shard int, created_at timestamp, post_id text, writer int,
  PRIMARY KEY ((tag, bucket, shard), created_at, post_id)) WITH CLUSTERING ORDER BY (created_at DESC, post_id DESC);
CREATE TABLE KS.posts_by_tag_tiers (tag text, since timestamp, tier text, bucket text, shards int,
  PRIMARY KEY ((tag), since)) WITH CLUSTERING ORDER BY (since DESC);
`

// tiersPlan is the write plan of tiersCQL: minute buckets by default, 15 s buckets over 3
// shards when hot, so that a promotion takes effect within a test.
const tiersPlan = `version: 1
entities:
  KS.posts:
    - table: KS.posts_by_tag
      derive:
        - tag=each(tags)
        - bucket=minute(created_at)
        - shard=shard(post_id, 1)
      tiers: {table: KS.posts_by_tag_tiers, default: {bucket: minute}, hot: {bucket: 15s, shards: 3}, promote_over: 10/s}
    - table: KS.posts_by_post_id
      source: true
      derive:
        - post_id=post_id
`

// tiersLead is the tests' promotion lead: short, so the change comes within the test, and
// writers cache their tiers for at most half of it.
const tiersLead, tiersCache = 12 * time.Second, 5 * time.Second

// tiersSchema creates tiersCQL in ks through admin and loads the write plan against it.
func tiersSchema(t *testing.T, admin *gocql.Session, ks string) (*cql.Schema, *WritePlan) {
	t.Helper()
	src := strings.ReplaceAll(tiersCQL, "KS", ks)
	stmts, err := cql.SplitStatements("tiers.cql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		if err := admin.Query(st.Text).Exec(); err != nil {
			t.Fatalf("%s: %v", st.Pos, err)
		}
	}
	s := schemaOf(ks, strings.ReplaceAll(src, ks+".", ""))
	plan, err := ParseWritePlan("writeplan.yaml", []byte(strings.ReplaceAll(tiersPlan, "KS", ks)), s)
	if err != nil {
		t.Fatal(err)
	}
	plan.TierPlan("posts_by_tag").Lead = tiersLead
	return s, plan
}

// written is one post a test writer stored.
type written struct {
	id     string
	at     time.Time
	writer int
	tags   []string
}

// tierRun is one run of writers across a promotion.
type tierRun struct {
	rows      []written
	writers   int
	since     time.Time // when the hot tag's rows go to the hot tier
	start     time.Time
	end       time.Time
	promoters []*Promotion
}

// writeAcrossPromotion runs writers (each with its own Tiers, as separate service
// instances would have) posting to the hot tag, and every fifth post to a cold one too,
// promotes the hot tag from three promoters at once while they write, and stops the
// writers 16 s after the promotion takes effect. before runs once the writers are
// writing, before the promotion (a ring test kills a node there).
func writeAcrossPromotion(t *testing.T, s *gocql.Session, schema *cql.Schema, plan *WritePlan, opts Options, writers int, before func()) *tierRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tp := plan.TierPlan("posts_by_tag")
	entity := plan.Entities[0]
	run := &tierRun{start: time.Now().UTC(), writers: writers}
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		tiers, err := NewTiers(s, tp, TierOptions{CacheFor: tiersCache})
		if err != nil {
			t.Fatal(err)
		}
		m, err := New[Values](s, schema, opts, entity.Mappings(tiers)...)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := written{id: fmt.Sprintf("w%d-%06d", w, i), at: time.Now().UTC().Truncate(time.Millisecond), writer: w, tags: []string{"hot"}}
				if i%5 == 0 {
					p.tags = append(p.tags, "cold")
				}
				v := Values{"post_id": p.id, "created_at": p.at, "tags": p.tags, "writer": w}
				if _, err := m.Insert(ctx, &v); err != nil {
					errs <- fmt.Errorf("writer %d post %d: %w", w, i, err)
					return
				}
				mu.Lock()
				run.rows = append(run.rows, p)
				mu.Unlock()
				time.Sleep(40 * time.Millisecond)
			}
		}()
	}
	// Promote while the writers write, at a moment that puts the change 8 to 30 s ahead:
	// rows on both sides, and the writers' caches (5 s) renewed across it.
	time.Sleep(4 * time.Second)
	if before != nil {
		before()
	}
	for time.Now().Second() < 30 || time.Now().Second() >= 40 {
		time.Sleep(200 * time.Millisecond)
	}
	var pwg sync.WaitGroup
	run.promoters = make([]*Promotion, 3)
	perr := make([]error, 3)
	now := time.Now()
	for i := range run.promoters {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			run.promoters[i], perr[i] = Promote(ctx, s, tp, []any{"hot"}, "hot", now.Add(time.Duration(i)*time.Second))
		}()
	}
	pwg.Wait()
	for _, err := range perr {
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("promote: %v", err)
		}
	}
	run.since = run.promoters[0].Since
	t.Logf("promoted at %s, takes effect at %s", now.UTC().Format("15:04:05.000"), run.since.Format("15:04:05"))
	for time.Now().Before(run.since.Add(16 * time.Second)) {
		select {
		case err := <-errs:
			close(stop)
			wg.Wait()
			t.Fatal(err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	run.end = time.Now().UTC()
	return run
}

// checkTierRun checks a run three ways. The promoters agree on one change. With plain
// CQL, every partition the hot and cold tags could have used in the run (minute buckets
// and 15 s buckets, shards 0 to 2, whichever tier) holds exactly the rows the writers
// wrote, each in the partition worked out here by hand: before the change, its minute and
// shard 0; from it on, its 15 s bucket and the FNV-1a of its id modulo 3. And the walk
// (TieredTimeline, with a reader's own Tiers) returns every row once, newest first.
func checkTierRun(t *testing.T, s *gocql.Session, ks string, plan *WritePlan, run *tierRun) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tp := plan.TierPlan("posts_by_tag")
	applied := 0
	for _, p := range run.promoters {
		if p.Applied {
			applied++
		}
		if !p.Since.Equal(run.since) || p.To.Name != "hot" {
			t.Errorf("promoters disagree: %+v and since %s", p, run.since)
		}
	}
	// The insert is a lightweight transaction: two promoters never both write. None may
	// say it wrote when the answer to the one that did was lost and its next attempt found
	// the change (Promotion.Applied); the tier table is checked for exactly one change below.
	switch {
	case applied > 1:
		t.Errorf("%d promoters wrote the change, want at most 1 (the others found it)", applied)
	case applied == 0:
		t.Logf("no promoter says it wrote the change: the answer to the one that did was lost")
	}
	if run.since.Second() != 0 || run.since.Nanosecond() != 0 {
		t.Errorf("the change takes effect at %s: not a minute boundary (minute and 15 s buckets both start there)", run.since)
	}
	fresh, err := NewTiers(s, tp, TierOptions{CacheFor: tiersCache})
	if err != nil {
		t.Fatal(err)
	}
	h, err := fresh.Fresh(ctx, []any{"hot"})
	if err != nil {
		t.Fatal(err)
	}
	if cs := h.Changes(); len(cs) != 1 || !cs[0].Since.Equal(run.since) {
		t.Errorf("the tier table holds changes %+v, want one at %s", cs, run.since)
	}

	// Where each row must be, by hand.
	type part struct {
		tag, bucket string
		shard       int
	}
	want := map[part]map[string]bool{}
	perTag := map[string]int{}
	before, after := 0, 0
	for _, r := range run.rows {
		for _, tag := range r.tags {
			p := part{tag: tag, bucket: r.at.Format("2006-01-02T15:04")}
			if tag == "hot" && !r.at.Before(run.since) {
				h := fnv.New64a()
				h.Write([]byte(r.id))
				p = part{tag: tag, bucket: r.at.Truncate(15 * time.Second).Format("2006-01-02T15:04:05"), shard: int(h.Sum64() % 3)}
				after++
			} else if tag == "hot" {
				before++
			}
			if want[p] == nil {
				want[p] = map[string]bool{}
			}
			want[p][r.id] = true
			perTag[tag]++
		}
	}
	if before == 0 || after == 0 {
		t.Fatalf("%d hot rows before the change and %d after: the run does not cross it", before, after)
	}
	t.Logf("%d writers wrote %d posts: hot %d (%d before the change, %d after), cold %d", run.writers, len(run.rows), perTag["hot"], before, after, perTag["cold"])
	stored := 0
	for _, tag := range []string{"hot", "cold"} {
		for at := run.start.Truncate(time.Minute); at.Before(run.end); at = at.Add(15 * time.Second) {
			for _, b := range []string{at.Format("2006-01-02T15:04"), at.Format("2006-01-02T15:04:05")} {
				if at.Second() != 0 && b == at.Format("2006-01-02T15:04") {
					continue // each minute once
				}
				for shard := range 3 {
					iter := s.Query("SELECT post_id FROM "+ks+".posts_by_tag WHERE tag = ? AND bucket = ? AND shard = ?", tag, b, shard).Iter()
					var id string
					got := map[string]bool{}
					for iter.Scan(&id) {
						got[id] = true
						stored++
					}
					if err := iter.Close(); err != nil {
						t.Fatal(err)
					}
					p := part{tag, b, shard}
					for id := range got {
						if !want[p][id] {
							t.Errorf("partition %v holds %s, which was written elsewhere", p, id)
						}
					}
					if len(got) != len(want[p]) {
						t.Errorf("partition %v holds %d rows, want %d", p, len(got), len(want[p]))
					}
				}
			}
		}
	}
	if stored != perTag["hot"]+perTag["cold"] {
		t.Errorf("the partitions hold %d rows, the writers wrote %d", stored, perTag["hot"]+perTag["cold"])
	}

	// Through the walk.
	reader, err := NewTiers(s, tp, TierOptions{CacheFor: tiersCache})
	if err != nil {
		t.Fatal(err)
	}
	tt := &TieredTimeline{Tiers: reader, Timeline: &Timeline{Session: s, MaxBuckets: 30,
		Query: "SELECT post_id, created_at, writer FROM " + ks + ".posts_by_tag WHERE tag = ? AND bucket = ? AND shard = ?"}}
	for _, tag := range []string{"hot", "cold"} {
		seen := map[string]int{}
		perWriter := map[int]int{}
		var last time.Time
		var lastID string
		token, pages, visited := "", 0, 0
		for {
			page, err := tt.Page(ctx, PageRequest{Key: []any{tag}, Newest: run.end, Oldest: run.start.Add(-time.Minute), Limit: 50, Token: token})
			if err != nil {
				t.Fatalf("%s page %d: %v", tag, pages+1, err)
			}
			pages++
			visited += page.Visited
			for _, r := range page.Rows {
				id, at := r["post_id"].(string), r["created_at"].(time.Time)
				seen[id]++
				perWriter[r["writer"].(int)]++
				if !last.IsZero() && (at.After(last) || at.Equal(last) && id > lastID) {
					t.Errorf("%s: %s at %s after %s at %s: not newest first", tag, id, at, lastID, last)
				}
				last, lastID = at, id
			}
			if token = page.Next; token == "" {
				break
			}
		}
		dup := 0
		for _, n := range seen {
			if n > 1 {
				dup++
			}
		}
		writtenBy := map[int]int{}
		for _, r := range run.rows {
			for _, tg := range r.tags {
				if tg == tag {
					writtenBy[r.writer]++
				}
			}
		}
		t.Logf("%s: the walk read %d rows (%d repeated) in %d pages, %d partition reads", tag, len(seen), dup, pages, visited)
		if len(seen) != perTag[tag] || dup != 0 {
			t.Errorf("%s: the walk read %d distinct rows, %d of them more than once; the writers wrote %d", tag, len(seen), dup, perTag[tag])
		}
		for w, n := range writtenBy {
			if perWriter[w] != n {
				t.Errorf("%s: writer %d wrote %d rows, the walk read %d", tag, w, n, perWriter[w])
			}
		}
	}
}

// TestTiersPromoteUnderWrites promotes a hot hashtag from minute buckets to 15 s buckets
// over 3 shards while 4 writers post to it (each with its own tier cache), from three
// promoters at once, and checks every row lands where its instant's tier says and is read
// back once through the walk (checkTierRun).
func TestTiersPromoteUnderWrites(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	schema, plan := tiersSchema(t, s, ks)
	run := writeAcrossPromotion(t, s, schema, plan, Options{}, 4, nil)
	checkTierRun(t, s, ks, plan, run)
}
