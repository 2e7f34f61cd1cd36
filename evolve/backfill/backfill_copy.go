package backfill

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/internal/tokenscan"
)

// rangeStats counts what one range copied.
type rangeStats struct{ rows, bytes int64 }

// readRange reads rg and queues the writes of its target rows, o.InFlight at a time; the
// range is copied once the writeSet's wait says every one succeeded. A read that fails is
// split: the rest of the range, from the last partition read whole, is cut in two and each
// half read again, up to o.MaxSplits times in all. On an error the writes sent are waited
// for before it returns.
func (r *run) readRange(ctx context.Context, rg tokenscan.Range, wr *rowWriter) (rangeStats, *writeSet, error) {
	var st rangeStats
	w := newWriteSet(ctx, r, r.o.InFlight)
	stack := []tokenscan.Range{rg}
	splits := 0
	for len(stack) > 0 {
		part := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		reached, err := r.readPart(ctx, part, wr, w, &st)
		if err == nil {
			continue
		}
		if ctx.Err() != nil || tokenscan.Refused(err) || errors.Is(err, errWrite) {
			w.wait()
			return st, nil, err
		}
		rest := tokenscan.Range{Lo: reached, Hi: part.Hi}
		a, b, ok := rest.Halves()
		if !ok || splits >= r.o.MaxSplits {
			w.wait()
			return st, nil, fmt.Errorf("read (%d, %d] after %d splits: %w", rest.Lo, rest.Hi, splits, err)
		}
		splits++
		r.mu.Lock()
		r.res.Splits++
		r.mu.Unlock()
		stack = append(stack, b, a) // a first: the walk stays in token order
	}
	return st, w, nil
}

// readPart reads (part.Lo, part.Hi] and queues the writes of its rows. On a read error it
// returns the last token whose partition was read whole, where a retry starts.
func (r *run) readPart(ctx context.Context, part tokenscan.Range, wr *rowWriter, w *writeSet, st *rangeStats) (int64, error) {
	rctx := ctx
	if r.o.PartTimeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, r.o.PartTimeout)
		defer cancel()
	}
	reached := part.Lo
	var cur int64
	started := false
	err := r.reader.scanPages(func(state []byte) *gocql.Query {
		return r.s.Query(r.reader.stmt, part.Lo, part.Hi).WithContext(rctx).Consistency(r.o.ReadConsistency).
			PageSize(r.o.PageSize).PageState(state).Idempotent(true)
	}, nil, func(row *sourceRow) (bool, error) {
		if err := r.limiter.Take(rctx, 1); err != nil {
			return false, err
		}
		if err := rctx.Err(); err != nil { // the part's time is up, even within a page
			return false, fmt.Errorf("read for longer than %s: %w", r.o.PartTimeout, err)
		}
		if started && row.token != cur {
			reached = cur // every row of the partition at cur has been read
		}
		if !started || row.token != cur {
			r.partitions.Add(1)
		}
		cur, started = row.token, true
		return true, r.queueRow(row, wr, w, st)
	})
	if err != nil {
		return reached, err
	}
	return part.Hi, nil
}

// queueRow queues the writes of one source row's target rows.
func (r *run) queueRow(row *sourceRow, wr *rowWriter, w *writeSet, st *rangeStats) error {
	st.rows++
	st.bytes += row.bytes
	r.rows.Add(1)
	r.bytes.Add(row.bytes)
	targets := 0
	err := r.b.build(row, func(tr *targetRow) error {
		targets++
		return w.send(wr.statements(tr))
	})
	if err != nil {
		if errors.Is(err, errWrite) {
			return err
		}
		return fmt.Errorf("%w: %w", errWrite, err)
	}
	if targets == 0 {
		r.skipped.Add(1)
	}
	if len(row.meta) == 0 {
		r.keyOnly.Add(1)
	}
	r.report(false)
	return nil
}

// errWrite marks a failure to write (or to derive) a target row: splitting the read does
// not help.
var errWrite = errors.New("write the target rows")

