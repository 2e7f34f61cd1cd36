package backfillcheck

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// CopySpec says how the reference copy runs.
type CopySpec struct {
	Consistency      gocql.Consistency // of the reads, and of the writes unless WriteConsistency is set
	WriteConsistency gocql.Consistency // of the writes (ANY, the zero value: Consistency)
	Readers          int               // token ranges read at once; 8 when 0
	Writers          int               // writes in flight; 64 when 0
	PageSize         int               // 1000 when 0
}

// Copy is the hand-written reference: a parallel token-range copy of the source into a
// posts_by_month table and a posts_by_tag_day table (either name may be empty), written
// with plain gocql the way the backfill must write: each cell with its source cell's write
// time and remaining TTL, set elements one by one, and the row itself (its marker) no newer
// than its oldest cell, so that a row deleted after the read stays deleted. The
// tests check it with the checker (it is correct) and the benchmark races the backfill
// against it. It returns the source rows read.
func Copy(ctx context.Context, s *gocql.Session, source, month, tagDay string, spec CopySpec) (int64, error) {
	query := "SELECT user_id, created_at, post_id, content, writetime(content), ttl(content), " +
		"likes, writetime(likes), ttl(likes), hashtags, writetime(hashtags), ttl(hashtags) FROM " + source +
		" WHERE token(user_id) > ? AND token(user_id) <= ?"
	jobs := make(chan *gocql.Batch, orInt(spec.Writers, 64))
	var (
		rows  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		werrs []error
	)
	for w := 0; w < orInt(spec.Writers, 64); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				if err := execBatchRetry(ctx, s, b); err != nil {
					mu.Lock()
					werrs = append(werrs, err)
					mu.Unlock()
				}
			}
		}()
	}
	ropts := ReadOptions{Consistency: spec.Consistency, Pieces: orInt(spec.Readers, 8), PageSize: orInt(spec.PageSize, 1000)}
	rerr := scan(ctx, s, query, ropts, func() []any {
		return []any{new(gocql.UUID), new(time.Time), new(gocql.UUID), new(*string), new(*int64), new(*int),
			new(*int), new(*int64), new(*int), new([]string), new([]int64), new([]*int)}
	}, func(d []any, _ ReadWindow) error {
		r := copyRow{user: *d[0].(*gocql.UUID), created: *d[1].(*time.Time), post: *d[2].(*gocql.UUID)}
		if c := *d[3].(**string); c != nil {
			r.content = &cellVal{v: *c, w: deref(*d[4].(**int64)), ttl: deref(*d[5].(**int))}
		}
		if l := *d[6].(**int); l != nil {
			r.likes = &cellVal{v: *l, w: deref(*d[7].(**int64)), ttl: deref(*d[8].(**int))}
		}
		for i, e := range *d[9].(*[]string) {
			r.tags = append(r.tags, cellVal{v: e, w: (*d[10].(*[]int64))[i], ttl: deref((*d[11].(*[]*int))[i])})
		}
		rows.Add(1)
		wc := spec.WriteConsistency
		if wc == gocql.Any {
			wc = spec.Consistency
		}
		for _, b := range r.batches(s, month, tagDay, wc) {
			select {
			case jobs <- b:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	close(jobs)
	wg.Wait()
	if err := errors.Join(append([]error{rerr}, werrs...)...); err != nil {
		return rows.Load(), fmt.Errorf("reference copy of %s: %w", source, err)
	}
	return rows.Load(), nil
}

type cellVal struct {
	v   any
	w   int64
	ttl int
}

type copyRow struct {
	user, post gocql.UUID
	created    time.Time
	content    *cellVal
	likes      *cellVal
	tags       []cellVal
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// using is the USING clause of a cell written at w with ttl (0: none).
func using(w int64, ttl int) (string, []any) {
	if ttl > 0 {
		return " USING TIMESTAMP ? AND TTL ?", []any{w, ttl}
	}
	return " USING TIMESTAMP ?", []any{w}
}

// marker is the write time of the row itself in the target: its oldest cell's (the INSERT
// that made the row wrote them all), or, for a row of key columns only, whose own write
// time CQL does not show, the first microsecond after the epoch. Not the time of the read:
// a replica that missed a delete (a node just back) can show a deleted row, and a marker
// written at the time of the read would be newer than the service's delete and bring the
// row back. The target is a new table: every tombstone in it is a delete of the service,
// so the oldest possible marker loses to each one and to nothing else.
func (r copyRow) marker() int64 {
	ts := int64(1)
	for _, c := range append([]*cellVal{r.content, r.likes}, ptrs(r.tags)...) {
		if c != nil && (ts == 1 || c.w < ts) {
			ts = c.w
		}
	}
	return ts
}

func ptrs(cs []cellVal) []*cellVal {
	out := make([]*cellVal, len(cs))
	for i := range cs {
		out[i] = &cs[i]
	}
	return out
}

// batches is what the copy writes for one source row: one unlogged single-partition batch
// for the month table; one per hashtag for the fan-out table.
func (r copyRow) batches(s *gocql.Session, month, tagDay string, cons gocql.Consistency) []*gocql.Batch {
	newBatch := func() *gocql.Batch {
		b := s.NewBatch(gocql.UnloggedBatch)
		b.SetConsistency(cons)
		return b
	}
	var out []*gocql.Batch
	if month != "" {
		b := newBatch()
		mkey := []any{r.user, Month(r.created), r.created, r.post}
		where := " WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?"
		b.Query("INSERT INTO "+month+" (user_id, month, created_at, post_id) VALUES (?, ?, ?, ?) USING TIMESTAMP ?", append(mkey, r.marker())...)
		for col, c := range map[string]*cellVal{"content": r.content, "likes": r.likes} {
			if c != nil {
				u, args := using(c.w, c.ttl)
				b.Query("UPDATE "+month+u+" SET "+col+" = ?"+where, append(append(args, c.v), mkey...)...)
			}
		}
		groups := map[[2]int64][]string{} // elements written together are written together again
		for _, e := range r.tags {
			k := [2]int64{e.w, int64(e.ttl)}
			groups[k] = append(groups[k], e.v.(string))
		}
		for k, elems := range groups {
			sort.Strings(elems)
			u, args := using(k[0], int(k[1]))
			b.Query("UPDATE "+month+u+" SET hashtags = hashtags + ?"+where, append(append(args, elems), mkey...)...)
		}
		out = append(out, b)
	}
	if tagDay == "" {
		return out
	}
	for _, e := range r.tags {
		b := newBatch()
		tkey := []any{e.v, Day(r.created), r.created, r.user, r.post}
		u, args := using(e.w, e.ttl)
		b.Query("INSERT INTO "+tagDay+" (hashtag, day, created_at, user_id, post_id) VALUES (?, ?, ?, ?, ?)"+u, append(tkey, args...)...)
		if c := r.content; c != nil {
			u, args := using(c.w, c.ttl)
			b.Query("UPDATE "+tagDay+u+" SET content = ? WHERE hashtag = ? AND day = ? AND created_at = ? AND user_id = ? AND post_id = ?",
				append(append(args, c.v), tkey...)...)
		}
		out = append(out, b)
	}
	return out
}

func execBatchRetry(ctx context.Context, s *gocql.Session, b *gocql.Batch) error {
	var err error
	for attempt := 0; attempt < 8; attempt++ {
		if err = s.ExecuteBatch(b.WithContext(ctx)); err == nil || ctx.Err() != nil || !retryable(err) {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
	return err
}
