package denorm

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/workload"
)

// timelineFixture writes one user's posts over several months (some empty) and returns
// the user, the newest instant and every post id, newest first.
func timelineFixture(t *testing.T) (*gocql.Session, gocql.UUID, time.Time, []gocql.UUID) {
	t.Helper()
	s, schema, _ := postsKeyspace(t)
	m := newPostModel(t, s, schema, Options{Mode: Concurrent})
	user := gocql.TimeUUID()
	newest := time.Date(2024, 8, 20, 12, 0, 0, 0, time.UTC)
	// Posts per month, newest month first: 2024-08 has 7, 2024-07 none, 2024-06 has 3, ...
	perMonth := []int{7, 0, 3, 12, 1, 0, 0, 5}
	var ids []gocql.UUID
	ctx := context.Background()
	month := months.For(newest)
	for _, n := range perMonth {
		for i := 0; i < n; i++ {
			at := month.Start().Add(time.Duration(n-i) * time.Hour) // newest first within the month
			p := &post{ID: gocql.UUIDFromTime(at), UserID: user, Content: str(fmt.Sprintf("%s #%d", month, i)), Created: at}
			if _, err := m.Insert(ctx, p); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		month = month.Prev()
	}
	return s, user, newest, ids
}

// fixtureRetention keeps timelineFixture's eight months: from its newest instant,
// 2024-08-20T12:00, back to 2024-01-13, so a walk ends with 2024-01, its oldest month.
const fixtureRetention = 220 * 24 * time.Hour

func ids(rows []Values) []gocql.UUID {
	out := make([]gocql.UUID, len(rows))
	for i, r := range rows {
		out[i] = r["post_id"].(gocql.UUID)
	}
	return out
}

func TestTimelinePagesOnCassandra(t *testing.T) {
	s, user, newest, want := timelineFixture(t)
	ctx := context.Background()
	for _, parallel := range []int{1, 3} {
		tl := &Timeline{Session: s, Query: "SELECT post_id, content FROM posts_by_user WHERE user_id = ? AND month = ?",
			Scheme: months, Retention: fixtureRetention, MaxBuckets: 10, Parallel: parallel, Secret: []byte("k")}
		// One big read: a page larger than the whole timeline.
		all, err := tl.Page(ctx, PageRequest{Key: []any{user}, Newest: newest, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(all.Rows); !slices.Equal(got, want) {
			t.Fatalf("parallel %d: one read gave %d rows, want the %d posts newest first", parallel, len(got), len(want))
		}
		if all.Next != "" || all.StoppedEarly {
			t.Errorf("parallel %d: a read of every bucket back to the retention left a token (stopped early: %v)", parallel, all.StoppedEarly)
		}
		for _, size := range []int{1, 2, 3, 5, 7, 8, 13, 27, 28} {
			var got []gocql.UUID
			token, pages := "", 0
			for {
				p, err := tl.Page(ctx, PageRequest{Key: []any{user}, Newest: newest, Limit: size, Token: token})
				if err != nil {
					t.Fatalf("parallel %d size %d page %d: %v", parallel, size, pages, err)
				}
				if len(p.Rows) > size {
					t.Fatalf("page of %d rows for limit %d", len(p.Rows), size)
				}
				got = append(got, ids(p.Rows)...)
				pages++
				if p.Next == "" {
					break
				}
				if pages > 100 {
					t.Fatal("no end")
				}
				token = p.Next
			}
			if !slices.Equal(got, want) {
				t.Errorf("parallel %d size %d: %d pages gave %d rows (duplicates or gaps), want %d in order", parallel, size, pages, len(got), len(want))
			}
		}
	}
}

// A page that spends its budget of buckets before it has its rows says so and continues
// where it stopped; the page that reaches the retention says there is nothing more.
func TestTimelineStopsEarlyWithToken(t *testing.T) {
	s, user, newest, want := timelineFixture(t) // rows per month from 2024-08: 7, 0, 3, 12, 1, 0, 0, 5
	tl := &Timeline{Session: s, Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months,
		Retention: fixtureRetention, MaxBuckets: 3}
	// Pages of 20: three months a page. 2024-08..06 hold 7+0+3, 2024-05..03 hold 12+1+0,
	// and 2024-02..01 (the retention's end) hold 0+5.
	req := PageRequest{Key: []any{user}, Newest: newest, Limit: 20}
	var got []gocql.UUID
	for i, w := range []struct {
		rows, visits int
		early        bool
	}{{10, 3, true}, {13, 3, true}, {5, 2, false}} {
		p, err := tl.Page(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(p.Rows)...)
		if len(p.Rows) != w.rows || p.Visited != w.visits || p.StoppedEarly != w.early || (p.Next != "") != w.early {
			t.Errorf("page %d: %d rows in %d partition reads, stopped early %v, token %q; want %d rows in %d, stopped early %v",
				i, len(p.Rows), p.Visited, p.StoppedEarly, p.Next, w.rows, w.visits, w.early)
		}
		if req.Token = p.Next; req.Token == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("three pages gave %d rows, want the %d posts newest first, each once", len(got), len(want))
	}
	// Smaller pages: a full page is never "stopped early", and every row comes once.
	req = PageRequest{Key: []any{user}, Newest: newest, Limit: 4}
	got, early := nil, 0
	for pages := 0; ; pages++ {
		p, err := tl.Page(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if p.StoppedEarly && len(p.Rows) == req.Limit {
			t.Errorf("page %d: a full page says it stopped early", pages)
		}
		if p.StoppedEarly {
			early++
		}
		got = append(got, ids(p.Rows)...)
		if req.Token = p.Next; req.Token == "" || pages > 100 {
			break
		}
	}
	if !slices.Equal(got, want) || early == 0 {
		t.Errorf("pages of 4: %d rows (want the %d newest first), %d pages stopped early (want some: 2024-02 and 2024-01 are more than 3 months after 2024-04's one row)", len(got), len(want), early)
	}
}

func TestTimelineRefusesBadTokens(t *testing.T) {
	s, user, newest, _ := timelineFixture(t)
	ctx := context.Background()
	tl := &Timeline{Session: s, Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months, Retention: fixtureRetention, Secret: []byte("secret")}
	p, err := tl.Page(ctx, PageRequest{Key: []any{user}, Newest: newest, Limit: 3})
	if err != nil || p.Next == "" {
		t.Fatalf("first page: %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(p.Next)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)/2] ^= 1
	other := *tl
	other.Secret = []byte("another secret")
	for name, req := range map[string]PageRequest{
		"flipped bit":    {Key: []any{user}, Limit: 3, Token: base64.RawURLEncoding.EncodeToString(flipped)},
		"truncated":      {Key: []any{user}, Limit: 3, Token: p.Next[:len(p.Next)-4]},
		"not base64":     {Key: []any{user}, Limit: 3, Token: "!!!"},
		"other user":     {Key: []any{gocql.TimeUUID()}, Limit: 3, Token: p.Next},
		"empty payload":  {Key: []any{user}, Limit: 3, Token: "AA"},
		"another secret": {Key: []any{user}, Limit: 3, Token: p.Next},
	} {
		reader := tl
		if name == "another secret" {
			reader = &other
		}
		if _, err := reader.Page(ctx, req); !errors.Is(err, ErrBadToken) {
			t.Errorf("%s: got %v, want ErrBadToken", name, err)
		}
	}
	// The genuine token still works.
	if _, err := tl.Page(ctx, PageRequest{Key: []any{user}, Limit: 3, Token: p.Next}); err != nil {
		t.Errorf("genuine token: %v", err)
	}
}

func TestTimelineBadSettings(t *testing.T) {
	s := cassandratest.Session(t)
	good := Timeline{Session: s, Query: "SELECT * FROM t WHERE k = ? AND b = ?", Scheme: months, Retention: 365 * 24 * time.Hour}
	zeroWidth := good
	zeroWidth.Scheme = bucket.Scheme{}
	noQuery := good
	noQuery.Query = ""
	negativeSpeculation := good
	negativeSpeculation.SpeculativeReadAfter = -time.Millisecond
	noEnd := good
	noEnd.Retention = 0
	negativeRetention := good
	negativeRetention.Retention = -time.Hour
	negativeRate := good
	negativeRate.KeyRate = workload.Rate{Count: -1, Per: time.Hour}
	tooFar := good
	tooFar.Scheme, tooFar.Retention = mustScheme(bucket.Every(time.Second)), 30*24*time.Hour // 2.6M buckets
	for name, tc := range map[string]struct {
		tl  Timeline
		req PageRequest
	}{
		"zero bucket width":          {zeroWidth, PageRequest{Key: []any{1}, Limit: 1}},
		"no query":                   {noQuery, PageRequest{Key: []any{1}, Limit: 1}},
		"negative speculation delay": {negativeSpeculation, PageRequest{Key: []any{1}, Limit: 1}},
		"negative retention":         {negativeRetention, PageRequest{Key: []any{1}, Limit: 1}},
		"negative key rate":          {negativeRate, PageRequest{Key: []any{1}, Limit: 1}},
		"zero limit":                 {good, PageRequest{Key: []any{1}}},
		"huge limit":                 {good, PageRequest{Key: []any{1}, Limit: MaxPageRows + 1}},
		"key too short":              {good, PageRequest{Limit: 1}},
		"key too long":               {good, PageRequest{Key: []any{1, 2}, Limit: 1}},
	} {
		if _, err := tc.tl.Page(context.Background(), tc.req); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := zeroWidth.Page(context.Background(), PageRequest{Key: []any{1}, Limit: 1}); !errors.Is(err, bucket.ErrInvalidWidth) {
		t.Errorf("zero width: %v, want bucket.ErrInvalidWidth", err)
	}
	// These are refused before the schema is read (table t does not exist).
	for name, tc := range map[string]struct {
		tl   Timeline
		req  PageRequest
		want string
	}{
		"no end":           {noEnd, PageRequest{Key: []any{1}, Limit: 1}, "set Timeline.Retention"},
		"too many buckets": {tooFar, PageRequest{Key: []any{1}, Limit: 1}, "is more than 1048576 1s buckets"},
	} {
		if _, err := tc.tl.Page(context.Background(), tc.req); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
	// With an oldest bound a timeline needs no retention: the error is then the missing table.
	if _, err := noEnd.Page(context.Background(), PageRequest{Key: []any{1}, Limit: 1, Oldest: time.Now().Add(-time.Hour)}); err == nil || strings.Contains(err.Error(), "no end") {
		t.Errorf("oldest bound without retention: %v, want the missing table's error", err)
	}
}

// userPosts writes posts_by_user rows for one user straight to the table, one per instant,
// and returns their ids in the same order.
func userPosts(t *testing.T, s *gocql.Session, user gocql.UUID, at ...time.Time) []gocql.UUID {
	t.Helper()
	out := make([]gocql.UUID, len(at))
	for i, a := range at {
		out[i] = gocql.UUIDFromTime(a)
		if err := s.Query("INSERT INTO posts_by_user (user_id, month, post_id, content) VALUES (?, ?, ?, 'x')",
			user, months.For(a).String(), out[i]).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// uuidBytes is a timeuuid as the driver serializes it, for compareTimeUUID.
func uuidBytes(u gocql.UUID) []byte { return u[:] }

// Rows written and deleted while a client scrolls, between its pages and during them, never
// make it miss a row that existed for the whole scroll nor see a row twice: the token
// resumes after a clustering key, which no write moves.
func TestTimelineNeverSkipsOrRepeatsUnderWrites(t *testing.T) {
	s, _, _ := postsKeyspace(t)
	user := gocql.TimeUUID()
	from := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	newest := time.Date(2024, 8, 31, 23, 0, 0, 0, time.UTC)
	span := newest.Sub(from)
	rng := rand.New(rand.NewPCG(10, 7))
	randomTimes := func(n int) []time.Time {
		out := make([]time.Time, n)
		for i := range out {
			out[i] = from.Add(time.Duration(rng.Int64N(int64(span))))
		}
		return out
	}
	const stableRows, deletableRows, writers, deleters, perWriter = 300, 200, 4, 2, 1000
	stable := userPosts(t, s, user, randomTimes(stableRows)...)
	deletable := userPosts(t, s, user, randomTimes(deletableRows)...)
	writerTimes := make([][]time.Time, writers)
	for w := range writerTimes {
		writerTimes[w] = randomTimes(perWriter)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var inserted, deleted atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop); wg.Wait() }) }
	defer halt() // before the keyspace's cleanup closes the session
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(times []time.Time) {
			defer wg.Done()
			for _, at := range times {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
				if err := s.Query("INSERT INTO posts_by_user (user_id, month, post_id, content) VALUES (?, ?, ?, 'new')",
					user, months.For(at).String(), gocql.UUIDFromTime(at)).WithContext(ctx).Exec(); err == nil {
					inserted.Add(1)
				}
			}
		}(writerTimes[w])
	}
	toDelete := make(chan gocql.UUID, len(deletable))
	for _, i := range rng.Perm(len(deletable)) {
		toDelete <- deletable[i]
	}
	close(toDelete)
	var gone sync.Map // rows deleted, so each is counted once
	deleteOne := func(id gocql.UUID) {
		if _, done := gone.LoadOrStore(id, true); done {
			return
		}
		at, _ := bucket.UUIDTime(id)
		if err := s.Query("DELETE FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?",
			user, months.For(at).String(), id).WithContext(ctx).Exec(); err == nil {
			deleted.Add(1)
		}
	}
	for d := 0; d < deleters; d++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range toDelete {
				select {
				case <-stop:
					return
				case <-time.After(15 * time.Millisecond):
				}
				deleteOne(id)
			}
		}()
	}

	tl := &Timeline{Session: s, Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months, Retention: newest.Sub(from), Secret: []byte("k")}
	seen := map[gocql.UUID]bool{}
	var last gocql.UUID
	req := PageRequest{Key: []any{user}, Newest: newest, Limit: 7}
	pages, rows := 0, 0
	for ; ; pages++ {
		p, err := tl.Page(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids(p.Rows) {
			if seen[id] {
				t.Fatalf("page %d repeats %s", pages, id)
			}
			if last != (gocql.UUID{}) && compareTimeUUID(uuidBytes(id), uuidBytes(last)) >= 0 {
				t.Fatalf("page %d: %s is not older than %s", pages, id, last)
			}
			seen[id], last = true, id
			rows++
		}
		if len(p.Rows) > 0 {
			// Between pages, a write just newer than the last row returned and a delete
			// of a row already returned: both shift a row offset by one.
			at, _ := bucket.UUIDTime(last)
			userPosts(t, s, user, at.Add(time.Millisecond))
			for _, id := range deletable {
				if _, done := gone.Load(id); seen[id] && !done {
					deleteOne(id)
					break
				}
			}
		}
		if req.Token = p.Next; req.Token == "" {
			break
		}
		time.Sleep(5 * time.Millisecond) // let the writers and deleters interleave
	}
	halt()
	missing := checkScroll(t, stable, seen, inserted.Load(), deleted.Load())
	t.Logf("%d rows that stayed, %d deletable; %d writers inserted %d rows and %d deleters deleted %d, during %d pages of 7 that returned %d rows: 0 repeated, %d skipped",
		len(stable), len(deletable), writers, inserted.Load(), deleters, deleted.Load(), pages+1, rows, missing)
}

// A page reads no more partitions than it needs: one bucket, then more at once only after
// a bucket came back short.
func TestTimelineVisits(t *testing.T) {
	s, user, newest, _ := timelineFixture(t) // rows per month, newest first: 7, 0, 3, 12, 1, 0, 0, 5
	tl := &Timeline{Session: s, Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months, Retention: fixtureRetention, Parallel: 4}
	for _, tc := range []struct {
		limit, rows, visits int
		why                 string
	}{
		{1, 1, 1, "the newest bucket holds the row"},
		{7, 7, 1, "the newest bucket holds all 7"},
		{8, 8, 3, "2024-08 comes back short (7), then 2024-07 and 2024-06 at once"},
		{10, 10, 3, "as for 8: 2024-06 holds the other 3"},
		{11, 11, 7, "2024-07 and 2024-06 come back short too (3 of 4), then 2024-05 to 2024-02 at once (4 = Parallel), and 2024-05 fills the page"},
		{100, 28, 8, "every bucket down to the retention's end, 2024-01: 1, 2, 4 and 1 at a time"},
	} {
		p, err := tl.Page(context.Background(), PageRequest{Key: []any{user}, Newest: newest, Limit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Rows) != tc.rows || p.Visited != tc.visits {
			t.Errorf("limit %d: %d rows in %d partition reads, want %d in %d (%s)", tc.limit, len(p.Rows), p.Visited, tc.rows, tc.visits, tc.why)
		}
	}
}

// An oldest bound ends the timeline there: no bucket before it is read, and no row before
// it is returned.
func TestTimelineOldestBound(t *testing.T) {
	s, user, newest, want := timelineFixture(t) // 2024-08: 7, 07: 0, 06: 3, 05: 12, 04: 1, ...
	tl := &Timeline{Session: s, Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months, MaxBuckets: 24}
	// Posts of a month are at its first day's 01:00 to 12:00; from 06:00 on 2024-05-01,
	// 2024-05 keeps its 7 newest.
	oldest := time.Date(2024, 5, 1, 6, 0, 0, 0, time.UTC)
	for _, limit := range []int{1, 4, 100} {
		var got []gocql.UUID
		visits, pages := 0, 0
		req := PageRequest{Key: []any{user}, Newest: newest, Oldest: oldest, Limit: limit}
		for ; ; pages++ {
			p, err := tl.Page(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			got, visits = append(got, ids(p.Rows)...), visits+p.Visited
			if req.Token = p.Next; req.Token == "" {
				break
			}
			req.Oldest = time.Time{} // the token keeps the bound
		}
		if !slices.Equal(got, want[:17]) {
			t.Errorf("limit %d: %d rows, want the 17 from 2024-05-01T06:00 on", limit, len(got))
		}
		if limit == 100 && visits != 4 {
			t.Errorf("limit %d: %d partition reads over %d pages, want the 4 buckets 2024-08 to 2024-05", limit, visits, pages+1)
		}
		if limit == 1 && visits > 17+4 {
			t.Errorf("limit 1: %d partition reads for 17 rows in 4 buckets", visits)
		}
		t.Logf("oldest bound, limit %d: %d rows, %d pages, %d partition reads", limit, len(got), pages+1, visits)
	}
	// Without the bound, a two-year retention: the walk goes on to 2022-08, 25 months,
	// and the first page stops early after its 24 (MaxBuckets), with a token for the last.
	tl.Retention = 2 * 365 * 24 * time.Hour
	p, err := tl.Page(context.Background(), PageRequest{Key: []any{user}, Newest: newest, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("no bound, limit 100: %d rows, %d partition reads", len(p.Rows), p.Visited)
	if p.Visited != 24 || len(p.Rows) != len(want) || !p.StoppedEarly || p.Next == "" {
		t.Errorf("without a bound a read of everything: %d rows, %d buckets, stopped early %v; want all %d rows, MaxBuckets (24) buckets and a token for the 25th",
			len(p.Rows), p.Visited, p.StoppedEarly, len(want))
	}
	last, err := tl.Page(context.Background(), PageRequest{Key: []any{user}, Limit: 100, Token: p.Next})
	if err != nil {
		t.Fatal(err)
	}
	if last.Visited != 1 || len(last.Rows) != 0 || last.StoppedEarly || last.Next != "" {
		t.Errorf("the page after: %d rows in %d reads, stopped early %v, token %q; want 2022-08 read, nothing found, the end", len(last.Rows), last.Visited, last.StoppedEarly, last.Next)
	}
}

// A page's default budget is twice the buckets the typical key walks for it, figured here
// by hand: limit ÷ (rate × width), rounded up, at most the retention's buckets.
func TestTimelineBudget(t *testing.T) {
	day := 24 * time.Hour
	for _, tc := range []struct {
		width     bucket.Width
		rate      workload.Rate
		retention time.Duration
		max       int
		limit     int
		want      int
		why       string
	}{
		{bucket.Month(), workload.Rate{Count: 20, Per: day}, 365 * day, 0, 50, 2, "609 rows a month: 1 month, twice"},
		{bucket.Hour(), workload.Rate{Count: 2, Per: time.Hour}, 90 * day, 0, 50, 50, "50 / 2 = 25 hours, twice"},
		{bucket.Hour(), workload.Rate{Count: 0.7, Per: day}, 3 * 365 * day, 0, 50, 3430, "50 / (0.7 / 24) = 1714.3: 1715 hours, twice"},
		{bucket.Hour(), workload.Rate{Count: 0.01, Per: day}, 30 * day, 0, 50, 1440, "120,000 hours needed, 720 kept, twice"},
		{bucket.Hour(), workload.Rate{Count: 0.01, Per: day}, 0, 0, 50, 240000, "no retention (an Oldest bound ends the walk): 120,000 hours, twice"},
		{bucket.Every(6 * time.Hour), workload.Rate{Count: 1, Per: time.Hour}, 30 * day, 0, 20, 8, "6 rows a bucket: 20 / 6 = 3.3, 4 buckets, twice"},
		{bucket.Day(), workload.Rate{}, 30 * day, 0, 20, 8, "no rate: twice 4 partitions"},
		{bucket.Day(), workload.Rate{Count: 1, Per: day}, 30 * day, 5, 20, 5, "MaxBuckets set"},
	} {
		tl := &Timeline{Scheme: mustScheme(tc.width), KeyRate: tc.rate, Retention: tc.retention, MaxBuckets: tc.max}
		if got := tl.Budget(tc.limit); got != tc.want {
			t.Errorf("%s at %s, limit %d: budget %d, want %d (%s)", tc.width, tc.rate, tc.limit, got, tc.want, tc.why)
		}
	}
}

func TestParseTimelineQuery(t *testing.T) {
	for _, tc := range []struct {
		q, ks, table, text, err string
		markers                 int
	}{
		{q: "SELECT a FROM t WHERE k = ? AND b = ?", table: "t", markers: 2, text: "SELECT a FROM t WHERE k = ? AND b = ?"},
		{q: `select a from Ks."Tab" where k = :k and b = :b ;`, ks: "ks", table: "Tab", markers: 2, text: `select a from Ks."Tab" where k = :k and b = :b`},
		{q: "SELECT a FROM t WHERE k = ? AND b = ? LIMIT 5", err: "end the query with its WHERE clause"},
		{q: "SELECT a FROM t WHERE k = ? AND b = ? ORDER BY a ASC", err: "ORDER"},
		{q: "SELECT a FROM t WHERE k = ? ALLOW FILTERING", err: "ALLOW"},
		{q: "SELECT a FROM t", err: "reads one partition"},
		{q: "DELETE FROM t WHERE k = ?", err: "is a SELECT"},
		{q: "SELECT 'unterminated FROM t WHERE k = ?", err: "timeline query"},
	} {
		p, err := parseQuery(tc.q)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error saying %q", tc.q, err, tc.err)
			}
			continue
		}
		if err != nil || p.keyspace != tc.ks || p.table != tc.table || p.markers != tc.markers || p.text != tc.text {
			t.Errorf("%q: %+v %v, want %s.%s with %d markers, text %q", tc.q, p, err, tc.ks, tc.table, tc.markers, tc.text)
		}
	}
}

func TestAfterClauses(t *testing.T) {
	for _, tc := range []struct {
		cols []keyColumn
		want []resumeClause
	}{
		{[]keyColumn{{name: "post_id", desc: true}}, []resumeClause{{` AND (post_id) < (?)`, 1}}},
		{[]keyColumn{{name: "day"}, {name: `Odd"Name`}}, []resumeClause{{` AND (day, "Odd""Name") > (?, ?)`, 2}}},
		{[]keyColumn{{name: "liked_at", desc: true}, {name: "user_id"}}, []resumeClause{
			{` AND liked_at = ? AND user_id > ?`, 2},
			{` AND liked_at < ?`, 1},
		}},
		{[]keyColumn{{name: "a"}, {name: "b", desc: true}, {name: "c"}}, []resumeClause{
			{` AND a = ? AND b = ? AND c > ?`, 3},
			{` AND a = ? AND b < ?`, 2},
			{` AND a > ?`, 1},
		}},
		{[]keyColumn{{name: "order", desc: true}, {name: "key"}}, []resumeClause{
			{` AND "order" = ? AND key > ?`, 2},
			{` AND "order" < ?`, 1},
		}},
	} {
		if got := afterClauses(tc.cols); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.cols, got, tc.want)
		}
	}
}

// Clustering columns in different directions, with many rows sharing the first: every
// page size scrolls the partition's rows in the node's order, each once, and a resumed
// page costs one query per column.
func TestTimelineMixedOrder(t *testing.T) {
	s, _, ks := postsKeyspace(t)
	cassandratest.DDL(t, s, ks, "CREATE TABLE likes (item int, month text, liked_at timestamp, user_id int, PRIMARY KEY ((item, month), liked_at, user_id)) WITH CLUSTERING ORDER BY (liked_at DESC, user_id ASC)")
	jan := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var want []int
	for m := 2; m >= 0; m-- { // newest month first
		at := jan.AddDate(0, m, 0)
		for sec := 4; sec >= 0; sec-- { // newest first, then user ascending
			for u := 0; u < 3+sec%2; u++ {
				if err := s.Query("INSERT INTO likes (item, month, liked_at, user_id) VALUES (1, ?, ?, ?)", months.For(at).String(), at.Add(time.Duration(sec)*time.Second), m*100+u).Exec(); err != nil {
					t.Fatal(err)
				}
				want = append(want, m*100+u)
			}
		}
	}
	tl := &Timeline{Session: s, Query: "SELECT liked_at, user_id FROM likes WHERE item = ? AND month = ?", Scheme: months, Retention: 60 * 24 * time.Hour}
	for _, limit := range []int{1, 2, 3, 4, 7, 100} {
		var got []int
		req := PageRequest{Key: []any{1}, Newest: jan.AddDate(0, 2, 0), Limit: limit}
		for pages := 0; ; pages++ {
			p, err := tl.Page(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Rows {
				got = append(got, r["user_id"].(int))
			}
			if req.Token = p.Next; req.Token == "" || pages > 100 {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d a page: %v, want %v", limit, got, want)
		}
	}
	// A page resumed inside a month reads the rest of its second, then the older seconds.
	first, err := tl.Page(context.Background(), PageRequest{Key: []any{1}, Newest: jan.AddDate(0, 2, 0), Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := tl.Page(context.Background(), PageRequest{Key: []any{1}, Limit: 3, Token: first.Next})
	if err != nil {
		t.Fatal(err)
	}
	if p.Visited != 2 {
		t.Errorf("a page resumed inside a second: %d queries, want 2 (the same second, then older ones)", p.Visited)
	}
}

// Tables and queries a timeline cannot page are refused before any row is read.
func TestTimelineRefusesTables(t *testing.T) {
	s, _, ks := postsKeyspace(t)
	cassandratest.DDL(t, s, ks,
		"CREATE TABLE uuids (k int, b text, shard int, id uuid, PRIMARY KEY ((k, b, shard), id))",
		"CREATE TABLE flat (k int, b text, v int, PRIMARY KEY ((k, b)))",
	)
	for _, tc := range []struct {
		tl   Timeline
		want string
	}{
		{Timeline{Query: "SELECT id FROM uuids WHERE k = ? AND b = ? AND shard = ?", Shards: 2}, "merge shards on clustering column id"},
		{Timeline{Query: "SELECT v FROM flat WHERE k = ? AND b = ?"}, "no clustering column"},
		{Timeline{Query: "SELECT content FROM posts_by_user WHERE user_id = ? AND month = ?"}, "does not select clustering column post_id"},
		{Timeline{Query: "SELECT post_id FROM nosuch WHERE user_id = ? AND month = ?"}, "no table nosuch"},
		{Timeline{Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Shards: 2}, "want the 1 key values, the bucket, then the shard"},
	} {
		tc.tl.Session, tc.tl.Scheme, tc.tl.Retention = s, months, 365*24*time.Hour
		user := any(gocql.TimeUUID())
		if strings.Contains(tc.tl.Query, " k = ") {
			user = 1
		}
		if err := s.Query("INSERT INTO posts_by_user (user_id, month, post_id) VALUES (?, '2024-01', now())", user).Exec(); err != nil && user != 1 {
			t.Fatal(err)
		}
		_, err := tc.tl.Page(context.Background(), PageRequest{Key: []any{user}, Newest: time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC), Limit: 5})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.tl.Query, err, tc.want)
		}
	}
}

// checkScroll checks the end of a scroll under concurrent writers and deleters: every row
// that existed for the whole scroll was seen, and the writers and deleters really ran (a
// scroll without them proves nothing). It returns how many stable rows were skipped.
func checkScroll(t *testing.T, stable []gocql.UUID, seen map[gocql.UUID]bool, inserted, deleted int64) int {
	t.Helper()
	missing := 0
	for _, id := range stable {
		if !seen[id] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of the %d rows that existed for the whole scroll were skipped", missing, len(stable))
	}
	if inserted == 0 || deleted == 0 {
		t.Errorf("the scroll ran without concurrent writes (%d inserted, %d deleted): the test proved nothing", inserted, deleted)
	}
	return missing
}
