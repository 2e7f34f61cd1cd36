package backfill

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/cql/derive"
	"github.com/cqlsize/cqlsize/cql/liveschema"
)

// backfillCQL: the source (posts) and three targets: re-keyed by user and month, fanned out
// by hashtag and day, and a copy keyed by id that keeps the non-frozen set as a set.
const backfillCQL = `
CREATE TABLE posts (id timeuuid PRIMARY KEY, user_id text, created_at timestamp, title text, body text, tags set<text>, langs list<text>, attrs map<text, int>);
CREATE TABLE posts_by_month (user_id text, month text, id timeuuid, title text, body text, PRIMARY KEY ((user_id, month), id));
CREATE TABLE posts_by_tag (tag text, day text, id timeuuid, title text, PRIMARY KEY ((tag, day), id));
CREATE TABLE posts_copy (id timeuuid PRIMARY KEY, user_id text, title text, tags set<text>, langs frozen<list<text>>, attrs map<text, int>);
CREATE TABLE posts_list (id timeuuid PRIMARY KEY, langs list<text>);
CREATE TABLE keys_only (a int, b int, PRIMARY KEY (a, b));
CREATE TABLE keys_only_copy (b int, a int, PRIMARY KEY (b, a));
`

// backfillSetup creates the tables in a keyspace of the test's own and returns the live
// schema the backfill compiles against.
func backfillSetup(t *testing.T) (*gocql.Session, string) {
	t.Helper()
	s, ks := cassandratest.Keyspace(t)
	for _, st := range strings.Split(strings.TrimSpace(backfillCQL), ";") {
		if st = strings.TrimSpace(st); st == "" {
			continue
		}
		cassandratest.DDL(t, s, ks, st)
	}
	return s, ks
}

