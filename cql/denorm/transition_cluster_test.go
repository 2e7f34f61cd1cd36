package denorm

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// userReader reads a user's post ids, newest first: the old table's reader and the new
// one's have different shapes, so the test wraps both in one function type for Choose.
type userReader func(ctx context.Context, user gocql.UUID) ([]gocql.UUID, error)

// TestTransitionOnCassandra moves user_posts_v1 to posts_by_user on the node, one stage
// at a time, each stage a new Model built from configuration (the stage's name) as a
// redeployed service would. What reached each table, and with which write time, is read
// back with plain queries, not through the Model.
func TestTransitionOnCassandra(t *testing.T) {
	s, _, ks := postsKeyspace(t)
	cassandratest.DDL(t, s, ks, userPostsV1CQL)
	schema := schemaOf(ks, postsCQL, userPostsV1CQL)
	ctx := context.Background()
	model := func(stage string) (*Model[post], Transition) {
		st, err := ParseStage(stage)
		if err != nil {
			t.Fatal(err)
		}
		m := transitionModel(t, s, schema, Transition{Old: "user_posts_v1", New: "posts_by_user", Stage: st})
		return m, m.Transitions()[0]
	}
	inOld := func(p *post) int {
		return count(t, s, "SELECT * FROM user_posts_v1 WHERE user_id = ? AND post_id = ?", p.UserID, p.ID)
	}
	inNew := func(p *post) int {
		m, _ := monthOf(p.ID)
		return count(t, s, "SELECT * FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?", p.UserID, m, p.ID)
	}
	// writeTimes reads WRITETIME(content) of p's row in the old and the new table.
	writeTimes := func(p *post) (old, new int64) {
		m, _ := monthOf(p.ID)
		if err := s.Query("SELECT WRITETIME(content) FROM user_posts_v1 WHERE user_id = ? AND post_id = ?", p.UserID, p.ID).Scan(&old); err != nil {
			t.Fatalf("user_posts_v1: %v", err)
		}
		if err := s.Query("SELECT WRITETIME(content) FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?", p.UserID, m, p.ID).Scan(&new); err != nil {
			t.Fatalf("posts_by_user: %v", err)
		}
		return
	}
	oldReader := func(ctx context.Context, user gocql.UUID) ([]gocql.UUID, error) {
		iter := s.Query("SELECT post_id FROM user_posts_v1 WHERE user_id = ? LIMIT 100", user).Iter()
		var ids []gocql.UUID
		var id gocql.UUID
		for iter.Scan(&id) {
			ids = append(ids, id)
		}
		return ids, iter.Close()
	}
	timeline := &Timeline{Session: s, Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months, Retention: 365 * 24 * time.Hour}
	newReader := func(ctx context.Context, user gocql.UUID) ([]gocql.UUID, error) {
		p, err := timeline.Page(ctx, PageRequest{Key: []any{user}, Limit: 100})
		if err != nil {
			return nil, err
		}
		return ids(p.Rows), nil
	}
	read := func(tr Transition, user gocql.UUID) []gocql.UUID {
		got, err := Choose[userReader](tr, oldReader, newReader)(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	user := gocql.TimeUUID()
	// Before: the service writes the old table only.
	m, _ := model("old-only")
	legacy := newPost()
	legacy.UserID = user
	if _, err := m.Insert(ctx, legacy); err != nil {
		t.Fatal(err)
	}
	if inOld(legacy) != 1 || inNew(legacy) != 0 {
		t.Fatalf("old-only: %d row in user_posts_v1, %d in posts_by_user; want 1, 0", inOld(legacy), inNew(legacy))
	}

	// Dual writes: every insert and update reaches both tables with one write time.
	m, tr := model("dual-write")
	var dual []*post
	for range 5 {
		p := newPost("go")
		p.UserID = user
		plan, err := m.Insert(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if o, n := writeTimes(p); o != plan.Timestamp || n != plan.Timestamp {
			t.Fatalf("dual write: write times %d (old) and %d (new), want both %d", o, n, plan.Timestamp)
		}
		dual = append(dual, p)
	}
	edited := *dual[0]
	edited.Content = str("edited")
	plan, err := m.Update(ctx, dual[0], &edited)
	if err != nil {
		t.Fatal(err)
	}
	if o, n := writeTimes(dual[0]); o != plan.Timestamp || n != plan.Timestamp {
		t.Fatalf("dual update: write times %d and %d, want both %d", o, n, plan.Timestamp)
	}
	// Readers stay on the old table: they see the post written before dual writes.
	if got := read(tr, user); len(got) != 6 || !slices.Contains(got, legacy.ID) {
		t.Fatalf("dual-write readers read %d posts, want the 6 of user_posts_v1 (legacy included)", len(got))
	}

	// Reads switched by configuration: the same code now reads posts_by_user, which has the
	// dual-written posts and not the legacy one (nothing copied it).
	m, tr = model("read-new")
	got := read(tr, user)
	want := make([]gocql.UUID, 0, len(dual))
	for i := len(dual) - 1; i >= 0; i-- {
		want = append(want, dual[i].ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read-new readers read %v, want the %d dual-written posts of posts_by_user, newest first", got, len(want))
	}
	// Deletes remove the row from both tables, starting from the stored post.
	if _, err := m.DeleteByKey(ctx, []any{dual[1].ID}); err != nil {
		t.Fatal(err)
	}
	if inOld(dual[1])+inNew(dual[1]) != 0 {
		t.Fatalf("read-new delete left %d row in user_posts_v1 and %d in posts_by_user", inOld(dual[1]), inNew(dual[1]))
	}

	// New only: the old table gets nothing more, not even deletes.
	m, _ = model("new-only")
	p := newPost()
	p.UserID = user
	if _, err := m.Insert(ctx, p); err != nil {
		t.Fatal(err)
	}
	if inOld(p) != 0 || inNew(p) != 1 {
		t.Fatalf("new-only insert: %d row in user_posts_v1, %d in posts_by_user; want 0, 1", inOld(p), inNew(p))
	}
	if _, err := m.Delete(ctx, dual[2]); err != nil {
		t.Fatal(err)
	}
	if inOld(dual[2]) != 1 || inNew(dual[2]) != 0 {
		t.Fatalf("new-only delete: %d row in user_posts_v1, %d in posts_by_user; want 1, 0", inOld(dual[2]), inNew(dual[2]))
	}
}
