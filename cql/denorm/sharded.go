package denorm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
)

// position is where one shard of a timeline resumes: the rows of bucket after the
// clustering key after (nil: from the bucket's first row), with left buckets to go, this
// one included. left 0 means the shard is read to its end.
type position struct {
	left   int
	bucket bucket.Bucket
	after  [][]byte
}

// item is one row read from a shard, with its clustering key and where the shard resumes
// once the row has been returned.
type item struct {
	row  Values
	key  [][]byte
	at   position // the row's own place: its bucket, and its key as after
	next position
}

// stream is one shard of a timeline being read for one page.
type stream struct {
	shard int
	pos   position // where the next page starts for this shard: after the last row returned
	cur   position // where the next read starts: after the rows in buf
	buf   []item   // rows read and not yet returned, in clustering order
	width int      // buckets the next read covers: 1, doubled after a bucket comes back short
	began bool
}

// reader reads one page of a timeline.
type reader struct {
	tl       *Timeline
	key      []any
	cols     []keyColumn
	cons     gocql.Consistency
	parallel int
	sharded  bool
	oldest   time.Time
	floor    int            // this page reads the buckets of left above floor: its budget
	base     string         // the query as given
	after    []resumeClause // the query with the resume bounds, in the order they are read
	sem      chan struct{}
	visits   atomic.Int64
}

// bounded returns p, or the end of the shard when p's bucket lies wholly before the
// oldest bound or its budget is spent.
func (r *reader) bounded(p position) position {
	if p.left <= 0 || !r.oldest.IsZero() && !p.bucket.End().After(r.oldest) {
		return position{}
	}
	return p
}

// older returns the position at the start of the bucket before b.
func (r *reader) older(b bucket.Bucket, left int) position {
	return r.bounded(position{left: left - 1, bucket: b.Prev()})
}

