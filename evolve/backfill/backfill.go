package backfill

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/cql/derive"
	"github.com/cqlsize/cqlsize/internal/tokenscan"
)

// Options configure Run. The zero value is the recommended setting.
type Options struct {
	// ReadConsistency of the source reads (default LOCAL_ONE).
	ReadConsistency gocql.Consistency
	// WriteConsistency of the target writes and of the checkpoint (default LOCAL_QUORUM).
	WriteConsistency gocql.Consistency
	// Rate bounds the source rows read a second, over all workers (0: no limit).
	Rate float64
	// Workers is how many token ranges are copied at once (default 8: as many as a
	// hand-written parallel copy reads, so the wait for each range's first page is hidden
	// behind the others').
	Workers int
	// InFlight bounds the writes of each range in flight (default 16); the run's writers,
	// Workers times InFlight, bound them all.
	InFlight int
	// Ranges is how many equal token ranges the ring is cut into (default 256): the unit of
	// checkpointing, leasing and of Share. It is recorded with the checkpoint; a run that
	// continues one must use the same number.
	Ranges int
	// PageSize is the rows of each source page (default 1000).
	PageSize int
	// Share and Shares take the Share-th of Shares equal parts of the ranges (1-based;
	// default 1 of 1), so Shares processes with no coordinator divide one backfill.
	Share, Shares int
	// Restart forgets the checkpoint and copies every range again.
	Restart bool
	// Lease is how long a claim on a range lasts unless renewed (default 30 s). A run that
	// dies holds its ranges that long.
	Lease time.Duration
	// MaxSplits bounds how many times a range whose reads fail (a timeout, too many
	// tombstones) is split in two and read again, from where it stopped (default 16).
	MaxSplits int
	// Owner names this run in the leases (default host:pid:random).
	Owner string
	// Progress, when set, is called after each range (and at most every 200 ms while rows
	// are read).
	Progress func(Progress)
	// PerHost opens a session to one node, to read system.size_estimates from every node
	// for the progress total. Nil: the answering node's only.
	PerHost func(ctx context.Context, addr string) (*gocql.Session, error)
	// PartTimeout, when positive, bounds how long the read of one range (or of a part of a
	// range split before) may take: past it the read counts as failed and the rest is split,
	// as after a timeout the node reports. Zero: only the cluster's timeouts apply.
	PartTimeout time.Duration
	// Wait is how long to wait between looks at ranges another run holds (default 2 s).
	Wait time.Duration
	// RetryFor is how long a write, a lease claim or a checkpoint read or write that
	// fails with a timeout, replicas unavailable or a connection lost (a node down or
	// restarting) is sent again, with backoff, before its range counts as failed (default
	// 1 minute; negative: never sent again beyond the driver's own retries).
	RetryFor time.Duration
	// SerialConsistency of the checkpoint's lightweight transactions: the range leases and
	// the checkpoint's start (default SERIAL, a quorum of every DC's replicas). A run pinned
	// to one DC takes LOCAL_SERIAL, so the loss of another DC does not stop its claims; two
	// runs in two DCs could then both hold a range, which costs a second copy of the same
	// rows with the same write times, not a wrong one.
	SerialConsistency gocql.SerialConsistency
}

