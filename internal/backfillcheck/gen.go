package backfillcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/gocql/gocql"
)

// Post is the key of a source row and the hashtags it holds now: what a service knows of a
// post it may edit or delete.
type Post struct {
	UserID    gocql.UUID
	CreatedAt time.Time
	PostID    gocql.UUID
	Hashtags  []string
}

// Spec says what Generate writes.
type Spec struct {
	Rows        int               // source rows
	Seed        uint64            // the same seed writes the same rows (write times are relative to now)
	Consistency gocql.Consistency // of every write
	Workers     int               // writes in flight; 32 when 0
	Keep        bool              // return the posts (for a Mutator); off for a benchmark's million rows
}

// Kinds of generated rows, chosen per row from the seed. Each puts cells of one row at
// different write times or TTLs, the cases a copy written at one time with one TTL gets
// wrong.
const (
	kindFull       = iota // all columns at w0, likes rewritten at w1
	kindTTL               // all columns at w0 with a TTL of 1 to 31 days
	kindKeyOnly           // the primary key alone (a row marker, no cells)
	kindNoTags            // content and likes, no hashtags (no fan-out row)
	kindTagsOnly          // hashtags at w0, one more element at w1 with a TTL of its own
	kindContentTTL        // all columns at w0, content rewritten at w1 with a TTL
)

// Generate writes spec.Rows posts into t.Source, created over the two years before now, each
// written at a time in the past (USING TIMESTAMP), so that any write made during the test
// (a dual write, an update, a delete) is newer than them all.
func Generate(ctx context.Context, s *gocql.Session, t Tables, spec Spec) ([]Post, error) {
	workers := spec.Workers
	if workers <= 0 {
		workers = 32
	}
	now := time.Now()
	users := (spec.Rows + postsPerUser - 1) / postsPerUser
	userIDs := make([]gocql.UUID, users)
	rng := rand.New(rand.NewPCG(spec.Seed, 1))
	for i := range userIDs {
		userIDs[i] = randomUUID(rng)
	}
	jobs := make(chan int)
	var (
		mu    sync.Mutex
		posts []Post
		errs  []error
		wg    sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range jobs {
				ps, err := writeUser(ctx, s, t, spec, userIDs[u], now, u)
				mu.Lock()
				if err != nil && len(errs) < 5 {
					errs = append(errs, err)
				} else if err == nil && spec.Keep {
					posts = append(posts, ps...)
				}
				mu.Unlock()
			}
		}()
	}
	for u := 0; u < users && ctx.Err() == nil; u++ {
		mu.Lock()
		failed := len(errs) > 0
		mu.Unlock()
		if failed {
			break
		}
		jobs <- u
	}
	close(jobs)
	wg.Wait()
	if len(errs) > 0 {
		return nil, fmt.Errorf("generate %d rows into %s: %w", spec.Rows, t.Source, errors.Join(errs...))
	}
	return posts, ctx.Err()
}

// postsPerUser is how many posts each user of the source has: they are written in one
// unlogged batch, a single partition.
const postsPerUser = 10

// writeUser writes the posts of user u (rows u*postsPerUser on) in one single-partition
// unlogged batch, each statement with its own write time.
func writeUser(ctx context.Context, s *gocql.Session, t Tables, spec Spec, user gocql.UUID, now time.Time, u int) ([]Post, error) {
	b := s.NewBatch(gocql.UnloggedBatch)
	b.SetConsistency(spec.Consistency)
	var posts []Post
	for i := u * postsPerUser; i < min((u+1)*postsPerUser, spec.Rows); i++ {
		p, stmts := generated(t, spec, user, now, i)
		for _, st := range stmts {
			b.Query(st.cql, st.args...)
		}
		posts = append(posts, p)
	}
	if err := execBatchRetry(ctx, s, b); err != nil {
		return nil, fmt.Errorf("user %d: %w", u, err)
	}
	return posts, nil
}

