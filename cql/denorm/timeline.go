package denorm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
)

// Timeline reads the newest rows for one key across its time buckets: posts_by_user
// ((user_id, month), post_id) read newest month first until a page is full. Buckets are
// read Parallel at a time and their rows put in bucket order, which is clustering order
// when, as in every time-bucketed table, the bucket is cut from the first clustering
// column's time and that column sorts newest first (CLUSTERING ORDER BY (post_id DESC)).
//
// Pages resume exactly where the previous one ended, inside a bucket too: the page token
// carries the bucket, the driver's paging state and a row offset, and is signed so that a
// token altered by a client is refused rather than read. A Timeline is safe for
// concurrent use.
type Timeline struct {
	Session *gocql.Session
	// Query selects one bucket of the key, in clustering order. Its bind markers are the
	// key values, then the bucket last:
	//   SELECT post_id, content FROM posts_by_user WHERE user_id = ? AND month = ?
	Query string
	// Scheme cuts time into the buckets the table is partitioned by.
	Scheme bucket.Scheme
	// BucketValue is the value bound for the bucket column. Default: the bucket's label
	// (b.String(), "2024-01" for months) for a text column; use b.Start() for a timestamp.
	BucketValue func(bucket.Bucket) any
	// MaxBuckets bounds how far back a timeline goes, counted from its newest bucket over
	// all its pages (default 12). A user who posted once three years ago costs at most
	// MaxBuckets reads, not one per month since.
	MaxBuckets int
	// Parallel bounds the buckets read at once (default 4). Reading ahead costs reads that
	// a full page throws away; a sparse timeline is served in fewer round trips.
	Parallel int
	// Consistency of the reads (default LOCAL_QUORUM).
	Consistency gocql.Consistency
	// Secret signs page tokens with HMAC-SHA256. Without one, tokens carry a checksum that
	// catches corruption and casual edits but not a forger who knows this package.
	Secret []byte
}

// MaxPageRows bounds PageRequest.Limit: a page is held in memory, and a driver page size
// is a 32-bit number.
const MaxPageRows = 100_000

// PageRequest asks for one page of a timeline.
type PageRequest struct {
	Key    []any     // the partition key values before the bucket, in the Query's order
	Newest time.Time // the timeline starts in the bucket holding this instant (default now); ignored with a Token
	Limit  int       // rows per page
	Token  string    // Page.Next of the previous page; empty for the first page
}

// Page is one page of a timeline.
type Page struct {
	Rows    []Values
	Next    string // token for the next page; empty when the timeline has no more buckets to read
	Visited int    // bucket reads this page made, read-ahead included
}

// position is a place in one bucket: start from the driver's paging state (nil: the
// bucket's beginning) and skip rows of what it returns. done means past the bucket's end.
type position struct {
	state []byte
	skip  int
	done  bool
}

func (tl *Timeline) settings() (maxBuckets, parallel int, cons gocql.Consistency, err error) {
	maxBuckets, parallel, cons = tl.MaxBuckets, tl.Parallel, tl.Consistency
	if maxBuckets == 0 {
		maxBuckets = 12
	}
	if parallel == 0 {
		parallel = 4
	}
	if cons == gocql.Any {
		cons = gocql.LocalQuorum
	}
	switch {
	case tl.Session == nil:
		err = errors.New("timeline: no session")
	case tl.Query == "":
		err = errors.New("timeline: no query")
	case maxBuckets < 0 || parallel < 0:
		err = fmt.Errorf("timeline: MaxBuckets %d and Parallel %d must not be negative", tl.MaxBuckets, tl.Parallel)
	case tl.Scheme.For(time.Unix(0, 0)) == bucket.Bucket{}:
		err = fmt.Errorf("timeline: %w: the zero bucket.Scheme (make one with bucket.New)", bucket.ErrInvalidWidth)
	}
	return
}

// markers counts the query's bind markers, so a key of the wrong length is caught before
// any read.
func markers(query string) (int, error) {
	toks, err := cql.Lex("timeline query", []byte(query))
	if err != nil {
		return 0, err
	}
	n := 0
	for i, t := range toks {
		named := t.IsPunct(":") && i+1 < len(toks) && (toks[i+1].Kind == cql.TokIdent || toks[i+1].Kind == cql.TokQuotedIdent)
		if t.Kind == cql.TokQMark || named {
			n++
		}
	}
	return n, nil
}