// writeSet sends statements concurrently, a bounded number at a time, and remembers the
// first failure.
type writeSet struct {
	ctx    context.Context
	r      *run
	sem    chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
	policy gocql.RetryPolicy
	// acked counts the target rows the node acknowledged, refused those it answered with
	// an error after every retry: a row is written when acknowledged, not when sent.
	acked, refused atomic.Int64
}

func newWriteSet(ctx context.Context, r *run, n int) *writeSet {
	return &writeSet{ctx: ctx, r: r, sem: make(chan struct{}, n), policy: r.policy}
}

func (w *writeSet) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// send queues the statements of one target row, sent together as one unlogged batch (all
// of one partition: one round trip and one mutation, applied whole) by one of the run's
// writers; it fails when an earlier write failed, so the range stops early.
func (w *writeSet) send(stmts []statement) error {
	if err := w.failed(); err != nil {
		return err
	}
	select {
	case w.sem <- struct{}{}:
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
	w.wg.Add(1)
	select {
	case w.r.writes <- writeJob{w: w, stmts: stmts}:
		return nil
	case <-w.ctx.Done():
		<-w.sem
		w.wg.Done()
		return w.ctx.Err()
	}
}

// writeJob is one target row's statements, for the writer that sends them.
type writeJob struct {
	w     *writeSet
	stmts []statement
}

// startWriters starts n writers that send the rows every range queues, and returns what
// stops them once no range queues any more. Writers that live as long as the run, rather
// than a goroutine a row: each one's stack grows once to what the driver needs, not once
// a row (the copying of new stacks was a twelfth of the copy's CPU).
func (r *run) startWriters(n int) (stop func()) {
	r.writes = make(chan writeJob)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range r.writes {
				j.w.write(j.stmts)
			}
		}()
	}
	return func() {
		close(r.writes)
		wg.Wait()
	}
}

// write sends one row's statements and counts the outcome in its writeSet.
func (w *writeSet) write(stmts []statement) {
	defer func() { <-w.sem; w.wg.Done() }()
	err := w.exec(stmts)
	if err == nil {
		w.acked.Add(1)
		w.r.targetRows.Add(1)
		return
	}
	if w.ctx.Err() == nil { // not a write the run stopped, one the node answered with an error
		w.refused.Add(1)
		w.r.refused.Add(1)
	}
	w.mu.Lock()
	if w.err == nil {
		w.err = fmt.Errorf("%w: %s: %w", errWrite, stmts[0].cql, err)
	}
	w.mu.Unlock()
}

// exec sends the idempotent statements of one row, retried by the policy, again when the
// driver cancelled them on its own, and again with backoff for o.RetryFor while they fail
// with transient trouble (a node lost: their TTLs are counted down anew each time).
func (w *writeSet) exec(stmts []statement) error {
	return retryFor(w.ctx, w.r.o.RetryFor, func() error {
		return denorm.ResendCancelled(w.ctx, func() error { return w.once(stmts) })
	})
}

// once sends the statements of one row once: alone, or as one batch.
func (w *writeSet) once(stmts []statement) error {
	now := time.Now()
	if len(stmts) == 1 {
		err := w.r.s.Query(stmts[0].cql, stmts[0].argsAt(now)...).WithContext(w.ctx).Consistency(w.r.o.WriteConsistency).
			Idempotent(true).RetryPolicy(w.policy).Exec()
		if err == nil {
			w.r.statements.Add(1)
		}
		return err
	}
	b := w.r.s.NewBatch(gocql.UnloggedBatch).WithContext(w.ctx).RetryPolicy(w.policy)
	b.SetConsistency(w.r.o.WriteConsistency)
	for _, st := range stmts {
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: st.cql, Args: st.argsAt(now), Idempotent: true})
	}
	err := w.r.s.ExecuteBatch(b)
	if err == nil {
		w.r.statements.Add(int64(len(stmts)))
	}
	return err
}

// wait waits for every write sent and returns the first failure.
func (w *writeSet) wait() error {
	w.wg.Wait()
	return w.failed()
}
