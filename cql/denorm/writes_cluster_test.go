package denorm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql"
)

// TestListReplayAppends is the fact behind Model.Idempotent: the same INSERT of a whole
// non-frozen list, sent twice with the same timestamp, stores every element twice, while a
// set, a map and a frozen list come out as written once.
func TestListReplayAppends(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks, "CREATE TABLE l (k int PRIMARY KEY, xs list<text>, fl frozen<list<text>>, st set<text>, m map<text, int>)")
	ins := "INSERT INTO l (k, xs, fl, st, m) VALUES (1, ['a', 'b'], ['a', 'b'], {'a'}, {'a': 1}) USING TIMESTAMP 1000"
	for range 2 {
		if err := s.Query(ins).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var xs, fl, st []string
	var mp map[string]int
	if err := s.Query("SELECT xs, fl, st, m FROM l WHERE k = 1").Scan(&xs, &fl, &st, &mp); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(xs, []string{"a", "b", "a", "b"}) {
		t.Errorf("non-frozen list after a replay: %v; if Cassandra stopped duplicating, lists are idempotent now and Model.Idempotent can say so", xs)
	}
	if !slices.Equal(fl, []string{"a", "b"}) || !slices.Equal(st, []string{"a"}) || len(mp) != 1 {
		t.Errorf("frozen list %v, set %v, map %v after a replay: want each as written once", fl, st, mp)
	}

	// The model says so: a plan that sets the list is not idempotent; one that leaves it
	// unset, and every delete, are.
	schema := schemaOf(ks, "CREATE TABLE l (k int PRIMARY KEY, xs list<text>, fl frozen<list<text>>, st set<text>, m map<text, int>)")
	type ent struct {
		K  int32
		Xs []string
	}
	m, err := New(nil, schema, Options{AllowCollectionTombstones: true}, Map("l", func(e *ent, out *Rows) error {
		out.Add().Set("k", e.K).Set("xs", e.Xs)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		e    ent
		del  bool
		want bool
	}{
		{ent{1, []string{"a"}}, false, false},
		{ent{1, nil}, false, true},
		{ent{1, []string{"a"}}, true, true},
	} {
		plan, err := m.PlanInsert(&tc.e)
		if tc.del {
			plan, err = m.PlanDelete(&tc.e)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Idempotent(plan); got != tc.want {
			t.Errorf("%+v delete=%v: Idempotent = %v, want %v", tc.e, tc.del, got, tc.want)
		}
	}
	posts := newPostModel(t, nil, postsSchema(ks), Options{})
	plan, err := posts.PlanInsert(newPost("a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if !posts.Idempotent(plan) {
		t.Error("a post's plan (text, uuid, frozen set) is not idempotent")
	}
}

// splitKeyspaces puts posts_by_id and posts_by_user in a keyspace the dev node can serve at
// LOCAL_QUORUM (replication factor 1) and posts_by_hashtag in one it cannot (factor 2 on
// one node: the node answers Unavailable). It returns a session for the first, the second
// keyspace's name and the schema of both.
func splitKeyspaces(t *testing.T) (*gocql.Session, string, *cql.Schema) {
	t.Helper()
	s, ks := cassandratest.Keyspace(t)
	admin := cassandratest.Session(t)
	other := cassandratest.KeyspaceName(t.Name() + "_tags")
	cassandratest.DDL(t, admin, "", "CREATE KEYSPACE "+other+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}")
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + other).Exec() })
	stmts, err := cql.SplitStatements("posts.cql", []byte(postsCQL))
	if err != nil {
		t.Fatal(err)
	}
	var mine, theirs []string
	for _, st := range stmts {
		if strings.Contains(st.Text, "posts_by_hashtag") {
			theirs = append(theirs, st.Text)
			st.Text = strings.Replace(st.Text, "posts_by_hashtag", other+".posts_by_hashtag", 1)
		} else {
			mine = append(mine, st.Text)
		}
		cassandratest.DDL(t, s, ks, st.Text)
	}
	schema := cql.NewSchema()
	src := fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nUSE %s;\n%s;\n"+
		"CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2};\nUSE %s;\n%s;\n",
		ks, ks, strings.Join(mine, ";\n"), other, other, strings.Join(theirs, ";\n"))
	if err := schema.ApplyFile("schema.cql", []byte(src)); err != nil {
		t.Fatal(err)
	}
	return s, other, schema
}