// page merges the shards' rows, newest first, until limit rows or every shard's end.
func (r *reader) page(ctx context.Context, streams []*stream, limit int, fp []byte) (*Page, error) {
	for _, s := range streams {
		s.cur = s.pos
	}
	page := &Page{}
	var last position // the last row returned, in its bucket
	for len(page.Rows) < limit {
		if err := r.fillEmpty(ctx, streams, limit-len(page.Rows)); err != nil {
			return nil, err
		}
		best := -1
		for i, s := range streams {
			if len(s.buf) > 0 && (best < 0 || r.before(s.buf[0].key, streams[best].buf[0].key)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		s := streams[best]
		page.Rows = append(page.Rows, s.buf[0].row)
		s.pos, last = s.buf[0].next, s.buf[0].at
		s.buf = s.buf[1:]
	}
	// A shard whose last row returned is newer than the page's last row resumes after the
	// page's last row too: when that row was chosen, the shard's next row was older still,
	// so nothing is skipped; and a row written into the gap later is not returned out of
	// order on the next page (a bucket's budget is the same in every shard, so left says
	// which bucket is older).
	if len(page.Rows) > 0 && len(streams) > 1 {
		for _, s := range streams {
			if s.pos.left > 0 && r.later(last, s.pos) {
				s.pos = last
			}
		}
	}
	page.Visited = int(r.visits.Load())
	t := token{oldest: r.oldest, shards: make([]shardPos, len(streams))}
	more := false
	for i, s := range streams {
		if s.pos.left > 0 {
			more = true
			t.shards[i] = shardPos{left: s.pos.left, bucket: s.pos.bucket.String(), after: s.pos.after}
		}
	}
	if more {
		page.Next = r.tl.encodeToken(fp, t)
		// Short of its rows with buckets left to read: only the budget stopped it (every
		// shard's rows were returned down to the page's floor).
		page.StoppedEarly = len(page.Rows) < limit
	}
	return page, nil
}

// fillEmpty reads the shards whose rows have all been returned until the newest row
// buffered can be returned: a shard needs reading only while it may still hold a newer
// one, that is while its next bucket is not older than that row's. Shards are read in
// parallel, a wave of buckets each at a time, so a shard whose rows are sparse is not
// walked past the bucket where the page ends.
func (r *reader) fillEmpty(ctx context.Context, streams []*stream, need int) error {
	for {
		stop := 0 // the newest buffered row's bucket, as left; 0: no row buffered
		for _, s := range streams {
			if len(s.buf) > 0 {
				stop = max(stop, s.buf[0].at.left)
			}
		}
		var todo []*stream
		for _, s := range streams {
			if len(s.buf) == 0 && s.cur.left > r.floor && s.cur.left >= stop {
				todo = append(todo, s)
			}
		}
		if len(todo) == 0 {
			return nil
		}
		if len(todo) == 1 {
			if err := r.fill(ctx, todo[0], need, stop); err != nil {
				return err
			}
			continue
		}
		errs := make([]error, len(todo))
		var wg sync.WaitGroup
		for i, s := range todo {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = r.fill(ctx, s, need, stop)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
}

// fill reads one wave of shard s: its current bucket and, after a wave that came back
// short, older ones too, width at a time, the width doubling (up to Parallel) each wave;
// never past the page's floor or a bucket older than stop (a left value; 0: no such
// bound). A bucket that returns need rows ends the wave; the read-ahead past it is thrown
// away.
func (r *reader) fill(ctx context.Context, s *stream, need, stop int) error {
	oldest := max(r.floor+1, stop) // the oldest bucket, as left, this wave may read
	if len(s.buf) > 0 || s.cur.left < oldest {
		return nil
	}
	if s.began {
		s.width = min(2*s.width, r.parallel)
	}
	s.began = true
	wave := []position{s.cur}
	for p := s.cur; len(wave) < min(s.width, s.cur.left-oldest+1); {
		if p = r.older(p.bucket, p.left); p.left == 0 {
			break
		}
		wave = append(wave, p)
	}
	reads := make([]bucketRead, len(wave))
	var wg sync.WaitGroup
	for i, p := range wave {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reads[i] = r.read(ctx, s.shard, p, need)
		}()
	}
	wg.Wait()
	for i, p := range wave {
		rd := reads[i]
		if rd.err != nil {
			return fmt.Errorf("timeline: read bucket %s%s: %w", p.bucket, r.shardName(s.shard), rd.err)
		}
		end := r.older(p.bucket, p.left) // where the shard goes once this bucket is done
		exhausted, added := rd.exhausted, 0
		for j, row := range rd.rows {
			if r.tooOld(row) {
				if r.cols[0].desc { // every later row is older still: the shard ends here
					exhausted, end = true, position{}
					break
				}
				continue // ascending: later rows may be inside the bound
			}
			at := position{left: p.left, bucket: p.bucket, after: rd.keys[j]}
			s.buf = append(s.buf, item{row: row, key: rd.keys[j], at: at, next: at})
			added++
		}
		if n := len(s.buf); exhausted && n > 0 {
			// The bucket's last row resumes in the next bucket; so does a row of an
			// earlier bucket when this one, which it resumed at, had none to return.
			if last := &s.buf[n-1]; added > 0 || last.next.left == p.left && last.next.after == nil {
				last.next = end
			}
		}
		if !exhausted { // a full read: resume after its last row, returned or not
			s.cur = position{left: p.left, bucket: p.bucket, after: rd.keys[len(rd.keys)-1]}
			break
		}
		s.cur = end
		if len(s.buf) == 0 {
			s.pos = end // no row is skipped: the next page need not read this bucket again
		}
	}
	return nil
}

func (r *reader) shardName(shard int) string {
	if !r.sharded {
		return ""
	}
	return fmt.Sprintf(" shard %d", shard)
}

// tooOld reports whether a row's first clustering column is a time before the oldest
// bound.
func (r *reader) tooOld(row Values) bool {
	if r.oldest.IsZero() {
		return false
	}
	switch v := row[r.cols[0].name].(type) {
	case time.Time:
		return v.Before(r.oldest)
	case gocql.UUID:
		if r.cols[0].typ == gocql.TypeTimeUUID {
			return v.Time().Before(r.oldest)
		}
	}
	return false
}

type bucketRead struct {
	rows      []Values
	keys      [][][]byte // keys[i]: the clustering key of rows[i], serialized
	exhausted bool       // no row of the bucket after the last one read
	err       error
}

// rawValue is a value already serialized by the driver: a clustering key from a token,
// bound back as it was read.
type rawValue []byte

// MarshalCQL returns the bytes as they are.
func (v rawValue) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return v, nil }

// read reads up to need rows of one bucket of one shard from position p.
func (r *reader) read(ctx context.Context, shard int, p position, need int) bucketRead {
	var out bucketRead
	r.sem <- struct{}{}
	defer func() { <-r.sem }()
	args := make([]any, 0, len(r.key)+2+len(p.after))
	args = append(args, r.key...)
	if r.tl.BucketValue != nil {
		args = append(args, r.tl.BucketValue(p.bucket))
	} else {
		args = append(args, p.bucket.String())
	}
	if r.sharded {
		args = append(args, shard)
	}
	if p.after == nil {
		r.readStmt(ctx, r.base, args, need, &out)
		return out
	}
	for _, c := range r.after {
		cargs := args[:len(args):len(args)]
		for _, cell := range p.after[:c.cells] {
			cargs = append(cargs, rawValue(cell))
		}
		if r.readStmt(ctx, c.text, cargs, need, &out); out.err != nil || !out.exhausted {
			return out
		}
	}
	return out
}

// readStmt reads rows of one statement into out until it holds need rows or the statement
// has no more; out.exhausted then says which.
func (r *reader) readStmt(ctx context.Context, stmt string, args []any, need int, out *bucketRead) {
	out.exhausted = false
	var state []byte
	for empty, resent := 0, 0; len(out.rows) < need; {
		r.visits.Add(1)
		had := len(out.rows)
		// A read is idempotent: the session's retry policy (ConfigureCluster) may send it
		// to another replica when its coordinator goes away, and SpeculativeReadAfter a
		// second time when the first attempt is slow.
		iter, q := readIter(func() *gocql.Query {
			return r.tl.Session.Query(stmt, args...).WithContext(ctx).Consistency(r.cons).
				PageSize(need - len(out.rows)).PageState(state).Idempotent(true)
		}, r.tl.SpeculativeReadAfter)
		next := append([]byte(nil), iter.PageState()...)
		infos, err := r.keyTypes(iter.Columns())
		n := iter.NumRows()
		for j := 0; j < n && err == nil; j++ {
			row := Values{}
			if !iter.MapScan(row) {
				break
			}
			var key [][]byte
			if key, err = r.keyOf(row, infos); err == nil {
				out.rows, out.keys = append(out.rows, row), append(out.keys, key)
			}
		}
		if cerr := iter.Close(); err == nil {
			err = cerr
		}
		q.Release()
		if driverCancelled(ctx, err) && resent < maxResends {
			resent++
			out.rows, out.keys = out.rows[:had], out.keys[:had]
			continue
		}
		if err != nil {
			out.err = err
			return
		}
		if len(next) == 0 {
			out.exhausted = true
			return
		}
		if n == 0 { // a page of nothing but tombstones; Cassandra still moves on
			if empty++; empty > 1000 {
				out.err = errors.New("more than 1000 empty pages in a row")
				return
			}
		}
		state = next
	}
}

// keyTypes finds the clustering columns among the columns the query returns.
func (r *reader) keyTypes(cols []gocql.ColumnInfo) ([]gocql.TypeInfo, error) {
	if len(cols) == 0 { // an error result: Close reports it
		return nil, nil
	}
	infos := make([]gocql.TypeInfo, len(r.cols))
	for i, k := range r.cols {
		for _, c := range cols {
			if c.Name == k.name {
				infos[i] = c.TypeInfo
			}
		}
		if infos[i] == nil {
			return nil, fmt.Errorf("the query does not select clustering column %s, which the page token resumes after", k.name)
		}
	}
	return infos, nil
}

// keyOf serializes a row's clustering key as the driver would bind it.
func (r *reader) keyOf(row Values, infos []gocql.TypeInfo) ([][]byte, error) {
	key := make([][]byte, len(r.cols))
	for i, k := range r.cols {
		b, err := gocql.Marshal(infos[i], row[k.name])
		if err != nil {
			return nil, fmt.Errorf("serialize clustering column %s: %w", k.name, err)
		}
		if b == nil {
			b = []byte{}
		}
		key[i] = b
	}
	return key, nil
}

// later reports whether position a comes after b in reading order: in an older bucket, or
// further into the same one.
func (r *reader) later(a, b position) bool {
	switch {
	case a.left != b.left:
		return a.left < b.left
	case b.after == nil:
		return a.after != nil
	case a.after == nil:
		return false
	}
	return r.before(b.after, a.after)
}

// before reports whether clustering key a comes before b in the table's clustering order
// (newest first for a DESC table): the merge returns a first.
func (r *reader) before(a, b [][]byte) bool {
	for i, c := range r.cols {
		if d := compareCell(c.typ, a[i], b[i]); d != 0 {
			if c.desc {
				return d > 0
			}
			return d < 0
		}
	}
	return false
}