func program(t *testing.T, s *gocql.Session, ks, src, dst string, rules ...string) *derive.Program {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	schema, err := liveschema.Read(ctx, s, ks)
	if err != nil {
		t.Fatal(err)
	}
	p, err := denorm.Derive(schema, ks+"."+src, ks+"."+dst, rules...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// exec runs statements, failing the test on the first error.
func exec(t *testing.T, s *gocql.Session, stmts ...string) {
	t.Helper()
	for _, st := range stmts {
		if err := s.Query(st).Exec(); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
}

// cellAt is a cell read back independently of the backfill: its value, write time and TTL.
type cellAt struct {
	val string
	ts  int64
	ttl int
}

// readCells reads one column with its write time and TTL from every row of a table, by
// the row's key rendered as text. The truth the tests compare against: plain CQL, nothing
// of the backfill's own reader.
func readCells(t *testing.T, s *gocql.Session, table, keyExpr, col string) map[string]cellAt {
	t.Helper()
	out := map[string]cellAt{}
	iter := s.Query(fmt.Sprintf("SELECT %s, %s, WRITETIME(%s), TTL(%s) FROM %s", keyExpr, col, col, col, table)).PageSize(1000).Iter()
	cols := len(strings.Split(keyExpr, ","))
	for {
		m := map[string]any{}
		if !iter.MapScan(m) {
			break
		}
		var key []string
		for _, k := range strings.Split(keyExpr, ",")[:cols] {
			key = append(key, fmt.Sprint(m[strings.TrimSpace(k)]))
		}
		c := cellAt{val: fmt.Sprint(m[col])}
		c.ts, _ = m["writetime("+col+")"].(int64)
		c.ttl, _ = m["ttl("+col+")"].(int)
		out[strings.Join(key, "/")] = c
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func runBackfill(t *testing.T, s *gocql.Session, p *derive.Program, o Options) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if o.Ranges == 0 {
		o.Ranges = 32
	}
	res, err := Run(ctx, s, p, o)
	if err != nil {
		t.Fatalf("backfill: %v", err)
	}
	return res
}

// Every target cell carries its source cell's write time and remaining TTL, cells of one
// row written at different times keep their own, and a fan-out row from a non-frozen set
// takes its element's write time.
func TestBackfillKeepsWriteTimesAndTTLs(t *testing.T) {
	s, ks := backfillSetup(t)
	base := time.Date(2024, 3, 31, 23, 30, 0, 0, time.UTC)
	const n = 300
	var want []string
	for i := 0; i < n; i++ {
		at := base.Add(time.Duration(i) * 7 * time.Minute)
		id := gocql.UUIDFromTime(at)
		ts := int64(1_700_000_000_000_000 + i*1000)
		exec(t, s, fmt.Sprintf("INSERT INTO %s.posts (id, user_id, created_at, title, tags) VALUES (%s, 'u%d', '%s', 'title %d', {'a%d', 'b'}) USING TIMESTAMP %d",
			ks, id, i%7, at.Format("2006-01-02T15:04:05Z"), i, i%3, ts))
		if i%2 == 0 { // body later, with a TTL; one more tag later still
			exec(t, s, fmt.Sprintf("UPDATE %s.posts USING TIMESTAMP %d AND TTL 86400 SET body = 'body %d' WHERE id = %s", ks, ts+500, i, id))
			exec(t, s, fmt.Sprintf("UPDATE %s.posts USING TIMESTAMP %d SET tags = tags + {'late'} WHERE id = %s", ks, ts+900, id),
				fmt.Sprintf("UPDATE %s.posts USING TIMESTAMP %d SET langs = langs + ['en', 'de'], attrs = attrs + {'b': 2, 'a': 1} WHERE id = %s", ks, ts+100, id),
				fmt.Sprintf("UPDATE %s.posts USING TIMESTAMP %d AND TTL 50000 SET langs = langs + ['fr'], attrs = attrs + {'c': 3} WHERE id = %s", ks, ts+700, id))
		}
		want = append(want, id.String())
	}
	byMonth := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	res := runBackfill(t, s, byMonth, Options{})
	if res.Rows != n || res.TargetRows != n || !res.Complete() {
		t.Fatalf("posts_by_month: %+v", res)
	}
	src := map[string]map[string]cellAt{}
	for _, col := range []string{"title", "body", "user_id", "created_at"} {
		src[col] = readCells(t, s, ks+".posts", "id", col)
	}
	for _, col := range []string{"title", "body"} {
		got := readCells(t, s, ks+".posts_by_month", "id, user_id, month", col)
		if len(got) != n {
			t.Fatalf("posts_by_month has %d rows, want %d", len(got), n)
		}
		for key, c := range got {
			parts := strings.Split(key, "/")
			id := parts[0]
			sc := src[col][id]
			created, _ := time.Parse("2006-01-02 15:04:05 -0700 MST", src["created_at"][id].val)
			if wantMonth := created.UTC().Format("2006-01"); parts[2] != wantMonth || parts[1] != src["user_id"][id].val {
				t.Errorf("row %s: user/month %s/%s, want %s/%s", id, parts[1], parts[2], src["user_id"][id].val, wantMonth)
			}
			if c.val != sc.val || c.ts != sc.ts {
				t.Errorf("posts_by_month %s.%s = %q at %d, source %q at %d", id, col, c.val, c.ts, sc.val, sc.ts)
			}
			if sc.ttl > 0 && (c.ttl <= 0 || c.ttl > sc.ttl+1 || c.ttl < sc.ttl-30) || sc.ttl == 0 && c.ttl != 0 {
				t.Errorf("posts_by_month %s.%s TTL %d, source %d", id, col, c.ttl, sc.ttl)
			}
		}
	}

	// The fan-out: one row per element; title keeps its own write time.
	byTag := program(t, s, ks, "posts", "posts_by_tag", "tag=each(tags)", "day=day(created_at)")
	res = runBackfill(t, s, byTag, Options{})
	wantRows := int64(n*2 + n/2)
	if res.TargetRows != wantRows {
		t.Errorf("posts_by_tag: %d target rows written, want %d", res.TargetRows, wantRows)
	}
	got := readCells(t, s, ks+".posts_by_tag", "id, tag, day", "title")
	if int64(len(got)) != wantRows {
		t.Errorf("posts_by_tag holds %d rows, want %d", len(got), wantRows)
	}
	for key, c := range got {
		id := strings.Split(key, "/")[0]
		if sc := src["title"][id]; c.val != sc.val || c.ts != sc.ts {
			t.Errorf("posts_by_tag %s title %q at %d, source %q at %d", key, c.val, c.ts, sc.val, sc.ts)
		}
	}

	// The copy keeps non-frozen sets and maps element by element: each element's own write
	// time and TTL. A non-frozen list copied into a frozen one is one cell, written at its
	// newest element's time.
	cp := program(t, s, ks, "posts", "posts_copy")
	runBackfill(t, s, cp, Options{})
	ts0 := int64(1_700_000_000_000_000)
	for _, col := range []string{"tags", "attrs", "langs"} {
		q := "SELECT %s, WRITETIME(%s), TTL(%s) FROM %s.%s WHERE id = " + want[0]
		var sv, dv map[string]any = map[string]any{}, map[string]any{}
		if err := s.Query(fmt.Sprintf(q, col, col, col, ks, "posts")).MapScan(sv); err != nil {
			t.Fatal(err)
		}
		if err := s.Query(fmt.Sprintf(q, col, col, col, ks, "posts_copy")).MapScan(dv); err != nil {
			t.Fatal(err)
		}
		if col == "langs" {
			if fmt.Sprint(dv[col]) != "[en de fr]" || dv["writetime(langs)"] != ts0+700 || dv["ttl(langs)"] != 0 {
				t.Errorf("langs into a frozen list: %v at %v TTL %v, want [en de fr] at %d with none (not every element has a TTL)",
					dv[col], dv["writetime(langs)"], dv["ttl(langs)"], ts0+700)
			}
			continue
		}
		ws, wd := fmt.Sprint(sv[col], sv["writetime("+col+")"]), fmt.Sprint(dv[col], dv["writetime("+col+")"])
		if ws != wd {
			t.Errorf("%s: source %s, target %s", col, ws, wd)
		}
		st, dt := sv["ttl("+col+")"].([]int), dv["ttl("+col+")"].([]int)
		if col == "attrs" && fmt.Sprint(st) != "[0 0 50000]" && (len(st) != 3 || st[2] < 49000) {
			t.Errorf("attrs: source TTLs %v, want the third element's only", st)
		}
		for i := range st {
			if i >= len(dt) || (st[i] == 0) != (dt[i] == 0) || dt[i] > st[i]+1 {
				t.Errorf("%s: source TTLs %v, target %v", col, st, dt)
				break
			}
		}
	}
	// A non-frozen list target is refused before anything is read.
	if _, err := Run(context.Background(), s, program(t, s, ks, "posts", "posts_list"), Options{}); err == nil ||
		!strings.Contains(err.Error(), "column langs is a non-frozen list: writing it again") {
		t.Errorf("a non-frozen list target: %v", err)
	}
}

// insertPosts writes n posts with plain INSERTs at the current time and returns their ids.
func insertPosts(t *testing.T, s *gocql.Session, ks string, n int) []gocql.UUID {
	t.Helper()
	base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	ids := make([]gocql.UUID, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 32)
	for i := 0; i < n; i++ {
		at := base.Add(time.Duration(i) * 5 * time.Hour)
		ids[i] = gocql.UUIDFromTime(at)
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, at time.Time) {
			defer func() { <-sem; wg.Done() }()
			errs <- s.Query("INSERT INTO "+ks+".posts (id, user_id, created_at, title, tags) VALUES (?, ?, ?, ?, ?)",
				ids[i], fmt.Sprintf("u%d", i%9), at, fmt.Sprintf("title %d", i), []string{"t" + fmt.Sprint(i%4)}).Exec()
		}(i, at)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// monthRow is a posts_by_month row as the test expects it: computed here from the source
// row, with time.Format, not with the derive package.
type monthRow struct{ user, month, id, title string }

// expectedByMonth reads posts and derives posts_by_month's rows by hand.
func expectedByMonth(t *testing.T, s *gocql.Session, ks string) map[string]monthRow {
	t.Helper()
	out := map[string]monthRow{}
	iter := s.Query("SELECT id, user_id, created_at, title FROM " + ks + ".posts").PageSize(1000).Iter()
	var id gocql.UUID
	var user, title string
	var at time.Time
	for iter.Scan(&id, &user, &at, &title) {
		r := monthRow{user, at.UTC().Format("2006-01"), id.String(), title}
		out[r.user+"/"+r.month+"/"+r.id] = r
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func actualByMonth(t *testing.T, s *gocql.Session, ks string) map[string]monthRow {
	t.Helper()
	out := map[string]monthRow{}
	iter := s.Query("SELECT user_id, month, id, title FROM " + ks + ".posts_by_month").PageSize(1000).Iter()
	var id gocql.UUID
	var user, month, title string
	for iter.Scan(&user, &month, &id, &title) {
		out[user+"/"+month+"/"+id.String()] = monthRow{user, month, id.String(), title}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// compareByMonth counts target rows missing, extra and different against the expectation.
func compareByMonth(t *testing.T, want, got map[string]monthRow) {
	t.Helper()
	missing, extra, different := 0, 0, 0
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			missing++
		case g != w:
			different++
			t.Logf("different: %+v, want %+v", g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			extra++
		}
	}
	if missing+extra+different > 0 {
		t.Errorf("posts_by_month against posts: %d missing, %d extra, %d different (of %d)", missing, extra, different, len(want))
	}
}

// A delete and an update that reach the target after the copy read the row, with the
// current time as every service write has, win over the copy: the target keeps the row
// deleted and the new value. Here they are placed in the target before the backfill runs,
// stamped a minute ahead, which is the order a slow copy meets them in.
func TestBackfillLeavesNewerDeletesAndUpdates(t *testing.T) {
	s, ks := backfillSetup(t)
	ids := insertPosts(t, s, ks, 200)
	exec(t, s, "INSERT INTO "+ks+".keys_only (a, b) VALUES (1, 10)", "INSERT INTO "+ks+".keys_only (a, b) VALUES (2, 20)",
		"INSERT INTO "+ks+".keys_only (a, b) VALUES (3, 30)")
	later := time.Now().Add(time.Minute).UnixMicro()
	want := expectedByMonth(t, s, ks)
	var deleted, updated monthRow
	for _, r := range want {
		if deleted.id == "" {
			deleted = r
		} else if updated.id == "" {
			updated = r
		}
	}
	exec(t, s,
		fmt.Sprintf("DELETE FROM %s.posts_by_month USING TIMESTAMP %d WHERE user_id = '%s' AND month = '%s' AND id = %s", ks, later, deleted.user, deleted.month, deleted.id),
		fmt.Sprintf("UPDATE %s.posts_by_month USING TIMESTAMP %d SET title = 'newer' WHERE user_id = '%s' AND month = '%s' AND id = %s", ks, later, updated.user, updated.month, updated.id),
		fmt.Sprintf("DELETE FROM %s.keys_only_copy USING TIMESTAMP %d WHERE b = 20 AND a = 2", ks, later),
	)
	runBackfill(t, s, program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)"), Options{})
	got := actualByMonth(t, s, ks)
	if _, ok := got[deleted.user+"/"+deleted.month+"/"+deleted.id]; ok {
		t.Errorf("the row deleted after the copy's read is back: %+v", deleted)
	}
	if g := got[updated.user+"/"+updated.month+"/"+updated.id]; g.title != "newer" {
		t.Errorf("the row updated after the copy's read has title %q, want newer", g.title)
	}
	if len(got) != len(ids)-1 {
		t.Errorf("posts_by_month holds %d rows, want %d", len(got), len(ids)-1)
	}

	// Rows of key columns only: written at the oldest time there is, so a delete stamped
	// later still wins, and the others are copied.
	res := runBackfill(t, s, program(t, s, ks, "keys_only", "keys_only_copy"), Options{})
	if res.KeyOnlyRows != 3 {
		t.Errorf("%d key-only rows counted, want 3", res.KeyOnlyRows)
	}
	var pairs []string
	iter := s.Query("SELECT b, a FROM " + ks + ".keys_only_copy").Iter()
	var a, b int
	for iter.Scan(&b, &a) {
		pairs = append(pairs, fmt.Sprintf("%d/%d", b, a))
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(pairs)
	if fmt.Sprint(pairs) != "[10/1 30/3]" {
		t.Errorf("keys_only_copy holds %v, want [10/1 30/3] (20/2 deleted after the read)", pairs)
	}
}

// A key-only row the service deleted (a dual write, in both tables) before the copy read
// it stays deleted, even when the read came from a replica that missed the delete in the
// source: here the source keeps the row, as such a replica does, and the target holds the
// delete, stamped a second before the copy starts. A copy that wrote the row at the time
// of its read would bring it back.
func TestBackfillKeyOnlyRowDeletedBeforeTheReadStaysDeleted(t *testing.T) {
	s, ks := backfillSetup(t)
	exec(t, s, "INSERT INTO "+ks+".keys_only (a, b) VALUES (1, 10)", "INSERT INTO "+ks+".keys_only (a, b) VALUES (2, 20)")
	exec(t, s, fmt.Sprintf("DELETE FROM %s.keys_only_copy USING TIMESTAMP %d WHERE b = 10 AND a = 1", ks, time.Now().Add(-time.Second).UnixMicro()))
	res := runBackfill(t, s, program(t, s, ks, "keys_only", "keys_only_copy"), Options{})
	if res.KeyOnlyRows != 2 {
		t.Errorf("%d key-only rows counted, want 2", res.KeyOnlyRows)
	}
	if n := countOf(t, s, "SELECT COUNT(*) FROM "+ks+".keys_only_copy WHERE b = 10 AND a = 1"); n != 0 {
		t.Errorf("the key-only row deleted before the copy's read is back")
	}
	if n := countOf(t, s, "SELECT COUNT(*) FROM "+ks+".keys_only_copy WHERE b = 20 AND a = 2"); n != 1 {
		t.Errorf("the key-only row nobody deleted was not copied")
	}
	// A dual write after the copy (the service inserts the row again) is newer still.
	exec(t, s, "INSERT INTO "+ks+".keys_only_copy (b, a) VALUES (10, 1)")
	if n := countOf(t, s, "SELECT COUNT(*) FROM "+ks+".keys_only_copy WHERE b = 10 AND a = 1"); n != 1 {
		t.Errorf("a key-only row inserted again after the copy is not there")
	}
}

func countOf(t *testing.T, s *gocql.Session, stmt string) int {
	t.Helper()
	var n int
	if err := s.Query(stmt).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// While the backfill runs, a client keeps inserting, updating and deleting posts at the
// current time, in both tables as a service's dual writes do. Afterwards the target holds
// exactly what the source holds: no deleted row back, no update lost.
func TestBackfillWithConcurrentWrites(t *testing.T) {
	s, ks := backfillSetup(t)
	ids := insertPosts(t, s, ks, 2000)
	p := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mutations, errs int
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			id := ids[(i*7919)%len(ids)]
			at, _ := time.Parse(time.RFC3339, "2000-01-01T00:00:00Z")
			var user string
			if err := s.Query("SELECT user_id, created_at FROM "+ks+".posts WHERE id = ?", id).Scan(&user, &at); err != nil {
				continue // deleted already
			}
			month := at.UTC().Format("2006-01")
			ts := time.Now().UnixMicro()
			var err error
			switch i % 3 {
			case 0: // delete from both tables
				b := s.NewBatch(gocql.LoggedBatch)
				b.Query("DELETE FROM "+ks+".posts USING TIMESTAMP ? WHERE id = ?", ts, id)
				b.Query("DELETE FROM "+ks+".posts_by_month USING TIMESTAMP ? WHERE user_id = ? AND month = ? AND id = ?", ts, user, month, id)
				err = executeUntilAnswered(s, b)
			case 1: // update the title in both
				title := fmt.Sprintf("updated %d", i)
				b := s.NewBatch(gocql.LoggedBatch)
				b.Query("UPDATE "+ks+".posts USING TIMESTAMP ? SET title = ? WHERE id = ?", ts, title, id)
				b.Query("UPDATE "+ks+".posts_by_month USING TIMESTAMP ? SET title = ? WHERE user_id = ? AND month = ? AND id = ?", ts, title, user, month, id)
				err = executeUntilAnswered(s, b)
			case 2: // a new post in both
				nat := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
				nid := gocql.UUIDFromTime(nat)
				b := s.NewBatch(gocql.LoggedBatch)
				b.Query("INSERT INTO "+ks+".posts (id, user_id, created_at, title) VALUES (?, 'new', ?, 'new post') USING TIMESTAMP ?", nid, nat, ts)
				b.Query("INSERT INTO "+ks+".posts_by_month (user_id, month, id, title) VALUES ('new', ?, ?, 'new post') USING TIMESTAMP ?", nat.Format("2006-01"), nid, ts)
				err = executeUntilAnswered(s, b)
			}
			if err != nil {
				errs++
			} else {
				mutations++
			}
		}
	}()
	res := runBackfill(t, s, p, Options{Rate: 1000, Workers: 2})
	cancel()
	wg.Wait()
	if mutations < 20 {
		t.Fatalf("only %d mutations ran during the backfill (%d failed): the test did not race anything", mutations, errs)
	}
	if errs > 0 {
		t.Fatalf("%d batches got no answer in 10 sends: the tables may differ by what they half applied", errs)
	}
	t.Logf("backfill read %d rows in %.1fs while %d mutations ran (%d failed)", res.Rows, res.ElapsedSeconds, mutations, errs)
	// --rate 1000/s: the limiter lets no more through (a lower bound on the time, which a
	// slow machine cannot break).
	if min := float64(res.Rows-1) / 1000; res.ElapsedSeconds < min {
		t.Errorf("%d rows read in %.2fs at a rate of 1000/s: want at least %.2fs", res.Rows, res.ElapsedSeconds, min)
	}
	compareByMonth(t, expectedByMonth(t, s, ks), actualByMonth(t, s, ks))
}

// executeUntilAnswered sends a logged batch again until the node answers it. A batch the
// client gave up on may be half applied until the node replays its batch log (the target
// updated, the source not yet, when the test compares them); the statements carry their
// own timestamps, so sending it again is idempotent and ends that.
func executeUntilAnswered(s *gocql.Session, b *gocql.Batch) error {
	var err error
	for range 10 {
		if err = s.ExecuteBatch(b); err == nil {
			return nil
		}
	}
	return err
}

// A run stopped partway (its context cancelled after a few ranges) leaves its progress in
// the checkpoint; the next run copies only the ranges left, and the copy is whole.
func TestBackfillContinuesAfterAStop(t *testing.T) {
	s, ks := backfillSetup(t)
	insertPosts(t, s, ks, 1000)
	p := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, err := Run(ctx, s, p, Options{Ranges: 32, Workers: 2, Progress: func(pr Progress) {
		if pr.RangesDone >= 8 {
			cancel()
		}
	}})
	if err == nil || first == nil || first.RangesCopied < 8 || first.RangesCopied >= 32 {
		t.Fatalf("first run: %+v, %v: want it stopped after 8 or more ranges of 32", first, err)
	}
	done := countOf(t, s, "SELECT COUNT(*) FROM "+ks+"."+ProgressTable)
	if done != first.RangesCopied {
		t.Errorf("the checkpoint holds %d ranges, the run copied %d", done, first.RangesCopied)
	}
	second := runBackfill(t, s, p, Options{Ranges: 32})
	if second.RangesDone != done || second.RangesCopied != 32-done || second.Rows >= 1000 {
		t.Errorf("second run: %d ranges done before, %d copied, %d rows read; want %d, %d and fewer than 1000", second.RangesDone, second.RangesCopied, second.Rows, done, 32-done)
	}
	compareByMonth(t, expectedByMonth(t, s, ks), actualByMonth(t, s, ks))
	// Another number of ranges, or other rules, cannot continue this checkpoint.
	if _, err := Run(context.Background(), s, p, Options{Ranges: 16}); !errorsAs[*MismatchError](err) {
		t.Errorf("a run with 16 ranges over a checkpoint of 32: %v, want a *MismatchError", err)
	}
	third := runBackfill(t, s, p, Options{Ranges: 16, Restart: true})
	if third.RangesCopied != 16 || third.Rows != 1000 {
		t.Errorf("restart: %d ranges copied, %d rows read; want 16 and 1000", third.RangesCopied, third.Rows)
	}
	if n := countOf(t, s, "SELECT COUNT(*) FROM "+ks+"."+ProgressTable); n != 16 {
		t.Errorf("after the restart with 16 ranges the checkpoint holds %d, want 16 (none of the 32 before)", n)
	}
	// A restart of one share of two forgets that share's ranges only.
	half := runBackfill(t, s, p, Options{Ranges: 16, Restart: true, Share: 2, Shares: 2})
	if half.RangesCopied != 8 || half.RangesDone != 0 {
		t.Errorf("restart of share 2/2: %d copied, %d done before; want 8 and 0", half.RangesCopied, half.RangesDone)
	}
	if again := runBackfill(t, s, p, Options{Ranges: 16, Share: 1, Shares: 2}); again.RangesCopied != 0 || again.RangesDone != 8 {
		t.Errorf("share 1/2 after share 2/2 restarted: %d copied, %d done before; want 0 and 8", again.RangesCopied, again.RangesDone)
	}
}

func errorsAs[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

// --split 1/3, 2/3 and 3/3 run at once cover the ring once between them: every source row
// is read by exactly one of them, and every range is in the checkpoint.
func TestBackfillSharesCoverTheRingOnce(t *testing.T) {
	s, ks := backfillSetup(t)
	insertPosts(t, s, ks, 1500)
	p := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	results := make([]*Result, 3)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runBackfill(t, s, p, Options{Ranges: 30, Share: i + 1, Shares: 3, Workers: 2})
		}()
	}
	wg.Wait()
	var rows int64
	ranges := 0
	for _, r := range results {
		rows += r.Rows
		ranges += r.RangesCopied
		if r.Ranges != 10 {
			t.Errorf("share %d/%d has %d ranges, want 10", r.Share, r.Shares, r.Ranges)
		}
	}
	if rows != 1500 || ranges != 30 {
		t.Errorf("the shares read %d rows and copied %d ranges, want 1500 and 30", rows, ranges)
	}
	if n := countOf(t, s, "SELECT COUNT(*) FROM "+ks+"."+ProgressTable); n != 30 {
		t.Errorf("the checkpoint holds %d ranges, want 30", n)
	}
	compareByMonth(t, expectedByMonth(t, s, ks), actualByMonth(t, s, ks))
}

// Two runs of the same backfill at once never copy one range both: between them they read
// every row once. A range another process holds (its lease row, as a killed run leaves
// it) is waited for and copied once the lease expires.
func TestBackfillLeasesKeepRunsApart(t *testing.T) {
	s, ks := backfillSetup(t)
	insertPosts(t, s, ks, 1200)
	p := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	var wg sync.WaitGroup
	results := make([]*Result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runBackfill(t, s, p, Options{Ranges: 24, Workers: 3, Wait: 300 * time.Millisecond})
		}()
	}
	wg.Wait()
	if rows, copied := results[0].Rows+results[1].Rows, results[0].RangesCopied+results[1].RangesCopied; rows != 1200 || copied != 24 {
		t.Errorf("two runs read %d rows and copied %d ranges between them, want 1200 and 24 (%+v, %+v)", rows, copied, results[0], results[1])
	}

	// A lease left by a run that died: the range waits for it to expire.
	id := backfillID(p.SourceTable(), p.TargetTable())
	exec(t, s, fmt.Sprintf("INSERT INTO %s.%s (backfill, range_lo, owner) VALUES ('%s', %d, 'dead run') USING TTL 5", ks, LeaseTable, id, int64(-9223372036854775808)))
	start := time.Now()
	var held int
	res := runBackfill(t, s, p, Options{Ranges: 24, Restart: true, Wait: 500 * time.Millisecond, Progress: func(pr Progress) {
		held = max(held, pr.HeldByOther)
	}})
	if res.RangesCopied != 24 || held != 1 || time.Since(start) < 3*time.Second {
		t.Errorf("with one range leased by a dead run: %d ranges copied, %d seen held, in %s; want 24, 1, after the lease's 5 s", res.RangesCopied, held, time.Since(start))
	}
}

// A read that fails partway (here: a range read that takes longer than PartTimeout, at a
// rate that makes every range too slow) is split from where it stopped and read again;
// the backfill still completes, and nothing is missing.
func TestBackfillSplitsAFailedRead(t *testing.T) {
	s, ks := backfillSetup(t)
	insertPosts(t, s, ks, 800)
	p := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	res := runBackfill(t, s, p, Options{Ranges: 4, Workers: 2, Rate: 1000, PageSize: 50, PartTimeout: 150 * time.Millisecond, MaxSplits: 500})
	if res.Splits == 0 || !res.Complete() {
		t.Errorf("%d splits, complete %v: want the slow ranges split and the copy complete", res.Splits, res.Complete())
	}
	t.Logf("%d splits, %d rows read (%d source rows)", res.Splits, res.Rows, 800)
	compareByMonth(t, expectedByMonth(t, s, ks), actualByMonth(t, s, ks))
	// With too few splits allowed, the range is left for the next run, which says so.
	_, err := Run(context.Background(), s, p, Options{Ranges: 4, Workers: 2, Rate: 200, PageSize: 50, PartTimeout: 150 * time.Millisecond,
		MaxSplits: 1, Restart: true})
	var be *Error
	if !errors.As(err, &be) || be.Result.RangesFailed == 0 || !strings.Contains(err.Error(), "after 1 splits") {
		t.Errorf("with one split allowed: %v, want a *backfill.Error naming the ranges left", err)
	}
}

// The progress total of a source with clustering columns is rows, not the partitions
// system.size_estimates counts: 1,000 partitions of 4 rows, flushed and estimated, read as
// about 4,000 rows (within the estimate's error: it counts keys by the index summary, 128
// at a time), and nothing before a partition is read.
func TestBackfillProgressTotalIsRows(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	node := cassandratest.LocalNode(t, s)
	cassandratest.DDL(t, s, ks, "CREATE TABLE src (k int, c int, v text, PRIMARY KEY (k, c))", "CREATE TABLE dst (c int, k int, v text, PRIMARY KEY (c, k))")
	const parts, per = 1000, 4
	var wg sync.WaitGroup
	errs := make(chan error, parts)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < parts; k += 8 {
				b := s.NewBatch(gocql.UnloggedBatch)
				for c := range per {
					b.Query("INSERT INTO src (k, c, v) VALUES (?, ?, 'x')", k, c)
				}
				if err := s.ExecuteBatch(b); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, cmd := range [][]string{{"nodetool", "flush", ks, "src"}, {"nodetool", "refreshsizeestimates"}} {
		if out, err := node.Run(ctx, cmd...); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, out)
		}
	}
	var last Progress
	var before []float64
	res := runBackfill(t, s, program(t, s, ks, "src", "dst"), Options{Workers: 1, Progress: func(p Progress) {
		if p.Rows == 0 {
			before = append(before, p.TotalRows)
		}
		last = p
	}})
	if res.Rows != parts*per {
		t.Fatalf("copied %d rows, want %d", res.Rows, parts*per)
	}
	if last.TotalRows < parts*per/2 || last.TotalRows > parts*per*2 {
		t.Errorf("the progress total is %v rows; the source holds %d rows in %d partitions", last.TotalRows, parts*per, parts)
	}
	for _, v := range before {
		if v != 0 {
			t.Errorf("before any partition is read the total is %v: a partition of this table holds any number of rows", v)
		}
	}
}

// A copied TTL counts down from the source's read, however long the write waits after
// it: the copy reads one page of 3,000 rows and writes them one at a time, each write
// followed by a 2 ms pause (the observer's), so the last rows are written more than 6 s
// after the node read them, and a copy that wrote the TTL it read would outlive the source
// cells by those seconds. What a
// correct copy cannot control is the time between sending a write and the node building its
// mutation (the node counts a TTL from then; CQL has no absolute expiry to write instead),
// and the node counts TTLs in whole seconds. So a target cell may outlive its source cell by
// at most its write's own round trip, rounded up to a second: each write is timed by a
// query observer, and the source is read first, the target right after.
func TestBackfillCountsTTLsDownToTheWrite(t *testing.T) {
	s, ks := backfillSetup(t)
	const n = 3000
	for i := 0; i < n; i += 100 {
		b := s.NewBatch(gocql.UnloggedBatch)
		for j := i; j < i+100; j++ {
			b.Query(fmt.Sprintf("INSERT INTO %s.posts (id, title) VALUES (?, ?) USING TTL 86400", ks), gocql.TimeUUID(), fmt.Sprintf("title %d", j))
		}
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	writes := &writeTimes{spans: map[string]writeSpan{}, table: "posts_copy", pause: 2 * time.Millisecond}
	ws := cassandratest.ObservedSession(t, ks, writes)
	p := program(t, s, ks, "posts", "posts_copy")
	runBackfill(t, ws, p, Options{Ranges: 1, Workers: 1, InFlight: 1, PageSize: n})
	src := readCells(t, s, ks+".posts", "id", "title")
	dst := readCells(t, s, ks+".posts_copy", "id", "title")
	if len(src) != n || len(dst) != n {
		t.Fatalf("%d source rows, %d target rows, want %d", len(src), len(dst), n)
	}
	longer := 0
	for id, sc := range src {
		dc := dst[id]
		if dc.val != sc.val || dc.ts != sc.ts || dc.ttl <= 0 || dc.ttl < sc.ttl-30 {
			t.Errorf("%s: target %+v, source %+v", id, dc, sc)
		}
		w, ok := writes.spans[id]
		if !ok {
			t.Errorf("%s: no write of it was observed", id)
			continue
		}
		// The round trip bounds the wait in the node; a few microseconds more for the time
		// between the copy counting the TTL down and the driver starting its clock.
		allowed := int(math.Ceil((w.end.Sub(w.start) + time.Millisecond).Seconds()))
		if over := dc.ttl - sc.ttl; over > allowed {
			if longer++; longer <= 5 {
				t.Errorf("%s: target TTL %d, source %d (read before it): the target cell outlives the source's by %d s, its write took %s",
					id, dc.ttl, sc.ttl, over, w.end.Sub(w.start))
			}
		}
	}
	if longer > 0 {
		t.Errorf("%d of %d target cells outlive their source cells by more than their writes took", longer, n)
	}
}

// writeTimes records, for each row written to table, when the driver started its first
// attempt and when its last ended (the span covers the driver's retries). It then pauses
// the writer for pause, after the attempt's end, so the pause is in no write's span.
type writeTimes struct {
	table string
	pause time.Duration
	mu    sync.Mutex
	spans map[string]writeSpan
}

type writeSpan struct{ start, end time.Time }

func (w *writeTimes) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	if !strings.HasPrefix(q.Statement, "INSERT") || !strings.Contains(q.Statement, w.table) {
		return
	}
	for _, v := range q.Values {
		id, ok := v.(gocql.UUID)
		if !ok {
			continue
		}
		w.mu.Lock()
		sp, seen := w.spans[id.String()]
		if !seen || q.Start.Before(sp.start) {
			sp.start = q.Start
		}
		if q.End.After(sp.end) {
			sp.end = q.End
		}
		w.spans[id.String()] = sp
		w.mu.Unlock()
	}
	time.Sleep(w.pause)
}

// A lease claim whose answer was lost (a timeout, a connection reset after the node
// applied it) is in doubt: the claim is sent again, or the lease read, and a lease that
// this run holds is this run's claim won, not a range another run holds. Here the lease is
// in the table with this run's name, as a claim applied with its answer lost leaves it.
func TestBackfillClaimInDoubtIsWonWhenTheLeaseIsOurs(t *testing.T) {
	s, ks := backfillSetup(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ck := testCheckpoint(ctx, t, s, ks, "in doubt")
	exec(t, s, fmt.Sprintf("INSERT INTO %s.%s (backfill, range_lo, owner) VALUES ('in doubt', 7, 'this run') USING TTL 30", ks, LeaseTable))
	_, release, held, err := ck.claim(ctx, 7)
	if err != nil || held != "" {
		t.Fatalf("claim of a range whose lease is this run's: held by %q, %v; want it claimed", held, err)
	}
	release()
	if found, owner, err := ck.leaseOwner(ctx, 7); err != nil || found {
		t.Errorf("after release the lease is held by %q (%v), want none", owner, err)
	}
	other := *ck
	other.owner = "another run"
	exec(t, s, fmt.Sprintf("INSERT INTO %s.%s (backfill, range_lo, owner) VALUES ('in doubt', 8, 'this run') USING TTL 30", ks, LeaseTable))
	if _, _, held, err := other.claim(ctx, 8); err != nil || held != "this run" {
		t.Errorf("another run's claim: held by %q, %v; want held by this run", held, err)
	}
}

// The plan's record whose answer was lost (the node applied the transaction, the client
// timed out) is sent again: the second attempt finds the plan recorded, the same, and the
// run goes on. Here the first attempt is beginOnce with its answer ignored; the retry is
// begin. A plan recorded with other rules is still refused, at once.
func TestBackfillPlanRecordSentAgainAfterItsAnswerWasLost(t *testing.T) {
	s, ks := backfillSetup(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ck := testCheckpoint(ctx, t, s, ks, "lost answer")
	_ = ck.beginOnce(ctx, 16, "rules a") // applied; its answer is what a timeout loses
	if err := ck.begin(ctx, 16, "rules a"); err != nil {
		t.Fatalf("begin sent again after an applied attempt: %v", err)
	}
	var ranges int
	var rules string
	if err := s.Query("SELECT ranges, rules FROM "+ks+"."+ProgressTable+" WHERE backfill = 'lost answer' LIMIT 1").Scan(&ranges, &rules); err != nil || ranges != 16 || rules != "rules a" {
		t.Errorf("recorded plan: %d ranges, rules %q, %v; want 16 and \"rules a\"", ranges, rules, err)
	}
	begun := time.Now()
	var mismatch *MismatchError
	if err := ck.begin(ctx, 16, "rules b"); !errors.As(err, &mismatch) {
		t.Errorf("begin with other rules: %v, want a MismatchError", err)
	}
	if took := time.Since(begun); took > 20*time.Second {
		t.Errorf("the mismatch took %s: it is not transient and must not be retried", took)
	}
	// restart sent twice (an answer lost) leaves the plan it records and no progress.
	for range 2 {
		if err := ck.restart(ctx, math.MinInt64, math.MaxInt64, 32, "rules b"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Query("SELECT ranges, rules FROM "+ks+"."+ProgressTable+" WHERE backfill = 'lost answer' LIMIT 1").Scan(&ranges, &rules); err != nil || ranges != 32 || rules != "rules b" {
		t.Errorf("plan after restart twice: %d ranges, rules %q, %v; want 32 and \"rules b\"", ranges, rules, err)
	}
}

// testCheckpoint is the checkpoint of backfill id in keyspace ks, owned by "this run", its
// tables created.
func testCheckpoint(ctx context.Context, t *testing.T, s *gocql.Session, ks, id string) *checkpoint {
	t.Helper()
	ck := &checkpoint{s: s, id: id, consistency: gocql.LocalQuorum, ttl: 30 * time.Second, owner: "this run", retry: time.Minute,
		progress: ks + "." + ProgressTable, lease: ks + "." + LeaseTable}
	if err := ck.ensure(ctx, ks); err != nil {
		t.Fatal(err)
	}
	return ck
}
