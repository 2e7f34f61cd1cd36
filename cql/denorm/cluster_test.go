package denorm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// postsKeyspace gives t a fresh keyspace with the posts tables, and their schema model.
func postsKeyspace(t *testing.T) (*gocql.Session, *cql.Schema, string) {
	t.Helper()
	s, ks := cassandratest.Keyspace(t)
	stmts, err := cql.SplitStatements("posts.cql", []byte(postsCQL))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		cassandratest.DDL(t, s, ks, st.Text)
	}
	return s, postsSchema(ks), ks
}

// count returns how many rows a query selects.
func count(t *testing.T, s *gocql.Session, q string, args ...any) int {
	t.Helper()
	iter := s.Query(q, args...).Iter()
	n := iter.NumRows()
	if err := iter.Close(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// copies counts every stored copy of p: its row in posts_by_id, posts_by_user and each
// of its hashtags' partitions.
func copies(t *testing.T, s *gocql.Session, p *post, tags []string) (byID, byUser, byTag int) {
	t.Helper()
	m, err := monthOf(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	byID = count(t, s, "SELECT * FROM posts_by_id WHERE post_id = ?", p.ID)
	byUser = count(t, s, "SELECT * FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?", p.UserID, m, p.ID)
	for _, h := range tags {
		byTag += count(t, s, "SELECT * FROM posts_by_hashtag WHERE hashtag = ? AND month = ? AND post_id = ?", h, m, p.ID)
	}
	return
}

func newPost(tags ...string) *post {
	return &post{ID: gocql.TimeUUID(), UserID: gocql.TimeUUID(), Content: str("hello " + strings.Join(tags, " ")), Hashtags: tags, Created: time.Now().UTC().Truncate(time.Millisecond)}
}

func TestInsertUpdateDeleteOnCassandra(t *testing.T) {
	s, schema, _ := postsKeyspace(t)
	ctx := context.Background()
	m := newPostModel(t, s, schema, Options{})
	p := newPost("go", "cassandra", "nosql")
	plan, err := m.Insert(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if id, user, tags := copies(t, s, p, p.Hashtags); id != 1 || user != 1 || tags != 3 {
		t.Fatalf("after insert: %d, %d, %d rows in posts_by_id, posts_by_user, posts_by_hashtag; want 1, 1, 3", id, user, tags)
	}
	if n := plan.Rows(plan.Size.Tables[2].Table); n != 3 {
		t.Errorf("plan says %d hashtag rows", n)
	}
	got, err := m.Load(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got.Hashtags)
	if *got.Content != *p.Content || got.UserID != p.UserID || !got.Created.Equal(p.Created) || strings.Join(got.Hashtags, ",") != "cassandra,go,nosql" {
		t.Errorf("loaded %+v, want %+v", got, p)
	}

	// Drop a hashtag, add one, change the content: the dropped hashtag's row goes.
	q := *p
	q.Hashtags = []string{"go", "nosql", "databases"}
	q.Content = str("edited")
	if _, err := m.Update(ctx, p, &q); err != nil {
		t.Fatal(err)
	}
	if _, _, n := copies(t, s, p, []string{"cassandra"}); n != 0 {
		t.Error("the removed hashtag's row is still there")
	}
	if id, user, tags := copies(t, s, &q, q.Hashtags); id != 1 || user != 1 || tags != 3 {
		t.Errorf("after update: %d, %d, %d rows; want 1, 1, 3", id, user, tags)
	}
	var content string
	month, _ := monthOf(q.ID)
	if err := s.Query("SELECT content FROM posts_by_hashtag WHERE hashtag = 'go' AND month = ? AND post_id = ?", month, q.ID).Scan(&content); err != nil || content != "edited" {
		t.Errorf("hashtag copy not overwritten: %q, %v", content, err)
	}

	// Delete from what is stored, not from the caller's copy: every copy goes.
	if _, err := m.DeleteByKey(ctx, []any{q.ID}); err != nil {
		t.Fatal(err)
	}
	if id, user, tags := copies(t, s, &q, append(q.Hashtags, "cassandra")); id+user+tags != 0 {
		t.Errorf("after delete: %d, %d, %d rows left", id, user, tags)
	}
	if _, err := m.Load(ctx, q.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("load after delete: %v, want ErrNotFound", err)
	}
}

func TestBadInputWritesNothingOnCassandra(t *testing.T) {
	s, schema, _ := postsKeyspace(t)
	m := newPostModel(t, s, schema, Options{})
	p := newPost("go", "")
	if _, err := m.Insert(context.Background(), p); err == nil {
		t.Fatal("an empty hashtag was accepted")
	}
	if id, user, tags := copies(t, s, p, []string{"go"}); id+user+tags != 0 {
		t.Errorf("a refused write left %d, %d, %d rows", id, user, tags)
	}
}

func TestMovingBucket(t *testing.T) {
	s, schema, _ := postsKeyspace(t)
	ctx := context.Background()
	m := newPostModel(t, s, schema, Options{})
	old := newPost("go")
	old.ID = gocql.UUIDFromTime(time.Date(2024, 1, 31, 23, 0, 0, 0, time.UTC))
	if _, err := m.Insert(ctx, old); err != nil {
		t.Fatal(err)
	}
	moved := *old
	moved.ID = gocql.UUIDFromTime(time.Date(2024, 2, 1, 1, 0, 0, 0, time.UTC)) // re-dated into February
	if _, err := m.Update(ctx, old, &moved); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "SELECT * FROM posts_by_user WHERE user_id = ? AND month = '2024-01'", old.UserID); n != 0 {
		t.Errorf("January still holds %d rows", n)
	}
	if n := count(t, s, "SELECT * FROM posts_by_user WHERE user_id = ? AND month = '2024-02'", old.UserID); n != 1 {
		t.Errorf("February holds %d rows, want 1", n)
	}
}

// TestRetryIsIdempotent replays a write that arrives late, after a newer update: with the
// first attempt's timestamp it changes nothing.
func TestRetryIsIdempotent(t *testing.T) {
	s, schema, _ := postsKeyspace(t)
	ctx := context.Background()
	m := newPostModel(t, s, schema, Options{})
	p := newPost("go")
	first, err := m.Insert(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.Content = str("newer")
	if _, err := m.Update(ctx, p, &q, At(first.Timestamp+10)); err != nil {
		t.Fatal(err)
	}
	if err := m.Exec(ctx, first); err != nil { // the retry of the first insert
		t.Fatal(err)
	}
	if _, err := m.Insert(ctx, p, At(first.Timestamp)); err != nil { // or a caller's retry
		t.Fatal(err)
	}
	var content string
	var wt int64
	if err := s.Query("SELECT content, WRITETIME(content) FROM posts_by_id WHERE post_id = ?", p.ID).Scan(&content, &wt); err != nil {
		t.Fatal(err)
	}
	if content != "newer" || wt != first.Timestamp+10 {
		t.Errorf("after the retry: %q written at %d, want %q at %d", content, wt, "newer", first.Timestamp+10)
	}
}

func TestTTL(t *testing.T) {
	s, schema, _ := postsKeyspace(t)
	m := newPostModel(t, s, schema, Options{TTL: time.Hour})
	p := newPost("go")
	if _, err := m.Insert(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	month, _ := monthOf(p.ID)
	var ttl int
	if err := s.Query("SELECT TTL(content) FROM posts_by_hashtag WHERE hashtag = 'go' AND month = ? AND post_id = ?", month, p.ID).Scan(&ttl); err != nil {
		t.Fatal(err)
	}
	if ttl <= 3500 || ttl > 3600 {
		t.Errorf("TTL %d, want about 3600", ttl)
	}
}

// TestConcurrentPartialFailure maps a table the schema knows but the cluster lacks: its
// statements fail, the others land, and the error says so.
func TestConcurrentPartialFailure(t *testing.T) {
	s, _, ks := postsKeyspace(t)
	schema := schemaOf(ks, postsCQL, "CREATE TABLE posts_archive (post_id timeuuid PRIMARY KEY, content text)")
	maps := append(postMappings(), Map("posts_archive", func(p *post, out *Rows) error {
		out.Add().Set("post_id", p.ID).Set("content", p.Content)
		return nil
	}))
	m, err := New(s, schema, Options{Mode: Concurrent, Concurrency: 2}, maps...)
	if err != nil {
		t.Fatal(err)
	}
	p := newPost("a", "b", "c")
	_, err = m.Insert(context.Background(), p)
	var partial *PartialWriteError
	if !errors.As(err, &partial) || len(partial.Failed) != 1 || partial.Succeeded != 5 || partial.Failed[0].Table != ks+".posts_archive" {
		t.Fatalf("want a partial write with posts_archive failed and 5 statements applied, got %v", err)
	}
	if id, user, tags := copies(t, s, p, p.Hashtags); id != 1 || user != 1 || tags != 3 {
		t.Errorf("concurrent mode wrote %d, %d, %d rows", id, user, tags)
	}
}

// TestBatchSizeMatchesCassandra checks the byte model against the node itself: a batch the
// model measures at exactly batch_size_fail_threshold (50 KiB) is accepted, one byte more
// is refused by Cassandra with "Batch too large".
func TestBatchSizeMatchesCassandra(t *testing.T) {
	s, schema, _ := postsKeyspace(t)
	ctx := context.Background()
	m := newPostModel(t, s, schema, Options{FailBytes: -1}) // let the node judge
	model := newPostModel(t, nil, schema, Options{FailBytes: -1})
	for _, extra := range []int{0, 1} {
		p := exactSize(t, model, DefaultFailBytes+extra)
		err := func() error { _, err := m.Insert(ctx, p); return err }()
		if extra == 0 && err != nil {
			t.Errorf("a batch measured at exactly %d bytes was refused: %v", DefaultFailBytes, err)
		}
		if extra == 1 && (err == nil || !strings.Contains(err.Error(), "Batch too large")) {
			t.Errorf("a batch measured at %d bytes should be refused by Cassandra, got %v", DefaultFailBytes+1, err)
		}
	}
}

func mustSize(t *testing.T, m *Model[post], p *post) int {
	t.Helper()
	plan, err := m.PlanInsert(p)
	if err != nil {
		t.Fatal(err)
	}
	return plan.Size.Bytes
}

// exactSize builds a post whose insert the model measures at exactly want bytes. The
// content is stored in 2 + 9 = 11 rows, so a character of it is 11 bytes; the first
// hashtag is stored in two sets (posts_by_id, posts_by_user) and as a partition key, which
// is not counted, so a character of it is 2 bytes. 11a + 2b reaches any size.
func exactSize(t *testing.T, m *Model[post], want int) *post {
	t.Helper()
	const tag = "first-hashtag"
	pad := 10 // the first hashtag is tag + pad y's
	p := newPost(tag+strings.Repeat("y", pad), "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9")
	for i := 0; i < 30; i++ {
		d := want - mustSize(t, m, p)
		switch {
		case d == 0:
			return p
		case d%2 == 0 && d >= -2*pad && d < 40:
			pad += d / 2
			p.Hashtags[0] = tag + strings.Repeat("y", pad)
		case d%2 != 0 && d > -30 && d < 30:
			p.Content = str(*p.Content + "x") // odd: 11 bytes more makes it even
		default:
			p.Content = str(strings.Repeat("x", len(*p.Content)+d/11))
		}
	}
	t.Fatalf("could not build a post of exactly %d bytes (got %d)", want, mustSize(t, m, p))
	return nil
}

// readTombstones runs a query with tracing and returns the live rows and tombstone cells
// Cassandra reports reading ("Read N live rows and M tombstone cells").
func readTombstones(t *testing.T, s *gocql.Session, q string, args ...any) (live, tombstones int) {
	t.Helper()
	var tr traceID
	if err := s.Query(q, args...).Trace(&tr).Exec(); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`Read (\d+) live rows and (\d+) tombstone cells`)
	// Trace events are written asynchronously: poll until the read's summary is there.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		iter := s.Query("SELECT activity FROM system_traces.events WHERE session_id = ?", gocql.UUID(tr)).Iter()
		var activity string
		for iter.Scan(&activity) {
			if m := re.FindStringSubmatch(activity); m != nil {
				live, _ = strconv.Atoi(m[1])
				tombstones, _ = strconv.Atoi(m[2])
				_ = iter.Close()
				return live, tombstones
			}
		}
		_ = iter.Close()
	}
	t.Fatalf("no read summary in the trace of %s", q)
	return 0, 0
}

type traceID [16]byte

func (tr *traceID) Trace(id []byte) { copy(tr[:], id) }

// TestWritesNoTombstones proves on the node that columns left nil create no tombstone,
// where the same write with a null does: read with tracing, and, on the local node, in
// the flushed sstable as sstablepartitions counts it.
func TestWritesNoTombstones(t *testing.T) {
	s, schema, ks := postsKeyspace(t)
	ctx := context.Background()
	m := newPostModel(t, s, schema, Options{})
	user := gocql.TimeUUID()
	for i := 0; i < 5; i++ {
		p := newPost("go")
		p.UserID, p.Content, p.Created = user, nil, time.Time{}
		if i%2 == 0 {
			p.Hashtags = nil
		}
		if _, err := m.Insert(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	month, _ := monthOf(gocql.TimeUUID())
	if live, tombs := readTombstones(t, s, "SELECT * FROM posts_by_user WHERE user_id = ? AND month = ?", user, month); live != 5 || tombs != 0 {
		t.Errorf("denorm writes: read %d live rows and %d tombstone cells, want 5 and 0", live, tombs)
	}
	// The control: the same row written with a null content has a tombstone, so the
	// check above can fail.
	other := gocql.TimeUUID()
	if err := s.Query("INSERT INTO posts_by_user (user_id, month, post_id, content) VALUES (?, ?, ?, ?)", other, month, gocql.TimeUUID(), nil).Exec(); err != nil {
		t.Fatal(err)
	}
	if _, tombs := readTombstones(t, s, "SELECT * FROM posts_by_user WHERE user_id = ? AND month = ?", other, month); tombs != 1 {
		t.Errorf("a null should read as 1 tombstone cell, got %d", tombs)
	}

	// On the node's files, flush and count what sstablepartitions finds on disk: a subtest,
	// so that on a remote cluster it alone is skipped, saying why.
	t.Run("on disk", func(t *testing.T) {
		node := cassandratest.LocalNode(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if out, err := node.Run(ctx, "nodetool", "flush", ks, "posts_by_user"); err != nil {
			t.Fatalf("flush: %v\n%s", err, out)
		}
		dir := node.TableDir(t, s, ks, "posts_by_user")
		out, err := node.Run(ctx, "sstablepartitions", dir, "-m", "-w", "0", "-k", keyString(user, month))
		if err != nil {
			t.Fatalf("sstablepartitions: %v\n%s", err, out)
		}
		t.Logf("sstablepartitions:\n%s", out)
		if n := csvField(t, string(out), "tombstoneCount"); n != "0" {
			t.Errorf("sstablepartitions counts %s tombstones in the denorm-written partition, want 0", n)
		}
	})
}

// keyString is a composite partition key as sstablepartitions -k takes it: components joined by ':'.
func keyString(parts ...any) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ":")
}

func csvField(t *testing.T, out, field string) string {
	t.Helper()
	var header []string
	for _, line := range strings.Split(out, "\n") {
		cells := strings.Split(strings.TrimSpace(line), ",")
		if header == nil {
			for i, c := range cells {
				if c == field {
					header = cells
					_ = i
				}
			}
			continue
		}
		if len(cells) == len(header) {
			for i, h := range header {
				if h == field {
					return cells[i]
				}
			}
		}
	}
	t.Fatalf("no %s row in sstablepartitions output:\n%s", field, out)
	return ""
}