// TestPartialWriteRetryAt makes some statements of a Concurrent write really fail: the
// node refuses the hashtag rows (Unavailable: their keyspace wants two replicas, the node
// is one). The error names exactly those rows, by table, key and op; once the keyspace is
// fixed, the same write with At(the error's timestamp) completes it, every cell at that
// one timestamp.
func TestPartialWriteRetryAt(t *testing.T) {
	s, other, schema := splitKeyspaces(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m, err := New(s, schema, Options{Mode: Concurrent, Concurrency: 3, Consistency: gocql.LocalQuorum}, postMappings()...)
	if err != nil {
		t.Fatal(err)
	}
	p := newPost("b", "a")
	month, err := monthOf(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Insert(ctx, p)
	var pe *PartialWriteError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *PartialWriteError, got %v", err)
	}
	if pe.Succeeded != 2 || !pe.Idempotent || pe.Timestamp == 0 {
		t.Errorf("succeeded %d, idempotent %v, timestamp %d: want 2, true, the plan's", pe.Succeeded, pe.Idempotent, pe.Timestamp)
	}
	var got []string
	for _, f := range pe.Failed {
		got = append(got, fmt.Sprintf("%s %s (%s)", f.Op, f.Table, f.Key))
		var unavailable *gocql.RequestErrUnavailable
		if !errors.As(f.Err, &unavailable) || !Transient(f.Err) {
			t.Errorf("%s: want the node's Unavailable, got %v", f.Table, f.Err)
		}
	}
	slices.Sort(got)
	var want []string
	for _, tag := range []string{"a", "b"} {
		want = append(want, fmt.Sprintf("insert %s.posts_by_hashtag (hashtag='%s', month='%s', post_id=%s)", other, tag, month, p.ID))
	}
	if !slices.Equal(got, want) {
		t.Errorf("failed writes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !errors.As(err, new(*gocql.RequestErrUnavailable)) {
		t.Error("errors.As does not reach the driver's error through the PartialWriteError")
	}
	for _, s := range []string{"2 of 4 statements failed", fmt.Sprintf("denorm.At(%d)", pe.Timestamp), "hashtag='a'"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q does not say %q", err, s)
		}
	}
	if n := count(t, s, "SELECT * FROM "+other+".posts_by_hashtag WHERE hashtag = 'a' AND month = ? AND post_id = ? ", month, p.ID); n != 0 {
		t.Fatalf("a refused row is there")
	}

	// The cause goes away; the retry with the same timestamp completes the write.
	if err := s.Query("ALTER KEYSPACE " + other + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		t.Fatal(err)
	}
	plan, err := m.Insert(ctx, p, At(pe.Timestamp))
	if err != nil {
		t.Fatalf("retry with At(%d): %v", pe.Timestamp, err)
	}
	if plan.Timestamp != pe.Timestamp {
		t.Errorf("retry planned at %d, want %d", plan.Timestamp, pe.Timestamp)
	}
	for _, q := range []string{
		"SELECT WRITETIME(content) FROM posts_by_id WHERE post_id = ?",
		"SELECT WRITETIME(content) FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?",
		"SELECT WRITETIME(content) FROM " + other + ".posts_by_hashtag WHERE hashtag = 'a' AND month = ? AND post_id = ?",
		"SELECT WRITETIME(content) FROM " + other + ".posts_by_hashtag WHERE hashtag = 'b' AND month = ? AND post_id = ?",
	} {
		args := []any{p.ID}
		switch {
		case strings.Contains(q, "posts_by_user"):
			args = []any{p.UserID, month, p.ID}
		case strings.Contains(q, "hashtag"):
			args = []any{month, p.ID}
		}
		var wt int64
		if err := s.Query(q, args...).Scan(&wt); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if wt != pe.Timestamp {
			t.Errorf("%s: written at %d, want the first attempt's %d", q, wt, pe.Timestamp)
		}
	}
}

// TestTransientOnCassandra classifies what the node really answers: a statement it
// refuses is never retried, one it cannot serve now is.
func TestTransientOnCassandra(t *testing.T) {
	s, other, _ := splitKeyspaces(t)
	for _, tc := range []struct {
		name, stmt string
		want       bool
	}{
		{"syntax error", "SELEKT * FROM posts_by_id", false},
		{"unknown table", "SELECT * FROM no_such_table", false},
		{"invalid request", "SELECT * FROM posts_by_user WHERE post_id = 8c6f3a0e-5b1c-4f7e-9a51-0f3f0e2f6a10", false},
		{"unavailable", "INSERT INTO " + other + ".posts_by_hashtag (hashtag, month, post_id) VALUES ('x', '2026-01', now())", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Query(tc.stmt).Consistency(gocql.Quorum).Exec()
			if err == nil {
				t.Fatal("the node accepted it")
			}
			if got := Transient(err); got != tc.want {
				t.Errorf("Transient(%v) = %v, want %v", err, got, tc.want)
			}
		})
	}
}

// TestConfiguredSessionWrites connects with ConfigureCluster and writes and reads a post
// through it, Logged and Concurrent, so the configuration is one a node accepts.
func TestConfiguredSessionWrites(t *testing.T) {
	_, schema, ks := postsKeyspace(t)
	s := configuredSession(t, cassandratest.Config(t), ks)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, mode := range []Mode{Logged, Concurrent} {
		m := newPostModel(t, s, schema, Options{Mode: mode, SpeculativeReadAfter: 50 * time.Millisecond})
		p := newPost("go")
		if _, err := m.Insert(ctx, p); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		back, err := m.Load(ctx, p.ID)
		if err != nil || *back.Content != *p.Content {
			t.Fatalf("%s: load: %v %v", mode, back, err)
		}
	}
}

// configuredSession opens a session on keyspace ks configured by ConfigureCluster with its
// defaults, as a service embedding denorm would; it is closed at the end of the test.
func configuredSession(t *testing.T, cfg connect.Config, ks string) *gocql.Session {
	t.Helper()
	cfg.Keyspace = ks
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConfigureCluster(cc, ClusterOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(&connect.UnreachableError{Hosts: cfg.Hosts, Source: cfg.Source, Err: err})
	}
	t.Cleanup(s.Close)
	return s
}
