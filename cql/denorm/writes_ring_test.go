package denorm

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/ringtest"
)

// TestRingPartialWriteRetryAt makes a Concurrent write fail in part because a node is
// down: replication factor 2 on 3 nodes, QUORUM (both replicas), node 3 stopped. Rows whose
// partition has node 3 as a replica are refused, the others land. The error must name
// exactly the refused rows (checked against the cluster: a QUORUM read of each failed row
// is refused too, of each other row finds it), and once the node is back the same write
// with At(the error's timestamp) completes it: every row on both replicas, at that one
// timestamp.
func TestRingPartialWriteRetryAt(t *testing.T) {
	ringtest.Hosts(t)
	ringtest.Lock(t)
	s, ks := ringPosts(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var err error
	m := newPostModel(t, s, postsSchema(ks), Options{Mode: Concurrent, Consistency: gocql.Quorum})

	ringtest.Stop(t, 3)
	// Ten hashtags: twelve partitions, each with node 3 among its two replicas with
	// probability 2/3. A post whose rows all fail (or all land) says nothing about which
	// ones: take the next.
	var p *post
	var plan *Plan
	var pe *PartialWriteError
	for try := 0; pe == nil || pe.Succeeded == 0; try++ {
		if try == 10 {
			t.Fatalf("10 posts in a row were not partly written: %v", err)
		}
		p = newPost("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
		plan, err = m.Insert(ctx, p)
		if !errors.As(err, &pe) {
			t.Fatalf("with node 3 stopped: want a *PartialWriteError, got %v", err)
		}
	}
	if !pe.Idempotent || pe.Timestamp != plan.Timestamp {
		t.Errorf("idempotent %v, timestamp %d: want true, the plan's %d", pe.Idempotent, pe.Timestamp, plan.Timestamp)
	}
	failed := map[int]bool{}
	for _, f := range pe.Failed {
		failed[f.Statement] = true
		st := plan.Statements[f.Statement]
		if f.Table != st.Table || f.Op != OpInsert || f.Key != m.keyOf(&st) || f.Key == "" {
			t.Errorf("failure %d names %s %s (%s), the plan has %s %s (%s)", f.Statement, f.Op, f.Table, f.Key, st.Op, st.Table, m.keyOf(&st))
		}
		var unavailable *gocql.RequestErrUnavailable
		if !errors.As(f.Err, &unavailable) {
			t.Errorf("%s (%s): want the coordinator's Unavailable, got %v", f.Table, f.Key, f.Err)
		}
	}
	if len(failed) != len(pe.Failed) || len(pe.Failed)+pe.Succeeded != len(plan.Statements) {
		t.Fatalf("%d failed (%d distinct) + %d succeeded for %d statements", len(pe.Failed), len(failed), pe.Succeeded, len(plan.Statements))
	}
	t.Logf("with node 3 stopped: %d of %d rows refused: %v", len(pe.Failed), len(plan.Statements), err)
	month, err := monthOf(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	rowQuery := func(i int) (string, []any) {
		st := plan.Statements[i]
		switch st.Table {
		case ks + ".posts_by_id":
			return "SELECT WRITETIME(content) FROM posts_by_id WHERE post_id = ?", []any{p.ID}
		case ks + ".posts_by_user":
			return "SELECT WRITETIME(content) FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?", []any{p.UserID, month, p.ID}
		}
		tag := st.Args[m.table(st.Table).index["hashtag"]]
		return "SELECT WRITETIME(content) FROM posts_by_hashtag WHERE hashtag = ? AND month = ? AND post_id = ?", []any{tag, month, p.ID}
	}
	read := func(i int, c gocql.Consistency) (int64, error) {
		q, args := rowQuery(i)
		var wt int64
		err := s.Query(q, args...).Consistency(c).WithContext(ctx).Idempotent(true).Scan(&wt)
		return wt, err
	}
	for i := range plan.Statements {
		wt, err := read(i, gocql.Quorum)
		var unavailable *gocql.RequestErrUnavailable
		switch {
		case failed[i] && !errors.As(err, &unavailable):
			t.Errorf("statement %d (%s) is reported failed, but a QUORUM read of it does not need node 3: %v", i, m.keyOf(&plan.Statements[i]), err)
		case !failed[i] && (err != nil || wt != plan.Timestamp):
			t.Errorf("statement %d (%s) is reported applied; QUORUM read: writetime %d, %v", i, m.keyOf(&plan.Statements[i]), wt, err)
		}
	}

	ringtest.Start(t, 3)
	if _, err := m.Insert(ctx, p, At(pe.Timestamp)); err != nil {
		t.Fatalf("retry with At(%d) once node 3 is back: %v", pe.Timestamp, err)
	}
	for i := range plan.Statements {
		if wt, err := read(i, gocql.All); err != nil || wt != pe.Timestamp {
			t.Errorf("after the retry, statement %d (%s) at ALL: writetime %d, %v; want %d", i, m.keyOf(&plan.Statements[i]), wt, err, pe.Timestamp)
		}
	}
}

// ringPosts creates the posts tables in a fresh ring keyspace at replication factor rf and
// waits for schema agreement; it returns a session configured as a service's
// (ConfigureCluster) and the keyspace.
func ringPosts(t *testing.T, rf int) (*gocql.Session, string) {
	t.Helper()
	admin, ks := ringtest.Keyspace(t, rf)
	stmts, err := cql.SplitStatements("posts.cql", []byte(postsCQL))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		if err := admin.Query(st.Text).Exec(); err != nil {
			t.Fatalf("%s: %v", st.Pos, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := ringtest.AwaitAgreement(ctx, admin); err != nil {
		t.Fatal(err)
	}
	return configuredSession(t, ringtest.Config(t), ks), ks
}