func (o Options) withDefaults() (Options, error) {
	if o.SerialConsistency == 0 {
		o.SerialConsistency = gocql.Serial
	}
	if o.ReadConsistency == gocql.Any {
		o.ReadConsistency = gocql.LocalOne
	}
	if o.WriteConsistency == gocql.Any {
		o.WriteConsistency = gocql.LocalQuorum
	}
	if o.Rate < 0 {
		return o, fmt.Errorf("backfill: rate %g: must not be negative", o.Rate)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Workers, 8)
	def(&o.InFlight, 16)
	def(&o.Ranges, 256)
	def(&o.PageSize, 1000)
	def(&o.MaxSplits, 16)
	if o.Shares == 0 && o.Share == 0 {
		o.Share, o.Shares = 1, 1
	}
	if o.Workers < 0 || o.InFlight < 0 || o.Ranges < 0 || o.PageSize < 0 || o.MaxSplits < 0 {
		return o, errors.New("backfill: workers, in-flight writes, ranges, page size and splits must not be negative")
	}
	if o.Shares < 1 || o.Share < 1 || o.Share > o.Shares || o.Shares > o.Ranges {
		return o, fmt.Errorf("backfill: share %d of %d: want 1 <= share <= shares <= ranges (%d)", o.Share, o.Shares, o.Ranges)
	}
	if o.Rate > 0 && float64(o.PageSize) > o.Rate {
		o.PageSize = max(1, int(o.Rate))
	}
	if o.Lease == 0 {
		o.Lease = 30 * time.Second
	}
	if o.Lease < 4*time.Second {
		return o, fmt.Errorf("backfill: lease %s: want at least 4s", o.Lease)
	}
	if o.Wait == 0 {
		o.Wait = 2 * time.Second
	}
	if o.RetryFor == 0 {
		o.RetryFor = time.Minute
	}
	if o.Owner == "" {
		host, _ := os.Hostname()
		o.Owner = fmt.Sprintf("%s:%d:%08x", host, os.Getpid(), rand.Uint32())
	}
	return o, nil
}

// Progress is where a backfill stands.
type Progress struct {
	Ranges      int     // ranges of this share
	RangesDone  int     // copied, by this run or before it
	Fraction    float64 // of this share's token ring copied
	Rows        int64   // source rows read by this run
	TargetRows  int64   // target rows written by this run
	Bytes       int64   // value bytes read by this run (about as stored)
	TotalRows   float64 // this share's source rows, from system.size_estimates (0: unknown)
	TotalBytes  float64
	Elapsed     time.Duration
	ETA         time.Duration // from the ring this run copied so far; 0 until known
	HeldByOther int           // ranges another run is copying now
}

// Result is what a backfill did.
type Result struct {
	Backfill        string        `json:"backfill"`
	Share           int           `json:"share"`
	Shares          int           `json:"shares"`
	Ranges          int           `json:"ranges"`        // of this share
	RangesCopied    int           `json:"ranges_copied"` // by this run
	RangesDone      int           `json:"ranges_done"`   // before this run, or by another run during it
	RangesFailed    int           `json:"ranges_failed"` // left for the next run
	Rows            int64         `json:"rows"`          // source rows read
	TargetRows      int64         `json:"target_rows"`   // target rows written: acknowledged by the node
	RefusedRows     int64         `json:"refused_rows"`  // target rows whose write failed after its retries (not written, or in doubt)
	Statements      int64         `json:"statements"`    // statements acknowledged
	KeyOnlyRows     int64         `json:"key_only_rows"` // source rows with no live cell in the columns read (written at the oldest time, 1 µs)
	SkippedRows     int64         `json:"skipped_rows"`  // source rows that give no target row (a key from a null, an empty each())
	Bytes           int64         `json:"bytes"`         // value bytes read
	Splits          int           `json:"splits"`        // ranges split after a failed read
	LeasesLost      int           `json:"leases_lost"`   // ranges whose copy stopped when their lease was lost (counted in ranges_failed)
	Elapsed         time.Duration `json:"-"`
	ElapsedSeconds  float64       `json:"elapsed_seconds"`
	RowsPerSecond   float64       `json:"rows_per_second"`
	Failures        []string      `json:"failures,omitempty"`
	Warnings        []string      `json:"warnings,omitempty"` // what was copied with less than the source has (key-only rows' TTLs)
	EstimatedRows   float64       `json:"estimated_rows,omitempty"`
	EstimatedBytes  float64       `json:"estimated_bytes,omitempty"`
	ConsistencyRead string        `json:"read_consistency"`
}

// KeyOnlyWarning says what became of n source rows with key columns only: CQL shows
// neither the write time nor the TTL of a row's primary key (its row marker), so their
// copies are written at 1 µs with no TTL, and a source row inserted with a TTL does not
// expire in the target.
func KeyOnlyWarning(n int64) string {
	return fmt.Sprintf("%d source rows have key columns only: CQL cannot read their write time or TTL, so they were copied at the oldest time (1 µs) and with no TTL; if they were inserted with a TTL, their copies do not expire", n)
}

