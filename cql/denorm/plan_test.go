package denorm

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"

	goldenfile "github.com/cqlsize/cqlsize/internal/golden"
)

// render prints a plan the way a reviewer reads it: every statement with its arguments,
// then the measured batch.
func render(p *Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mode %s, timestamp %d, ttl %s\n", p.Mode, p.Timestamp, p.TTL)
	for _, s := range p.Statements {
		fmt.Fprintf(&b, "%s %s\n  %s\n  args:", s.Op, s.Table, s.CQL)
		for _, a := range s.Args {
			switch x := a.(type) {
			case raw:
				fmt.Fprintf(&b, " %x", []byte(x))
			default:
				if a == gocql.UnsetValue {
					b.WriteString(" unset")
				} else {
					fmt.Fprintf(&b, " %v", a)
				}
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "batch: %d bytes over %d mutations\n", p.Size.Bytes, p.Size.Mutations)
	for _, t := range p.Size.Tables {
		fmt.Fprintf(&b, "  %s: %d rows, %d partitions, %d bytes\n", t.Table, t.Rows, t.Partitions, t.Bytes)
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Compare(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

const ts = 1705312800000000 // 2024-01-15T10:00:00Z in microseconds

func TestPlansGolden(t *testing.T) {
	m := newPostModel(t, nil, postsSchema("app"), Options{})
	p := fixedPost("go", "db", "go")
	moved := fixedPost("db", "cassandra")
	moved.ID = gocql.UUID{0x9c, 0, 0, 0, 0, 0, 0x11, 0xef, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80} // a 2024-10 timeuuid
	moved.Content = nil
	tests := []struct {
		name string
		plan func() (*Plan, error)
	}{
		{"insert", func() (*Plan, error) { return m.PlanInsert(p, At(ts)) }},
		{"insert_ttl", func() (*Plan, error) { return m.PlanInsert(p, At(ts), WithTTL(90*time.Minute)) }},
		{"delete", func() (*Plan, error) { return m.PlanDelete(p, At(ts)) }},
		{"update_tags", func() (*Plan, error) { return m.PlanUpdate(p, fixedPost("db", "cassandra"), At(ts)) }},
		{"update_move", func() (*Plan, error) { return m.PlanUpdate(p, moved, At(ts)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := tt.plan()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "plan_"+tt.name, render(plan))
		})
	}
}

func TestPlanInsertRows(t *testing.T) {
	m := newPostModel(t, nil, postsSchema("app"), Options{})
	for _, n := range []int{0, 1, 5, 40} {
		p := fixedPost()
		for i := 0; i < n; i++ {
			p.Hashtags = append(p.Hashtags, fmt.Sprintf("tag%d", i))
		}
		plan, err := m.PlanInsert(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.Rows("app.posts_by_hashtag"); got != n {
			t.Errorf("%d hashtags: %d rows in posts_by_hashtag", n, got)
		}
		if got := len(plan.Statements); got != n+2 {
			t.Errorf("%d hashtags: %d statements, want %d", n, got, n+2)
		}
		for _, s := range plan.Statements {
			if s.Args[len(s.Args)-1] != plan.Timestamp {
				t.Errorf("%s: timestamp %v, want the plan's %d", s.Table, s.Args[len(s.Args)-1], plan.Timestamp)
			}
		}
	}
}

// TestBatchSize checks the byte model against sums written out by hand from Cassandra
// 5.0's dataSize methods; TestBatchSizeMatchesCassandra checks it against the node.
func TestBatchSize(t *testing.T) {
	const (
		pu   = 29        // deletion info 8 + empty static row 21
		row  = 8 + 13    // liveness + row deletion
		cell = 20        // timestamp + ttl + local deletion time
		set2 = 4 + 6 + 6 // frozen {"db","go"}: count, then (length, bytes) per element
	)
	byID := pu + row + (cell + 16) + (cell + 5) + (cell + set2) + (cell + 8) // user_id, content, hashtags, created_at
	byUser := pu + row + 16 + (cell + 5) + (cell + set2)                     // clustering post_id; content, hashtags
	byTag := 2 * (pu + row + 16 + (cell + 16) + (cell + 5))                  // two partitions: user_id, content
	m := newPostModel(t, nil, postsSchema("app"), Options{})
	plan, err := m.PlanInsert(fixedPost("go", "db"))
	if err != nil {
		t.Fatal(err)
	}
	want := []int{byID, byUser, byTag}
	for i, ts := range plan.Size.Tables {
		if ts.Bytes != want[i] {
			t.Errorf("%s: %d bytes, want %d", ts.Table, ts.Bytes, want[i])
		}
	}
	if plan.Size.Bytes != byID+byUser+byTag || plan.Size.Mutations != 4 {
		t.Errorf("batch %d bytes over %d mutations, want %d over 4", plan.Size.Bytes, plan.Size.Mutations, byID+byUser+byTag)
	}

	// A TTL makes every row's liveness info expiring: 12 bytes more per inserted row.
	withTTL, err := m.PlanInsert(fixedPost("go", "db"), WithTTL(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if d := withTTL.Size.Bytes - plan.Size.Bytes; d != 4*12 {
		t.Errorf("TTL adds %d bytes to 4 rows, want 48", d)
	}

	// Deleting: rows with clustering are row deletions, posts_by_id (no clustering) a partition deletion.
	del, err := m.PlanDelete(fixedPost("go", "db"))
	if err != nil {
		t.Fatal(err)
	}
	if want := pu + (pu + row + 16) + 2*(pu+row+16); del.Size.Bytes != want {
		t.Errorf("delete: %d bytes, want %d", del.Size.Bytes, want)
	}
}

func TestBatchSizeCollections(t *testing.T) {
	s := schemaOf("app", "CREATE TABLE c (k int, c int, tags set<text>, l list<text>, m map<text, text>, s text static, PRIMARY KEY (k, c))")
	type ent struct {
		k, c int
		tags []string
		l    []string
		m    map[string]string
		s    string
	}
	mp := Map("c", func(e *ent, out *Rows) error {
		out.Add().Set("k", e.k).Set("c", e.c).Set("tags", e.tags).Set("l", e.l).Set("m", e.m).Set("s", e.s)
		return nil
	})
	if _, err := New(nil, s, Options{}, mp); err == nil || !strings.Contains(err.Error(), "frozen<set<text>>") {
		t.Fatalf("a non-frozen set must be refused, saying to freeze it; got %v", err)
	}
	m, err := New(nil, s, Options{AllowCollectionTombstones: true}, mp)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := m.PlanInsert(&ent{k: 1, c: 2, tags: []string{"a", "bb"}, l: []string{"xyz"}, m: map[string]string{"k": "vv"}, s: "st"})
	if err != nil {
		t.Fatal(err)
	}
	want := 29 + (20 + 2) /* static s */ + 21 + 4 /* clustering c */ +
		12 + (20 + 1) + (20 + 2) /* set: path = element */ +
		12 + (20 + 16 + 3) /* list: path = timeuuid */ +
		12 + (20 + 1 + 2) /* map: path = key */
	if plan.Size.Bytes != want {
		t.Errorf("collections: %d bytes, want %d", plan.Size.Bytes, want)
	}
}

func TestBadInputWritesNothing(t *testing.T) {
	m := newPostModel(t, nil, postsSchema("app"), Options{})
	noUser := fixedPost("go")
	noUser.UserID = gocql.UUID{}
	notTime := fixedPost("go")
	notTime.ID = gocql.UUID{1, 2, 3, 4, 5, 6, 0x40, 8, 9, 10, 11, 12, 13, 14, 15, 16} // version 4
	emptyTag := fixedPost("go", "")
	var missing *MissingKeyError
	for _, tt := range []struct {
		name string
		p    *post
		want any
	}{
		{"zero user id", noUser, &missing},
		{"empty hashtag", emptyTag, &missing},
	} {
		_, err := m.PlanInsert(tt.p)
		if !errors.As(err, tt.want) {
			t.Errorf("%s: got %v, want a %T", tt.name, err, tt.want)
		}
	}
	if _, err := m.PlanInsert(noUser); err == nil || !strings.Contains(err.Error(), "posts_by_id row 0: key column user_id") {
		// posts_by_id does not have user_id in its key: the error comes from posts_by_user.
		if !strings.Contains(err.Error(), "posts_by_user row 0: key column user_id") {
			t.Errorf("error should name the table, row and column: %v", err)
		}
	}
	if _, err := m.PlanInsert(notTime); err == nil || !strings.Contains(err.Error(), "map app.posts_by_user") {
		t.Errorf("a mapping's own error must name the table: %v", err)
	}
	if _, err := m.PlanInsert(nil); err == nil {
		t.Error("nil entity accepted")
	}

	typo, err := New(nil, postsSchema("app"), Options{}, Map("posts_by_id", func(p *post, out *Rows) error {
		out.Add().Set("post_id", p.ID).Set("contnet", "x")
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	var unknown *UnknownColumnError
	if _, err := typo.PlanInsert(fixedPost()); !errors.As(err, &unknown) || unknown.Column != "contnet" {
		t.Errorf("unknown column: %v", err)
	}

	// A bucket scheme of zero width (never made with bucket.New) gives the zero bucket,
	// whose label is empty: the month key is missing and nothing is written.
	var zero bucket.Scheme
	noWidth, err := New(nil, postsSchema("app"), Options{}, Map("posts_by_user", func(p *post, out *Rows) error {
		at, _ := bucket.UUIDTime(p.ID)
		out.Add().Set("user_id", p.UserID).Set("month", zero.For(at).String()).Set("post_id", p.ID)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noWidth.PlanInsert(fixedPost()); !errors.As(err, &missing) || missing.Column != "month" {
		t.Errorf("a zero-width bucket: %v, want a *MissingKeyError for month", err)
	}

	wrongType, err := New(nil, postsSchema("app"), Options{}, Map("posts_by_id", func(p *post, out *Rows) error {
		out.Add().Set("post_id", p.ID).Set("created_at", "yesterday")
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	var bad *ValueError
	if _, err := wrongType.PlanInsert(fixedPost()); !errors.As(err, &bad) || bad.Column != "created_at" {
		t.Errorf("a value of the wrong type must be a *ValueError naming the column: %v", err)
	}
}

func TestNewRefuses(t *testing.T) {
	s := schemaOf("app", postsCQL, "CREATE TABLE counts (k int PRIMARY KEY, n counter)")
	noop := func(p *post, out *Rows) error { return nil }
	for _, tt := range []struct {
		name string
		opts Options
		maps []Mapping[post]
		want string
	}{
		{"unknown table", Options{}, []Mapping[post]{Map("nope", noop)}, "nope: not found"},
		{"counter", Options{}, []Mapping[post]{Map("counts", noop)}, "is a counter"},
		{"twice", Options{}, []Mapping[post]{Map("posts_by_id", noop), Map("app.posts_by_id", noop)}, "mapped twice"},
		{"no tables", Options{}, nil, "no table mapped"},
		{"nil func", Options{}, []Mapping[post]{Map[post]("posts_by_id", nil)}, "no row function"},
		{"negative TTL", Options{TTL: -time.Second}, []Mapping[post]{Map("posts_by_id", noop)}, "TTL -1s"},
		{"warn over fail", Options{WarnBytes: 100, FailBytes: 10}, []Mapping[post]{Map("posts_by_id", noop)}, "over FailBytes"},
		{"bad mode", Options{Mode: 7}, []Mapping[post]{Map("posts_by_id", noop)}, "mode 7"},
	} {
		_, err := New(nil, s, tt.opts, tt.maps...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestBatchThresholds(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	m := newPostModel(t, nil, postsSchema("app"), Options{Logger: logger})
	p := fixedPost()
	for i := 0; len(p.Hashtags) < 60; i++ {
		p.Hashtags = append(p.Hashtags, fmt.Sprintf("hashtag-number-%03d", i))
	}

	// A few hashtags: under 5 KiB, nothing logged.
	small := fixedPost("a", "b")
	if _, err := m.PlanInsert(small); err != nil || logs.Len() > 0 {
		t.Fatalf("small batch: err %v, log %q", err, logs.String())
	}
	// 30 hashtags: over 5 KiB, under 50 KiB: logged, not refused.
	mid := fixedPost(p.Hashtags[:30]...)
	plan, err := m.PlanInsert(mid)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Size.Bytes <= DefaultWarnBytes || !strings.Contains(logs.String(), "batch_size_warn_threshold") {
		t.Errorf("%d bytes: want a warning logged, got %q", plan.Size.Bytes, logs.String())
	}
	// With a long content every hashtag row carries, 60 hashtags go over 50 KiB.
	p.Content = str(strings.Repeat("x", 1000))
	_, err = m.PlanInsert(p)
	var big *BatchTooLargeError
	if !errors.As(err, &big) {
		t.Fatalf("want *BatchTooLargeError, got %v", err)
	}
	for _, want := range []string{"posts_by_hashtag is 60 of the 62 rows", "column content weighs", "Mode: Concurrent"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("advice should say %q: %v", want, err)
		}
	}
	// The same write in Concurrent mode has no batch to refuse.
	cm := newPostModel(t, nil, postsSchema("app"), Options{Mode: Concurrent})
	if _, err := cm.PlanInsert(p); err != nil {
		t.Errorf("concurrent mode: %v", err)
	}
	// Disabled checks.
	off := newPostModel(t, nil, postsSchema("app"), Options{FailBytes: -1})
	if _, err := off.PlanInsert(p); err != nil {
		t.Errorf("FailBytes -1: %v", err)
	}
}

func TestSingleMutationIsNotChecked(t *testing.T) {
	// Cassandra checks only batches over more than one mutation: one partition of one
	// table, however large, is never refused for its batch size.
	s := schemaOf("app", "CREATE TABLE docs (id int PRIMARY KEY, body text)")
	type doc struct {
		id   int
		body string
	}
	m, err := New(nil, s, Options{}, Map("docs", func(d *doc, out *Rows) error {
		out.Add().Set("id", d.id).Set("body", d.body)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := m.PlanInsert(&doc{id: 1, body: strings.Repeat("x", 100_000)})
	if err != nil || plan.Size.Mutations != 1 {
		t.Errorf("one mutation of %d bytes: %v", plan.Size.Bytes, err)
	}
}

func TestUnsetNeverNull(t *testing.T) {
	var nilPtr *string
	var nilSlice []string
	var nilMap map[string]int
	for _, v := range []any{nil, nilPtr, nilSlice, nilMap, time.Time{}, (*time.Time)(nil), gocql.UnsetValue} {
		if !isUnset(v) {
			t.Errorf("%#v should be sent unset", v)
		}
	}
	for _, v := range []any{"", 0, false, []string{}, str(""), time.Unix(0, 0), []byte{}} {
		if isUnset(v) {
			t.Errorf("%#v is a value, not unset", v)
		}
	}
	m := newPostModel(t, nil, postsSchema("app"), Options{})
	p := fixedPost()
	p.Content, p.Hashtags, p.Created = nil, nil, time.Time{}
	plan, err := m.PlanInsert(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plan.Statements {
		for i, a := range s.Args {
			if a == nil {
				t.Errorf("%s arg %d is nil: it would be sent as a null, a tombstone", s.Table, i)
			}
		}
	}
}

// TestBatchSizeAgreesWithSizing measures a concrete post here and estimates the same post
// with the sizing package's workload model (averages equal to the post's sizes): two
// implementations of BatchStatement.verifyBatchSize must agree to the byte.
func TestBatchSizeAgreesWithSizing(t *testing.T) {
	schema := postsSchema("app")
	m := newPostModel(t, nil, schema, Options{})
	for _, tags := range [][]string{{"go", "db"}, {"go", "db", "cassandra"}, {"xy"}} {
		p := fixedPost(tags...)
		plan, err := m.PlanInsert(p)
		if err != nil {
			t.Fatal(err)
		}
		setBytes := 0
		for _, tag := range tags {
			setBytes += len(tag)
		}
		withSet := &workload.TableWorkload{ // posts_by_id, posts_by_user
			Avg:     map[string]float64{"content": float64(len(*p.Content))},
			Items:   map[string]workload.Items{"hashtags": {Count: float64(len(tags)), Size: float64(setBytes) / float64(len(tags))}},
			NullsAs: workload.NullUnset,
		}
		noSet := &workload.TableWorkload{Avg: map[string]float64{"content": float64(len(*p.Content))}, NullsAs: workload.NullUnset}
		var writes []sizing.BatchWrite
		for _, name := range []string{"posts_by_id", "posts_by_user"} {
			tbl, _ := schema.FindTable(name)
			writes = append(writes, sizing.BatchWrite{Table: tbl, Workload: withSet, Rows: 1, Partition: name})
		}
		byTag, _ := schema.FindTable("posts_by_hashtag")
		for _, tag := range tags {
			writes = append(writes, sizing.BatchWrite{Table: byTag, Workload: noSet, Rows: 1, Partition: "tag " + tag})
		}
		est, err := sizing.EstimateBatch(writes, sizing.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		if int(est.Bytes+0.5) != plan.Size.Bytes || est.Mutations != plan.Size.Mutations {
			t.Errorf("%v: denorm measures %d bytes over %d mutations, sizing estimates %.1f over %d", tags, plan.Size.Bytes, plan.Size.Mutations, est.Bytes, est.Mutations)
		}
	}
}
