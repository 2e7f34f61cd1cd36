package backfillcheck

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// MutatorSpec says how a Mutator writes.
type MutatorSpec struct {
	Workers     int               // goroutines, each owning its share of the posts; 4 when 0
	Rate        int               // operations a second in all; 200 when 0
	Consistency gocql.Consistency // of every write
	Seed        uint64
}

// MutatorStats counts what a Mutator did.
type MutatorStats struct {
	Inserts, Edits, Likes, Retags, Unlikes, Deletes int64
	Errors                                          int64 // operations that failed even after retries
	FirstErr                                        error
}

// Total is the number of operations applied.
func (s MutatorStats) Total() int64 {
	return s.Inserts + s.Edits + s.Likes + s.Retags + s.Unlikes + s.Deletes
}

func (s MutatorStats) String() string {
	return fmt.Sprintf("%d inserts, %d content edits, %d likes updates, %d retags, %d likes deleted, %d post deletes, %d failed",
		s.Inserts, s.Edits, s.Likes, s.Retags, s.Unlikes, s.Deletes, s.Errors)
}

// Mutator is a service making dual writes while a backfill runs: every change goes to the
// source and to both targets in one logged batch with one timestamp, the current time, as
// a service that writes old and new tables does. It inserts posts, edits content, updates
// and deletes likes, replaces hashtags (rewriting content with them, as an edit of the whole
// post does) and deletes posts.
type Mutator struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	stats  MutatorStats
	ops    atomic.Int64
}