// Complete reports whether every range of the share is copied.
func (r *Result) Complete() bool {
	return r.RangesFailed == 0 && r.RangesCopied+r.RangesDone == r.Ranges
}

// Error is a backfill that copied some ranges and could not copy others; its
// Result says which. Run it again: it continues with the ranges left.
type Error struct {
	Result *Result
	Err    error // the first failure
}

func (e *Error) Error() string {
	return fmt.Sprintf("backfill %s: %d of %d ranges not copied: %v", e.Result.Backfill, e.Result.RangesFailed, e.Result.Ranges, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Run copies every row of p's source table into its target table, as p derives the
// target rows: the same program a service's dual writes use through denorm.MapValues, so both
// write the same rows.
//
// Each target cell is written with its source cell's write time (USING TIMESTAMP) and
// remaining TTL, so a row the service deleted or updated while the copy ran stays deleted
// or updated: the service's write is newer than the copied one. Cells of one row with
// different write times go in different statements. A row's liveness (what keeps a row
// whose cells are all null) takes the write time of its oldest cell; a row fanned out of a
// non-frozen collection's element, that element's; a source row with no live regular cell
// (key columns only), whose write time CQL cannot show, the oldest write time there is,
// 1 µs, with no TTL, so every delete or write of the service wins over it, whenever it
// was made (in a target table that is not new, so does every older tombstone).
//
// The ring is cut into o.Ranges ranges; o.Workers of them are read at once, paged, at
// o.ReadConsistency and at most o.Rate rows a second. A range whose read fails (a timeout,
// too many tombstones, replicas down) is split in two from where it stopped and read
// again, up to o.MaxSplits times. Each range copied is recorded in ProgressTable in the
// target's keyspace, so a run that was stopped continues with the ranges left (o.Restart
// starts over); each range is copied under a lease (LWT with a TTL in LeaseTable), so two
// runs never copy a range at the same time: a run waits for the ranges another holds.
//
// The error is an *Error when some ranges could not be copied, a *MismatchError
// when the checkpoint was made with other rules, or what stopped the run (ctx, the
// bookkeeping tables); the result is returned with it when there is one.
func Run(ctx context.Context, s *gocql.Session, p *derive.Program, o Options) (*Result, error) {
	if s == nil || p == nil {
		return nil, errors.New("backfill: no session or no program")
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	src, dst := p.SourceTable(), p.TargetTable()
	b, reader, err := newCopier(p)
	if err != nil {
		return nil, err
	}
	// The target writes take the retry policy a Model's cluster has (idempotent statements
	// only, on the next host), with backoffs of 100 ms to 2 s.
	policy, err := denorm.NewRetryPolicy(denorm.ClusterOptions{Retries: denorm.DefaultRetries, MinBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("backfill: %w", err)
	}
	ck := &checkpoint{s: s, id: backfillID(src, dst), consistency: o.WriteConsistency, serial: o.SerialConsistency, ttl: o.Lease, owner: o.Owner, retry: o.RetryFor,
		progress: cql.QuoteName(dst.Keyspace) + "." + ProgressTable, lease: cql.QuoteName(dst.Keyspace) + "." + LeaseTable}
	if err := murmur3(ctx, s); err != nil {
		return nil, err
	}
	if err := ck.ensure(ctx, dst.Keyspace); err != nil {
		return nil, err
	}
	all := tokenscan.Even(o.Ranges)
	mine := all[(o.Share-1)*len(all)/o.Shares : o.Share*len(all)/o.Shares]
	if o.Restart {
		if err := ck.restart(ctx, mine[0].Lo, mine[len(mine)-1].Hi, o.Ranges, programText(p)); err != nil {
			return nil, err
		}
	}
	if err := ck.begin(ctx, o.Ranges, programText(p)); err != nil {
		return nil, err
	}
	r := &run{s: s, o: o, b: b, reader: reader, ck: ck, policy: policy, started: time.Now(),
		res: &Result{Backfill: ck.id, Share: o.Share, Shares: o.Shares, Ranges: len(mine), ConsistencyRead: o.ReadConsistency.String()}}
	r.estimate(ctx, src.Keyspace, src.Name, mine)
	err = r.loop(ctx, mine)
	res := r.res
	res.Elapsed = time.Since(r.started)
	res.ElapsedSeconds = res.Elapsed.Seconds()
	if res.ElapsedSeconds > 0 {
		res.RowsPerSecond = float64(res.Rows) / res.ElapsedSeconds
	}
	if err != nil {
		return res, err
	}
	if res.RangesFailed > 0 {
		return res, &Error{Result: res, Err: r.firstErr}
	}
	return res, nil
}

// murmur3 checks that the cluster's tokens are Murmur3Partitioner's, the ones the ranges
// are cut from.
func murmur3(ctx context.Context, s *gocql.Session) error {
	var partitioner string
	if err := s.Query(`SELECT partitioner FROM system.local`).WithContext(ctx).Consistency(gocql.One).Scan(&partitioner); err != nil {
		return fmt.Errorf("backfill: read the partitioner from system.local: %w", err)
	}
	if !strings.HasSuffix(partitioner, ".Murmur3Partitioner") {
		return fmt.Errorf("backfill: the cluster's partitioner is %s: the token ranges are cut for Murmur3Partitioner", partitioner)
	}
	return nil
}

// programText is the program's rules, to tell a changed backfill apart in the checkpoint.
func programText(p *derive.Program) string {
	var cols []string
	for _, t := range p.Columns() {
		cols = append(cols, t.Column+"="+t.Expr.String())
	}
	return rulesText(cols)
}

// run is one Run call's state.
type run struct {
	s       *gocql.Session
	o       Options
	b       *rowBuilder
	reader  *sourceReader
	ck      *checkpoint
	policy  gocql.RetryPolicy // of the target writes
	limiter *tokenscan.Limiter
	started time.Time
	writes  chan writeJob // to the writers (startWriters)

	mu       sync.Mutex
	res      *Result
	firstErr error
	doneW    float64 // ring width of this share done (before or by this run)
	copiedW  float64 // by this run
	shareW   float64
	held     int
	lastProg time.Time

	rows, targetRows, refused, bytes, statements, keyOnly, skipped atomic.Int64
	// partitions read, and the share's partitions by system.size_estimates: the rows to
	// expect are those partitions times the rows a partition read so far holds.
	partitions    atomic.Int64
	estPartitions float64
}

// expectedRows is the share's source rows projected from size_estimates' partition count
// and the rows per partition read so far; 0 (unknown) before a partition of a table with
// clustering columns is read, since a partition there holds any number of rows.
func (r *run) expectedRows() float64 {
	if n := r.partitions.Load(); n > 0 {
		return r.estPartitions * float64(r.rows.Load()) / float64(n)
	}
	if len(r.b.p.SourceTable().Clustering) == 0 {
		return r.estPartitions
	}
	return 0
}

// estimate reads the source's size for the progress total.
func (r *run) estimate(ctx context.Context, ks, table string, mine []tokenscan.Range) {
	for _, rg := range mine {
		r.shareW += rg.Width()
	}
	ectx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var size tokenscan.Size
	if r.o.PerHost != nil {
		if addrs, err := tokenscan.NodeAddrs(ectx, r.s); err == nil && len(addrs) > 1 {
			est := tokenscan.NewEstimator(r.o.PerHost, addrs)
			size, _, _ = est.Sum(ectx, ks, table)
			est.Close()
		}
	}
	if size.Partitions == 0 {
		size, _ = tokenscan.SizeEstimates(ectx, r.s, ks, table)
	}
	// size_estimates counts partitions; rows per partition are known once some are read.
	r.estPartitions, r.res.EstimatedBytes = size.Partitions*r.shareW, size.Bytes*r.shareW
	r.res.EstimatedRows = r.expectedRows()
}

// loop copies the share's ranges not yet done, in rounds: a round hands every range left
// to the workers; ranges another run holds are looked at again after o.Wait.
func (r *run) loop(ctx context.Context, mine []tokenscan.Range) error {
	r.limiter = tokenscan.NewLimiter(r.o.Rate)
	defer r.startWriters(r.o.Workers * r.o.InFlight)()
	left := mine
	for round := 0; len(left) > 0; round++ {
		done, err := r.ck.done(ctx)
		if err != nil {
			return err
		}
		var todo []tokenscan.Range
		r.mu.Lock()
		r.doneW, r.held = 0, 0
		for _, rg := range mine {
			if _, ok := done[rg.Lo]; ok {
				r.doneW += rg.Width()
			}
		}
		r.mu.Unlock()
		for _, rg := range left {
			if _, ok := done[rg.Lo]; ok {
				// Done before this run, or, in a later round, by the run that held it.
				r.mu.Lock()
				r.res.RangesDone++
				r.mu.Unlock()
				continue
			}
			todo = append(todo, rg)
		}
		if len(todo) == 0 {
			break
		}
		if round > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(r.o.Wait):
			}
		}
		held, err := r.round(ctx, todo)
		if err != nil {
			return err
		}
		left = held
	}
	r.report(true)
	return nil
}

// round copies todo with o.Workers workers and returns the ranges another run held.
// Claims run ahead of the copying (claimers take up to o.Workers ranges before a worker is
// free), and a worker reads its next range while the writes of the one before finish (at
// most two ranges finishing a worker): the checkpoint's round trips, lightweight
// transactions among them, then do not stall the reads.
func (r *run) round(ctx context.Context, todo []tokenscan.Range) ([]tokenscan.Range, error) {
	jobs := make(chan tokenscan.Range)
	ready := make(chan claimed, r.o.Workers)
	var claimers, workers, finishing sync.WaitGroup
	var mu sync.Mutex
	var held []tokenscan.Range
	var stop error
	stopWith := func(err error) {
		mu.Lock()
		if stop == nil {
			stop = err
		}
		mu.Unlock()
	}
	for c := 0; c < min(r.o.Workers/2+1, len(todo)); c++ {
		claimers.Add(1)
		go func() {
			defer claimers.Done()
			for rg := range jobs {
				cl, h, err := r.claim(ctx, rg)
				switch {
				case err != nil:
					stopWith(err)
				case h:
					mu.Lock()
					held = append(held, rg)
					mu.Unlock()
				case cl.release != nil:
					ready <- cl
				}
			}
		}()
	}
	for w := 0; w < min(r.o.Workers, len(todo)); w++ {
		workers.Add(1)
		go func() {
			defer workers.Done()
			wr := newRowWriter(r.b)
			pending := make(chan struct{}, 2)
			for cl := range ready {
				finish, err := r.copy(ctx, cl, wr)
				if err != nil {
					stopWith(err)
				}
				if finish != nil {
					pending <- struct{}{}
					finishing.Add(1)
					go func() {
						defer func() { <-pending; finishing.Done() }()
						finish()
					}()
				}
			}
		}()
	}
	for _, rg := range todo {
		if ctx.Err() != nil {
			break
		}
		jobs <- rg
	}
	close(jobs)
	claimers.Wait()
	close(ready)
	workers.Wait()
	finishing.Wait()
	if stop == nil {
		stop = ctx.Err()
	}
	return held, stop
}

// claimed is a range this run holds the lease on.
type claimed struct {
	rg      tokenscan.Range
	ctx     context.Context // cancelled when the lease is lost
	release func()
}

// claim takes the lease on rg. held: another run holds it; a zero claimed and no error:
// the range turned out done (or failed, and is counted). The error stops the run.
func (r *run) claim(ctx context.Context, rg tokenscan.Range) (claimed, bool, error) {
	rctx, release, owner, err := r.ck.claim(ctx, rg.Lo)
	if err != nil {
		if ctx.Err() != nil {
			return claimed{}, false, ctx.Err()
		}
		r.fail(rg, err)
		return claimed{}, false, nil
	}
	if owner != "" {
		r.mu.Lock()
		r.held++
		r.mu.Unlock()
		return claimed{}, true, nil
	}
	// Another run may have finished it between the look at the checkpoint and the claim.
	if done, err := r.ck.isDone(rctx, rg.Lo); err != nil || done {
		release()
		if err != nil {
			r.fail(rg, err)
			return claimed{}, false, nil
		}
		r.mu.Lock()
		r.res.RangesDone++
		r.doneW += rg.Width()
		r.mu.Unlock()
		return claimed{}, false, nil
	}
	return claimed{rg: rg, ctx: rctx, release: release}, false, nil
}

// copy reads a claimed range, queueing its writes; finish, when not nil, waits for the
// writes, records the range as copied and lets the lease go. The error stops the run
// (ctx); a range that fails is counted and left.
func (r *run) copy(ctx context.Context, cl claimed, wr *rowWriter) (finish func(), stop error) {
	rg, rctx := cl.rg, cl.ctx
	st, w, err := r.readRange(rctx, rg, wr)
	if err != nil {
		cl.release()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.fail(rg, r.leaseCause(rctx, err))
		return nil, nil
	}
	return func() {
		defer cl.release()
		if err := w.wait(); err != nil {
			r.fail(rg, r.leaseCause(rctx, err))
			return
		}
		mctx, mdone := recordContext(rctx)
		defer mdone()
		if err := r.ck.markDone(mctx, rangeDone{lo: rg.Lo, hi: rg.Hi, rows: st.rows, targetRows: w.acked.Load(), bytes: st.bytes}); err != nil {
			r.fail(rg, r.leaseCause(rctx, err))
			return
		}
		r.mu.Lock()
		r.res.RangesCopied++
		r.doneW += rg.Width()
		r.copiedW += rg.Width()
		r.mu.Unlock()
		r.report(true)
	}, nil
}

// recordContext is the context a copied range is recorded under. Its writes are all
// acknowledged, so the range is copied whatever the run does next: a stop (Ctrl-C, a
// failed range elsewhere) must not cut the record short, or the checkpoint may hold a
// range the run reports as not copied, or a copied range goes unrecorded and is read
// again. Only a lost lease ends it (another run owns the range now), and a minute bounds it.
func recordContext(rctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(rctx), time.Minute)
	stop := context.AfterFunc(rctx, func() {
		if errors.Is(context.Cause(rctx), ErrLeaseLost) {
			cancel()
		}
	})
	return ctx, func() { stop(); cancel() }
}

// leaseCause says so when err came from the range's lease being lost.
func (r *run) leaseCause(rctx context.Context, err error) error {
	if cause := context.Cause(rctx); errors.Is(cause, ErrLeaseLost) {
		return fmt.Errorf("%w: %v", cause, err)
	}
	return err
}

func (r *run) fail(rg tokenscan.Range, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.RangesFailed++
	if errors.Is(err, ErrLeaseLost) {
		r.res.LeasesLost++
	}
	r.res.Failures = append(r.res.Failures, fmt.Sprintf("range (%d, %d]: %v", rg.Lo, rg.Hi, err))
	if r.firstErr == nil {
		r.firstErr = err
	}
}

// report folds the counters into the result and calls o.Progress (at most every 200 ms
// unless force).
func (r *run) report(force bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.EstimatedRows = r.expectedRows()
	res := r.res
	res.Rows, res.TargetRows, res.Bytes = r.rows.Load(), r.targetRows.Load(), r.bytes.Load()
	res.Statements, res.KeyOnlyRows, res.SkippedRows = r.statements.Load(), r.keyOnly.Load(), r.skipped.Load()
	res.RefusedRows = r.refused.Load()
	if res.KeyOnlyRows > 0 {
		res.Warnings = []string{KeyOnlyWarning(res.KeyOnlyRows)}
	}
	if r.o.Progress == nil || !force && time.Since(r.lastProg) < 200*time.Millisecond {
		return
	}
	r.lastProg = time.Now()
	p := Progress{Ranges: res.Ranges, RangesDone: res.RangesDone + res.RangesCopied, Rows: res.Rows, TargetRows: res.TargetRows,
		Bytes: res.Bytes, TotalRows: res.EstimatedRows, TotalBytes: res.EstimatedBytes, Elapsed: time.Since(r.started), HeldByOther: r.held}
	if r.shareW > 0 {
		p.Fraction = min(1, r.doneW/r.shareW)
	}
	if r.copiedW > 0 && r.doneW < r.shareW {
		p.ETA = time.Duration(float64(p.Elapsed) * (r.shareW - r.doneW) / r.copiedW)
	}
	r.o.Progress(p)
}