// generated is row i of user and the statements that write it, drawn from its own random
// stream so that the rows do not depend on the order the workers take them in.
func generated(t Tables, spec Spec, user gocql.UUID, now time.Time, i int) (Post, []stmt) {
	rng := rand.New(rand.NewPCG(spec.Seed, uint64(i)+2))
	span := int64(2 * 365 * 24 * time.Hour)
	created := now.Add(-time.Hour - time.Duration(rng.Int64N(span))).Truncate(time.Millisecond).UTC()
	p := Post{UserID: user, CreatedAt: created, PostID: timeUUID(rng, created)}
	w0 := created.UnixMicro() + rng.Int64N(1000)
	w1 := w0 + 1_000_000 + rng.Int64N(int64(20*24*time.Hour/time.Microsecond))
	if w1 >= now.UnixMicro() {
		w1 = now.UnixMicro() - 1 - rng.Int64N(1000)
	}
	content, likes, tags := randomContent(rng), rng.IntN(10000), randomTags(rng, 1+rng.IntN(4))
	ttl := 86400 + rng.IntN(30*86400)
	key := []any{p.UserID, p.CreatedAt, p.PostID}
	ins := "INSERT INTO " + t.Source + " (user_id, created_at, post_id, content, likes, hashtags) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?"
	var stmts []stmt
	switch kind := pickKind(rng); kind {
	case kindFull, kindTTL, kindContentTTL:
		if kind == kindTTL {
			stmts = append(stmts, stmt{ins + " AND TTL ?", append(key, content, likes, tags, w0, ttl)})
		} else {
			stmts = append(stmts, stmt{ins, append(key, content, likes, tags, w0)})
		}
		p.Hashtags = tags
		if kind == kindFull {
			stmts = append(stmts, stmt{"UPDATE " + t.Source + " USING TIMESTAMP ? SET likes = ? WHERE user_id = ? AND created_at = ? AND post_id = ?",
				append([]any{w1, likes + 1}, key...)})
		}
		if kind == kindContentTTL {
			stmts = append(stmts, stmt{"UPDATE " + t.Source + " USING TIMESTAMP ? AND TTL ? SET content = ? WHERE user_id = ? AND created_at = ? AND post_id = ?",
				append([]any{w1, ttl, content + " (edited)"}, key...)})
		}
	case kindKeyOnly:
		stmts = append(stmts, stmt{"INSERT INTO " + t.Source + " (user_id, created_at, post_id) VALUES (?, ?, ?) USING TIMESTAMP ?", append(key, w0)})
	case kindNoTags:
		stmts = append(stmts, stmt{"INSERT INTO " + t.Source + " (user_id, created_at, post_id, content, likes) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?",
			append(key, content, likes, w0)})
	case kindTagsOnly:
		extra := randomTags(rng, 1)
		stmts = append(stmts,
			stmt{"INSERT INTO " + t.Source + " (user_id, created_at, post_id, hashtags) VALUES (?, ?, ?, ?) USING TIMESTAMP ?", append(key, tags, w0)},
			stmt{"UPDATE " + t.Source + " USING TIMESTAMP ? AND TTL ? SET hashtags = hashtags + ? WHERE user_id = ? AND created_at = ? AND post_id = ?",
				append([]any{w1, ttl, extra}, key...)})
		p.Hashtags = union(tags, extra)
	}
	return p, stmts
}

type stmt struct {
	cql  string
	args []any
}

func pickKind(rng *rand.Rand) int {
	switch r := rng.IntN(100); {
	case r < 55:
		return kindFull
	case r < 65:
		return kindTTL
	case r < 72:
		return kindKeyOnly
	case r < 80:
		return kindNoTags
	case r < 90:
		return kindTagsOnly
	default:
		return kindContentTTL
	}
}

// tagWords are the hashtags posts draw from: some not ASCII, so a copy that mangles text
// shows as a missing row of the fan-out table and an extra one.
var tagWords = func() []string {
	w := []string{"café", "日本", "naïve", "Ωmega"}
	for i := len(w); i < 40; i++ {
		w = append(w, fmt.Sprintf("tag%02d", i))
	}
	return w
}()

func randomTags(rng *rand.Rand, n int) []string {
	var out []string
	for len(out) < n {
		w := tagWords[rng.IntN(len(tagWords))]
		out = union(out, []string{w})
	}
	return out
}

func union(a, b []string) []string {
	out := append([]string{}, a...)
	for _, x := range b {
		found := false
		for _, y := range out {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

func randomContent(rng *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz      éü"
	b := []rune{}
	for n := 20 + rng.IntN(120); len(b) < n; {
		b = append(b, []rune(letters)[rng.IntN(len([]rune(letters)))])
	}
	return string(b)
}

// timeUUID is a version 1 uuid of t whose clock sequence and node come from rng.
func timeUUID(rng *rand.Rand, t time.Time) gocql.UUID {
	u := gocql.UUIDFromTime(t)
	for i := 8; i < 16; i++ {
		u[i] = byte(rng.Uint32())
	}
	u[8] = u[8]&0x3f | 0x80
	return u
}

func randomUUID(rng *rand.Rand) gocql.UUID {
	var u gocql.UUID
	for i := range u {
		u[i] = byte(rng.Uint32())
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// retryable reports whether an idempotent request (a read, or a write carrying its own
// timestamp, as every write here does) that failed with err is worth sending again: a
// timeout, an unavailable error or a lost connection; a loaded test machine times out now
// and then, and a node of the ring may be down.
func retryable(err error) bool {
	var (
		wt *gocql.RequestErrWriteTimeout
		rt *gocql.RequestErrReadTimeout
		un *gocql.RequestErrUnavailable
	)
	var ne net.Error
	return errors.As(err, &wt) || errors.As(err, &rt) || errors.As(err, &un) ||
		errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.Is(err, gocql.ErrNoConnections) || errors.Is(err, gocql.ErrConnectionClosed) ||
		// A node killed mid-request resets its connections ("read: connection reset by peer").
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne)
}