// StartMutator starts writing; Stop ends it. posts are the rows it may change; each worker
// owns a disjoint share, so no two writes to one post race each other.
func StartMutator(s *gocql.Session, t Tables, posts []Post, spec MutatorSpec) *Mutator {
	workers, rate := spec.Workers, spec.Rate
	if workers <= 0 {
		workers = 4
	}
	if rate <= 0 {
		rate = 200
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Mutator{cancel: cancel}
	for w := 0; w < workers; w++ {
		var own []Post
		for i := w; i < len(posts); i += workers {
			own = append(own, posts[i])
		}
		wk := &worker{m: m, s: s, t: t, cons: spec.Consistency, posts: own,
			rng: rand.New(rand.NewPCG(spec.Seed, uint64(w)+1000)), every: time.Second * time.Duration(workers) / time.Duration(rate)}
		m.wg.Add(1)
		go func() { defer m.wg.Done(); wk.run(ctx) }()
	}
	return m
}

// Ops is the number of operations applied so far.
func (m *Mutator) Ops() int64 { return m.ops.Load() }

// Stop ends the writes, waits for those in flight and returns what was done.
func (m *Mutator) Stop() MutatorStats {
	m.cancel()
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

type worker struct {
	m     *Mutator
	s     *gocql.Session
	t     Tables
	cons  gocql.Consistency
	posts []Post
	rng   *rand.Rand
	every time.Duration
	last  int64 // the last timestamp used: each write of a post is newer than the one before
}

func (w *worker) run(ctx context.Context) {
	tick := time.NewTicker(w.every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		counter, err := w.step()
		w.m.mu.Lock()
		if err != nil {
			w.m.stats.Errors++
			if w.m.stats.FirstErr == nil {
				w.m.stats.FirstErr = err
			}
		} else {
			*counter(&w.m.stats)++
			w.m.ops.Add(1)
		}
		w.m.mu.Unlock()
	}
}

// now is the current time in microseconds, later than any timestamp this worker used.
func (w *worker) now() int64 {
	ts := time.Now().UnixMicro()
	if ts <= w.last {
		ts = w.last + 1
	}
	w.last = ts
	return ts
}

// step applies one operation and names the counter it adds to. The operation is applied
// without a context: a write the batch log may still replay is not cut off halfway.
func (w *worker) step() (func(*MutatorStats) *int64, error) {
	r := w.rng.IntN(100)
	if len(w.posts) == 0 || r < 30 {
		return func(s *MutatorStats) *int64 { return &s.Inserts }, w.insert()
	}
	i := w.rng.IntN(len(w.posts))
	switch {
	case r < 50:
		return func(s *MutatorStats) *int64 { return &s.Edits }, w.edit(i)
	case r < 65:
		return func(s *MutatorStats) *int64 { return &s.Likes }, w.likes(i, false)
	case r < 75:
		return func(s *MutatorStats) *int64 { return &s.Retags }, w.retag(i)
	case r < 80:
		return func(s *MutatorStats) *int64 { return &s.Unlikes }, w.likes(i, true)
	default:
		return func(s *MutatorStats) *int64 { return &s.Deletes }, w.remove(i)
	}
}

func (w *worker) batch(ts int64) *gocql.Batch {
	b := w.s.NewBatch(gocql.LoggedBatch)
	b.SetConsistency(w.cons)
	b.WithTimestamp(ts)
	return b
}

// apply sends b until it succeeds, fails for good, or two minutes have passed: as long as a
// killed node of the ring takes to be noticed and to come back, which a service with a retry
// policy rides through too (the batch carries its own timestamp, so a resend is harmless).
func (w *worker) apply(b *gocql.Batch) error {
	deadline := time.Now().Add(2 * time.Minute)
	for attempt := 1; ; attempt++ {
		err := w.s.ExecuteBatch(b)
		if err == nil || !retryable(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(min(time.Duration(attempt)*200*time.Millisecond, 2*time.Second))
	}
}

func (w *worker) insert() error {
	ts := w.now()
	created := time.UnixMicro(ts).Truncate(time.Millisecond).UTC()
	p := Post{UserID: randomUUID(w.rng), CreatedAt: created, PostID: timeUUID(w.rng, created), Hashtags: randomTags(w.rng, w.rng.IntN(4))}
	if len(w.posts) > 0 && w.rng.IntN(2) == 0 {
		p.UserID = w.posts[w.rng.IntN(len(w.posts))].UserID // a user who posted before
	}
	content, likes := randomContent(w.rng), w.rng.IntN(100)
	b := w.batch(ts)
	b.Query("INSERT INTO "+w.t.Source+" (user_id, created_at, post_id, content, likes, hashtags) VALUES (?, ?, ?, ?, ?, ?)",
		p.UserID, p.CreatedAt, p.PostID, content, likes, p.Hashtags)
	b.Query("INSERT INTO "+w.t.Month+" (user_id, month, created_at, post_id, content, likes, hashtags) VALUES (?, ?, ?, ?, ?, ?, ?)",
		p.UserID, Month(created), p.CreatedAt, p.PostID, content, likes, p.Hashtags)
	for _, tag := range p.Hashtags {
		b.Query("INSERT INTO "+w.t.TagDay+" (hashtag, day, created_at, user_id, post_id, content) VALUES (?, ?, ?, ?, ?, ?)",
			tag, Day(created), p.CreatedAt, p.UserID, p.PostID, content)
	}
	if err := w.apply(b); err != nil {
		return fmt.Errorf("insert post %s: %w", p.PostID, err)
	}
	w.posts = append(w.posts, p)
	return nil
}

// edit rewrites the content of post i in the three tables.
func (w *worker) edit(i int) error {
	p := w.posts[i]
	content := randomContent(w.rng)
	b := w.batch(w.now())
	w.setContent(b, p, content)
	if err := w.apply(b); err != nil {
		return fmt.Errorf("edit post %s: %w", p.PostID, err)
	}
	return nil
}

func (w *worker) setContent(b *gocql.Batch, p Post, content string) {
	b.Query("UPDATE "+w.t.Source+" SET content = ? WHERE user_id = ? AND created_at = ? AND post_id = ?", content, p.UserID, p.CreatedAt, p.PostID)
	b.Query("UPDATE "+w.t.Month+" SET content = ? WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?",
		content, p.UserID, Month(p.CreatedAt), p.CreatedAt, p.PostID)
	for _, tag := range p.Hashtags {
		b.Query("INSERT INTO "+w.t.TagDay+" (hashtag, day, created_at, user_id, post_id, content) VALUES (?, ?, ?, ?, ?, ?)",
			tag, Day(p.CreatedAt), p.CreatedAt, p.UserID, p.PostID, content)
	}
}

// likes sets (or, with remove, deletes) the likes cell of post i in the source and the
// month table (the fan-out table has no likes).
func (w *worker) likes(i int, remove bool) error {
	p := w.posts[i]
	b := w.batch(w.now())
	if remove {
		b.Query("DELETE likes FROM "+w.t.Source+" WHERE user_id = ? AND created_at = ? AND post_id = ?", p.UserID, p.CreatedAt, p.PostID)
		b.Query("DELETE likes FROM "+w.t.Month+" WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?",
			p.UserID, Month(p.CreatedAt), p.CreatedAt, p.PostID)
	} else {
		n := w.rng.IntN(100000)
		b.Query("UPDATE "+w.t.Source+" SET likes = ? WHERE user_id = ? AND created_at = ? AND post_id = ?", n, p.UserID, p.CreatedAt, p.PostID)
		b.Query("UPDATE "+w.t.Month+" SET likes = ? WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?",
			n, p.UserID, Month(p.CreatedAt), p.CreatedAt, p.PostID)
	}
	if err := w.apply(b); err != nil {
		return fmt.Errorf("likes of post %s: %w", p.PostID, err)
	}
	return nil
}

// retag replaces the hashtags of post i and rewrites its content: the fan-out rows of the
// hashtags dropped are deleted, those of the hashtags kept or added written whole.
func (w *worker) retag(i int) error {
	p := w.posts[i]
	tags := randomTags(w.rng, w.rng.IntN(4))
	b := w.batch(w.now())
	b.Query("UPDATE "+w.t.Source+" SET hashtags = ? WHERE user_id = ? AND created_at = ? AND post_id = ?", tags, p.UserID, p.CreatedAt, p.PostID)
	b.Query("UPDATE "+w.t.Month+" SET hashtags = ? WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?",
		tags, p.UserID, Month(p.CreatedAt), p.CreatedAt, p.PostID)
	for _, old := range p.Hashtags {
		if !contains(tags, old) {
			b.Query("DELETE FROM "+w.t.TagDay+" WHERE hashtag = ? AND day = ? AND created_at = ? AND user_id = ? AND post_id = ?",
				old, Day(p.CreatedAt), p.CreatedAt, p.UserID, p.PostID)
		}
	}
	p.Hashtags = tags
	w.setContent(b, p, randomContent(w.rng))
	if err := w.apply(b); err != nil {
		return fmt.Errorf("retag post %s: %w", p.PostID, err)
	}
	w.posts[i] = p
	return nil
}

// remove deletes post i from the three tables.
func (w *worker) remove(i int) error {
	p := w.posts[i]
	b := w.batch(w.now())
	b.Query("DELETE FROM "+w.t.Source+" WHERE user_id = ? AND created_at = ? AND post_id = ?", p.UserID, p.CreatedAt, p.PostID)
	b.Query("DELETE FROM "+w.t.Month+" WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?",
		p.UserID, Month(p.CreatedAt), p.CreatedAt, p.PostID)
	for _, tag := range p.Hashtags {
		b.Query("DELETE FROM "+w.t.TagDay+" WHERE hashtag = ? AND day = ? AND created_at = ? AND user_id = ? AND post_id = ?",
			tag, Day(p.CreatedAt), p.CreatedAt, p.UserID, p.PostID)
	}
	if err := w.apply(b); err != nil {
		return fmt.Errorf("delete post %s: %w", p.PostID, err)
	}
	w.posts[i] = w.posts[len(w.posts)-1]
	w.posts = w.posts[:len(w.posts)-1]
	return nil
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
