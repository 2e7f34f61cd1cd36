package backfillcheck

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// Cell is one cell as the node returns it: its value in a comparable form, its write time
// and its remaining TTL in seconds (0: none), and when the checker read it.
type Cell struct {
	Value string
	Write int64
	TTL   int
	Read  ReadWindow
}

// ReadWindow is when a page was asked for and when its answer came: the node computed
// the page's remaining TTLs at some moment in between.
type ReadWindow struct{ Asked, Answered time.Time }

// expiry is the earliest and latest moment a cell read in w with ttl seconds left
// expires: the node answers its expiry second less the current whole second, so the cell
// expires within the second before the moment it was read plus ttl.
func (w ReadWindow) expiry(ttl int) (lo, hi time.Time) {
	d := time.Duration(ttl) * time.Second
	return w.Asked.Add(d - time.Second), w.Answered.Add(d)
}

// Row is a row's regular cells by column; a set's elements are cells of their own, named
// column[element], each with its write time and TTL. A key-only row has no cells.
type Row map[string]Cell

// SourceRow is a row of the source table with the token the node gives its partition key.
type SourceRow struct {
	Token     int64
	UserID    gocql.UUID
	CreatedAt time.Time
	PostID    gocql.UUID
	Content   *string
	Hashtags  []string
	Cells     Row
}

// ReadOptions say how the checker reads.
type ReadOptions struct {
	Consistency gocql.Consistency
	Pieces      int // token ranges read in parallel; 16 when 0
	Ranges      int // the ring is read in this many ranges of equal width; 4 x Pieces when 0
	PageSize    int // 2000 when 0
}

func (o ReadOptions) pieces() int   { return orInt(o.Pieces, 16) }
func (o ReadOptions) pageSize() int { return orInt(o.PageSize, 2000) }

func orInt(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// TokenRange is the range (Start, End] of Murmur3 tokens.
type TokenRange struct{ Start, End int64 }

// SplitRing cuts the whole Murmur3 ring, (-2^63, 2^63-1], into n ranges of equal width.
// The minimum token belongs to no key (Murmur3 maps it to the maximum), so the open start
// loses nothing.
func SplitRing(n int) []TokenRange {
	lo, width := big.NewInt(math.MinInt64), new(big.Int).Sub(big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64))
	out := make([]TokenRange, n)
	prev := int64(math.MinInt64)
	for i := 1; i <= n; i++ {
		end := new(big.Int).Div(new(big.Int).Mul(width, big.NewInt(int64(i))), big.NewInt(int64(n)))
		end.Add(end, lo)
		out[i-1] = TokenRange{Start: prev, End: end.Int64()}
		prev = end.Int64()
	}
	return out
}

// scan reads query restricted to each range of the ring (query ends with a WHERE clause on
// token(pk) > ? AND token(pk) <= ?), opts.Pieces ranges at a time, and hands every row to
// row with the destinations it was scanned into (one set per reader, reused: row copies
// what it keeps) and when the page holding it was asked for and answered. Readers call row at
// the same time: row guards what it shares. A page that times out
// is asked again, up to 5 times: a loaded node now and then misses the range timeout.
func scan(ctx context.Context, s *gocql.Session, query string, opts ReadOptions, dest func() []any, row func(d []any, at ReadWindow) error) error {
	ranges := SplitRing(orInt(opts.Ranges, opts.pieces()*4))
	jobs := make(chan TokenRange)
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for w := 0; w < opts.pieces(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := dest()
			for r := range jobs {
				if err := scanRange(ctx, s, query, opts, r, d, func(at ReadWindow) error { return row(d, at) }); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for _, r := range ranges {
		jobs <- r
	}
	close(jobs)
	wg.Wait()
	return errors.Join(errs...)
}

// readFailed reports a read the replica answered with a failure: a node short of memory
// under other work fails a page now and then ("received 0 responses and 1 failures"), and
// the same page read again succeeds. A read is idempotent, so it is asked again.
func readFailed(err error) bool {
	var rf *gocql.RequestErrReadFailure
	return errors.As(err, &rf)
}

// scanRange reads one range a page at a time (PageState turns the driver's own paging off),
// asking a page that fails with a timeout again from its start: no row is handed on twice.
func scanRange(ctx context.Context, s *gocql.Session, query string, opts ReadOptions, r TokenRange, d []any, row func(ReadWindow) error) error {
	var state []byte
	for attempt := 0; ; {
		// The time before the request: a write the page does not show is newer than it.
		at := ReadWindow{Asked: time.Now()}
		iter := s.Query(query, r.Start, r.End).WithContext(ctx).Consistency(opts.Consistency).PageSize(opts.pageSize()).PageState(state).Iter()
		at.Answered = time.Now()
		next := iter.PageState()
		var rowErr error
		for rowErr == nil && iter.Scan(d...) {
			rowErr = row(at)
		}
		err := iter.Close()
		if rowErr != nil {
			return rowErr
		}
		if err != nil {
			if attempt++; attempt > 5 || !(retryable(err) || readFailed(err)) || ctx.Err() != nil {
				return fmt.Errorf("read token range (%d, %d]: %w", r.Start, r.End, err)
			}
			time.Sleep(time.Duration(attempt) * 300 * time.Millisecond)
			continue
		}
		if len(next) == 0 {
			return nil
		}
		state, attempt = next, 0
	}
}
