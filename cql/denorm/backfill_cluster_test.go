package denorm

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/derive"
	"github.com/cqlsize/cqlsize/cql/liveschema"
)

// backfillCQL: the source (posts) and three targets: re-keyed by user and month, fanned out
// by hashtag and day, and a copy keyed by id that keeps the non-frozen set as a set.
const backfillCQL = `
CREATE TABLE posts (id timeuuid PRIMARY KEY, user_id text, created_at timestamp, title text, body text, tags set<text>);
CREATE TABLE posts_by_month (user_id text, month text, id timeuuid, title text, body text, PRIMARY KEY ((user_id, month), id));
CREATE TABLE posts_by_tag (tag text, day text, id timeuuid, title text, PRIMARY KEY ((tag, day), id));
CREATE TABLE posts_copy (id timeuuid PRIMARY KEY, user_id text, title text, tags set<text>);
CREATE TABLE keys_only (a int, b int, PRIMARY KEY (a, b));
CREATE TABLE keys_only_copy (b int, a int, PRIMARY KEY (b, a));
`

// backfillSetup creates the tables in a keyspace of the test's own and returns the live
// schema the backfill compiles against.
func backfillSetup(t *testing.T) (*gocql.Session, string) {
	t.Helper()
	s, ks := cassandratest.Keyspace(t)
	for _, st := range strings.Split(strings.TrimSpace(backfillCQL), ";") {
		if st = strings.TrimSpace(st); st != "" {
			if err := s.Query(st).Exec(); err != nil {
				t.Fatalf("%s: %v", st, err)
			}
		}
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
	p, err := Derive(schema, ks+"."+src, ks+"."+dst, rules...)
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

func runBackfill(t *testing.T, s *gocql.Session, p *derive.Program, o BackfillOptions) *BackfillResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if o.Ranges == 0 {
		o.Ranges = 32
	}
	res, err := Backfill(ctx, s, p, o)
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
			exec(t, s, fmt.Sprintf("UPDATE %s.posts USING TIMESTAMP %d SET tags = tags + {'late'} WHERE id = %s", ks, ts+900, id))
		}
		want = append(want, id.String())
	}
	byMonth := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	res := runBackfill(t, s, byMonth, BackfillOptions{})
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
	res = runBackfill(t, s, byTag, BackfillOptions{})
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

	// The copy keeps the non-frozen set element by element: the late tag's own write time.
	cp := program(t, s, ks, "posts", "posts_copy")
	runBackfill(t, s, cp, BackfillOptions{})
	var srcTS, dstTS []int64
	var srcTags, dstTags []string
	id0 := want[0]
	if err := s.Query(fmt.Sprintf("SELECT tags, WRITETIME(tags) FROM %s.posts WHERE id = %s", ks, id0)).Scan(&srcTags, &srcTS); err != nil {
		t.Fatal(err)
	}
	if err := s.Query(fmt.Sprintf("SELECT tags, WRITETIME(tags) FROM %s.posts_copy WHERE id = %s", ks, id0)).Scan(&dstTags, &dstTS); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(srcTags, srcTS) != fmt.Sprint(dstTags, dstTS) || len(srcTS) != 3 || srcTS[0] == srcTS[2] {
		t.Errorf("set copy: source %v at %v, target %v at %v", srcTags, srcTS, dstTags, dstTS)
	}
}
