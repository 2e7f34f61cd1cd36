package denorm

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/dctest"
)

// TestDCsLocalQuorumWritesThroughDCLoss writes posts through the model at LOCAL_QUORUM
// from a session routed to dc1 (Logged batches: the batchlog lives in the coordinator's
// DC) while dc2 is killed whole: no write fails, and every post written is read back in
// full, all three tables, at LOCAL_QUORUM in dc1 by a session of its own.
func TestDCsLocalQuorumWritesThroughDCLoss(t *testing.T) {
	dctest.Lock(t)
	ks := dctest.Keyspace(t, 2)
	admin := configuredSession(t, dctest.Config(t, "dc1"), ks)
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
	if err := dctest.AwaitAgreement(ctx, t); err != nil {
		t.Fatal(err)
	}
	m := newPostModel(t, admin, postsSchema(ks), Options{Consistency: gocql.LocalQuorum})

	var (
		mu      sync.Mutex
		written []*post
		failed  atomic.Int64
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				p := newPost("dc", "loss")
				if _, err := m.Insert(ctx, p); err != nil {
					failed.Add(1)
					t.Errorf("insert %s: %v", p.ID, err)
					continue
				}
				mu.Lock()
				written = append(written, p)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(3 * time.Second)
	dctest.Kill(t, "dc2")
	mu.Lock()
	killedAt := len(written)
	mu.Unlock()
	time.Sleep(15 * time.Second)
	close(stop)
	wg.Wait()
	t.Logf("%d posts written (%d of them after dc2 was killed), %d failed", len(written), len(written)-killedAt, failed.Load())
	if failed.Load() != 0 {
		t.Fatalf("%d writes failed at LOCAL_QUORUM with dc2 down; want 0", failed.Load())
	}
	if len(written)-killedAt < 10 {
		t.Fatalf("only %d posts written after the kill: the test proves nothing", len(written)-killedAt)
	}
	reader := configuredSession(t, dctest.Config(t, "dc1"), ks)
	missing := 0
	for _, p := range written {
		id, user, tags := copiesAt(t, reader, p, gocql.LocalQuorum)
		if id != 1 || user != 1 || tags != 2 {
			missing++
			t.Errorf("post %s: %d, %d, %d rows in posts_by_id, posts_by_user, posts_by_hashtag at LOCAL_QUORUM in dc1; want 1, 1, 2", p.ID, id, user, tags)
		}
	}
	t.Logf("read back in dc1: %d of %d posts complete", len(written)-missing, len(written))
}

// copiesAt is copies read at consistency c.
func copiesAt(t *testing.T, s *gocql.Session, p *post, c gocql.Consistency) (byID, byUser, byTag int) {
	t.Helper()
	month, err := monthOf(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := func(q string, args ...any) int {
		iter := s.Query(q, args...).Consistency(c).Iter()
		k := iter.NumRows()
		if err := iter.Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return k
	}
	byID = n("SELECT * FROM posts_by_id WHERE post_id = ?", p.ID)
	byUser = n("SELECT * FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?", p.UserID, month, p.ID)
	for _, h := range p.Hashtags {
		byTag += n("SELECT * FROM posts_by_hashtag WHERE hashtag = ? AND month = ? AND post_id = ?", h, month, p.ID)
	}
	return
}