// Page reads one page: up to req.Limit rows, newest first, across as many buckets as it
// takes (within MaxBuckets). A token that does not verify is ErrBadToken, with nothing read.
func (tl *Timeline) Page(ctx context.Context, req PageRequest) (*Page, error) {
	maxBuckets, parallel, cons, err := tl.settings()
	if err != nil {
		return nil, err
	}
	if req.Limit <= 0 || req.Limit > MaxPageRows {
		return nil, fmt.Errorf("timeline: limit %d: want 1 to %d rows a page", req.Limit, MaxPageRows)
	}
	n, err := markers(tl.Query)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	if n != len(req.Key)+1 {
		return nil, fmt.Errorf("timeline: the query has %d bind markers: want the %d key values then the bucket", n, len(req.Key))
	}
	fp := tl.fingerprint(req.Key)
	var cur bucket.Bucket
	var pos position
	left := maxBuckets
	if req.Token != "" {
		tok, err := tl.decodeToken(req.Token, fp)
		if err != nil {
			return nil, err
		}
		if tok.left < 1 || tok.left > maxBuckets {
			return nil, fmt.Errorf("timeline: %w: bucket budget %d out of range", ErrBadToken, tok.left)
		}
		if cur, err = tl.Scheme.Parse(tok.bucket); err != nil {
			return nil, fmt.Errorf("timeline: %w: %v", ErrBadToken, err)
		}
		pos, left = position{state: tok.state, skip: tok.skip}, tok.left
	} else {
		newest := req.Newest
		if newest.IsZero() {
			newest = time.Now()
		}
		cur = tl.Scheme.For(newest)
	}

	page := &Page{}
	for len(page.Rows) < req.Limit && left > 0 {
		need := req.Limit - len(page.Rows)
		wave := min(parallel, left)
		results := make([]bucketRead, wave)
		var wg sync.WaitGroup
		b := cur
		for i := 0; i < wave; i++ {
			p := position{}
			if i == 0 {
				p = pos
			}
			wg.Add(1)
			go func(i int, b bucket.Bucket, p position) {
				defer wg.Done()
				results[i] = tl.readBucket(ctx, req.Key, b, p, need, cons)
			}(i, b, p)
			b = b.Prev()
		}
		wg.Wait()
		page.Visited += wave
		b = cur
		for i := 0; i < wave; i++ {
			r := results[i]
			if r.err != nil {
				return nil, fmt.Errorf("timeline: read bucket %s: %w", b, r.err)
			}
			take := min(len(r.rows), req.Limit-len(page.Rows))
			page.Rows = append(page.Rows, r.rows[:take]...)
			if take > 0 && len(page.Rows) == req.Limit {
				after := r.after[take-1]
				if !after.done {
					page.Next, err = tl.encodeToken(fp, token{left: left, bucket: b.String(), state: after.state, skip: after.skip})
					return page, err
				}
				if left > 1 {
					page.Next, err = tl.encodeToken(fp, token{left: left - 1, bucket: b.Prev().String()})
				}
				return page, err
			}
			left--
			b = b.Prev()
		}
		cur, pos = b, position{}
	}
	if left > 0 {
		page.Next, err = tl.encodeToken(fp, token{left: left, bucket: cur.String(), state: pos.state, skip: pos.skip})
	}
	return page, err
}

type bucketRead struct {
	rows  []Values
	after []position // after[i]: where the bucket resumes after rows[i]
	err   error
}

// readBucket reads up to need rows of bucket b from position p, page by page.
func (tl *Timeline) readBucket(ctx context.Context, key []any, b bucket.Bucket, p position, need int, cons gocql.Consistency) bucketRead {
	var out bucketRead
	args := make([]any, len(key)+1)
	copy(args, key)
	if tl.BucketValue != nil {
		args[len(key)] = tl.BucketValue(b)
	} else {
		args[len(key)] = b.String()
	}
	state, skip := p.state, p.skip
	for empty := 0; len(out.rows) < need; {
		q := tl.Session.Query(tl.Query, args...).WithContext(ctx).Consistency(cons).
			PageSize(skip + need - len(out.rows)).PageState(state)
		iter := q.Iter()
		next := append([]byte(nil), iter.PageState()...)
		n := iter.NumRows()
		for j := 0; j < n; j++ {
			row := Values{}
			if !iter.MapScan(row) {
				break
			}
			if j < skip {
				continue
			}
			out.rows = append(out.rows, row)
			if j+1 < n {
				out.after = append(out.after, position{state: state, skip: j + 1})
			} else {
				out.after = append(out.after, position{state: next, done: len(next) == 0})
			}
		}
		err := iter.Close()
		q.Release()
		if err != nil {
			out.err = err
			return out
		}
		skip = max(0, skip-n)
		if len(next) == 0 {
			return out
		}
		if n == 0 { // a page of nothing but tombstones; Cassandra still moves on
			if empty++; empty > 1000 {
				out.err = errors.New("more than 1000 empty pages in a row")
				return out
			}
		}
		state = next
	}
	return out
}
