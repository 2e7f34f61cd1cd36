package migrations

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// Migrator applies one set of migrations to one target keyspace.
type Migrator struct {
	s         *gocql.Session
	migs      []*Migration
	byVersion map[int64]*Migration
	opt       Options
	st        *store
	// unbound: the session has no keyspace, so each statement of a file is sent with its
	// unqualified names qualified with opt.Keyspace (see qualify.go).
	unbound bool
	// lostAnswer, set only by tests, replaces the error of statement i after it was sent,
	// as when the coordinator's answer is lost: the statement reached the node, its outcome
	// is unknown to this run.
	lostAnswer func(i int, err error) error
	// bootstrapped is the version whose first statement, the target keyspace's CREATE
	// KEYSPACE, this run recorded as done without sending it (see recordBootstrap).
	bootstrapped int64
}

// New returns a Migrator for the migrations (as Load returns them). It checks the options
// and the set but does not touch the cluster.
//
// The session must be bound to opt.Keyspace (ClusterConfig.Keyspace) or to no keyspace.
// A session bound to another keyspace is refused with ErrWrongKeyspace: the files'
// unqualified names would resolve to the session's keyspace while the history is recorded
// for opt.Keyspace. With an unbound session, Up qualifies every unqualified name of a file
// with opt.Keyspace before sending it, so a keyspace created from Options.Replication is
// migrated end to end.
//
// The session's keyspace is read from the driver: gocql runs `USE <ClusterConfig.Keyspace>`
// on every connection it opens and refuses USE statements (ErrUseStmt), so the keyspace a
// session's unqualified names resolve to is exactly its ClusterConfig.Keyspace, which
// Query.Keyspace reports for a query with no routing information.
func New(s *gocql.Session, migs []*Migration, opt Options) (*Migrator, error) {
	if s == nil {
		return nil, errors.New("migrations: no session")
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	bound := sessionKeyspace(s)
	if bound != "" && bound != opt.Keyspace {
		return nil, &WrongKeyspaceError{Session: bound, Keyspace: opt.Keyspace}
	}
	m := &Migrator{s: s, opt: opt, byVersion: map[int64]*Migration{}, st: newStore(s, opt), unbound: bound == ""}
	for _, mg := range migs {
		if prev := m.byVersion[mg.Version]; prev != nil {
			return nil, fmt.Errorf("migrations: %s and %s: %w", prev.File, mg.File, ErrDuplicateVersion)
		}
		m.byVersion[mg.Version] = mg
		m.migs = append(m.migs, mg)
	}
	sort.Slice(m.migs, func(i, j int) bool { return m.migs[i].Version < m.migs[j].Version })
	if err := CheckBookkeeping(m.migs, opt.BookkeepingKeyspace); err != nil {
		return nil, err
	}
	return m, nil
}

// Options returns the options in effect, defaults filled in.
func (m *Migrator) Options() Options { return m.opt }

func (m *Migrator) emit(e Event) {
	if m.opt.OnEvent != nil {
		m.opt.OnEvent(e)
	}
}

// StatusState is what Status says about one migration.
type StatusState string

// Status states.
const (
	StatusPending  StatusState = "pending"  // not applied
	StatusApplied  StatusState = "applied"  // applied, file unchanged
	StatusBaseline StatusState = "baseline" // marked applied by Baseline
	StatusChanged  StatusState = "changed"  // applied, but the file changed since (checksum mismatch)
	StatusPartial  StatusState = "partial"  // some statements ran: a run died or a statement failed
	StatusMissing  StatusState = "missing"  // recorded as applied, but no file has this version
	// StatusInDoubt: a run stopped at a statement that may have been applied and cannot be
	// sent again safely; `cqlsize migrate resolve` records a person's decision.
	StatusInDoubt StatusState = "in-doubt"
)

// Status is one line of `cqlsize migrate status`.
type Status struct {
	Version   int64
	File      string
	State     StatusState
	Migration *Migration // nil when State is missing
	Record    *Record    // nil when State is pending
	Err       error      // for changed: the *ChecksumError
}

func (m *Migrator) statuses(recs map[int64]*Record) []Status {
	var out []Status
	for _, mg := range m.migs {
		st := Status{Version: mg.Version, File: mg.File, Migration: mg, Record: recs[mg.Version]}
		r := st.Record
		switch {
		case r == nil:
			st.State = StatusPending
		case r.Complete():
			st.State = StatusApplied
			if r.State == Baseline {
				st.State = StatusBaseline
			}
			if r.Checksum != mg.Checksum {
				st.State = StatusChanged
				st.Err = &ChecksumError{File: mg.File, Version: mg.Version, Recorded: r.Checksum, Current: mg.Checksum}
			}
		default:
			st.State = StatusPartial
			if r.State == InDoubt && r.Running > 0 {
				st.State = StatusInDoubt
			}
			if i := changedStatement(mg, r); i > 0 {
				st.Err = &ChecksumError{File: mg.File, Version: mg.Version, Recorded: r.Checksum, Current: mg.Checksum, Statement: i}
			}
		}
		out = append(out, st)
	}
	for _, v := range sortedVersions(recs) {
		if m.byVersion[v] == nil {
			out = append(out, Status{Version: v, File: recs[v].Name, State: StatusMissing, Record: recs[v]})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out
}

// changedStatement returns the first statement of a partly applied file that ran and has
// changed since (1-based), or 0. A file may be fixed after a failure as long as what
// already ran stays as it was.
func changedStatement(mg *Migration, r *Record) int {
	if r.Checksum == mg.Checksum {
		return 0
	}
	for i := 1; i <= r.Applied; i++ {
		if i > len(mg.Statements) || r.StatementSums[i] != mg.Statements[i-1].Checksum {
			return i
		}
	}
	return 0
}

// Status reads the bookkeeping table (without creating it) and says where each
// migration stands.
func (m *Migrator) Status(ctx context.Context) ([]Status, error) {
	recs, err := m.readRecords(ctx)
	if err != nil {
		return nil, err
	}
	return m.statuses(recs), nil
}

func (m *Migrator) readRecords(ctx context.Context) (map[int64]*Record, error) {
	ok, err := m.st.exists(ctx)
	if err != nil || !ok {
		return map[int64]*Record{}, err
	}
	recs, err := m.records(ctx)
	if err != nil && notYetCreated(err) {
		// system_schema lists a table another process is creating right now a moment
		// before the node can query it: it holds no records yet.
		return map[int64]*Record{}, nil
	}
	return recs, err
}

// records reads the history (see store.records).
func (m *Migrator) records(ctx context.Context) (map[int64]*Record, error) {
	return m.st.records(ctx)
}

// lock takes the lease (see acquire), then adds the fence columns to a bookkeeping table
// created by an earlier version and fences the bookkeeping to this run (takeOver), so that
// the previous holder, should it still be running, can record nothing more.
//
// A run's lightweight transactions, and what each protects:
//   - the lease (INSERT ... IF NOT EXISTS in the _lock table): one process at a time
//     migrates; its TTL frees it when the holder dies; renewals (UPDATE ... IF owner) keep
//     it; the release (DELETE ... IF owner) lets a waiter in without waiting out the TTL;
//   - the fence (takeOver, UPDATE ... IF lock_owner != owner): orders this run after every
//     write of a previous holder that may still be running (paused past its lease), whose
//     later writes are refused;
//   - each intent, done record and finish (UPDATE ... IF lock_owner = owner): nothing is
//     sent before a record a successor will see, and nothing is recorded by a run that
//     lost the lease.
//
// The lease and the fence are two rounds because Paxos orders one partition and they live
// in two tables: the lease partition is keyed by the target alone, in the table every
// earlier cqlsize takes it in; moving it into the history's partition would let a process
// of an older version and one of this version hold "the" lease at once.
func (m *Migrator) lock(ctx context.Context, needed func(context.Context) (bool, error)) (*lease, error) {
	l, err := m.st.acquire(ctx, m.emit, needed)
	if err != nil {
		return nil, err
	}
	err = m.st.ensureFenceColumns(l.ctx)
	if err == nil {
		err = l.check()
	}
	if err == nil {
		err = m.st.takeOver(l.ctx, l.owner)
	}
	if err != nil {
		_ = l.release()
		return nil, err
	}
	return l, nil
}

// Step is one statement Up would run.
type Step struct {
	Migration *Migration
	Index     int // 1-based statement number in the file
	Statement Statement
	Resume    bool // the file is partly applied and this run continues it
	// InFlight: a run died while this statement was running, so it may already be applied
	// (the runner counts it done if running it again says so).
	InFlight bool
}

// plan lists what Up(to) would apply given the records, or why it refuses to.
func (m *Migrator) plan(recs map[int64]*Record, to int64) ([]Step, error) {
	if err := m.renumbered(recs); err != nil {
		return nil, err
	}
	var maxDone int64 = -1
	var maxFile string
	for _, st := range m.statuses(recs) {
		if st.Err != nil {
			return nil, st.Err
		}
		if st.Record != nil && st.Version > maxDone {
			maxDone, maxFile = st.Version, st.File
		}
	}
	var steps []Step
	for _, mg := range m.migs {
		if to > 0 && mg.Version > to {
			break
		}
		r := recs[mg.Version]
		if r != nil && r.Complete() {
			continue
		}
		if r == nil && mg.Version < maxDone && !m.opt.AllowOutOfOrder {
			return nil, &OutOfOrderError{File: mg.File, Applied: maxFile}
		}
		from := 1
		if r != nil {
			from = r.Applied + 1
		}
		for i := from; i <= len(mg.Statements); i++ {
			steps = append(steps, Step{Migration: mg, Index: i, Statement: mg.Statements[i-1], Resume: r != nil, InFlight: m.inFlight(mg, r, i)})
		}
		if err := m.checkCalls([]*Migration{mg}); err != nil {
			return nil, err
		}
		if from > len(mg.Statements) {
			// Every statement ran but the run died before marking the file applied.
			steps = append(steps, Step{Migration: mg, Index: len(mg.Statements) + 1, Resume: true})
		}
	}
	return steps, nil
}

// inFlight reports whether r records statement i of mg as possibly sent: the statement its
// intent starts at, or one of the idempotent statements an intent covering several names.
// A statement in that range that is no longer idempotent changed after it was sent: its
// text as it is now was never sent.
func (m *Migrator) inFlight(mg *Migration, r *Record, i int) bool {
	if r == nil || r.Running <= 0 {
		return false
	}
	return i == r.Running || (i > r.Running && i <= r.inFlightEnd() && groupable(mg, i, m.opt.Keyspace))
}

// Plan returns the statements Up(to) would run, in order, reading the bookkeeping table
// (without creating it). to = 0 means every migration.
func (m *Migrator) Plan(ctx context.Context, to int64) ([]Step, error) {
	if err := m.checkVersion(to); err != nil {
		return nil, err
	}
	recs, err := m.readRecords(ctx)
	if err != nil {
		return nil, err
	}
	steps, err := m.plan(recs, to)
	return realSteps(steps), err
}

func realSteps(steps []Step) []Step {
	out := steps[:0:0]
	for _, s := range steps {
		if s.Index <= len(s.Migration.Statements) {
			out = append(out, s)
		}
	}
	return out
}

func (m *Migrator) checkVersion(v int64) error {
	if v != 0 && m.byVersion[v] == nil {
		return fmt.Errorf("version %d: %w", v, ErrUnknownVersion)
	}
	return nil
}

// pendingMigrations groups steps by file.
func pendingMigrations(steps []Step) []*Migration {
	var out []*Migration
	for _, s := range steps {
		if len(out) == 0 || out[len(out)-1] != s.Migration {
			out = append(out, s.Migration)
		}
	}
	return out
}

// Result says what a run applied.
type Result struct {
	Applied []AppliedMigration
	// Behind are the DCs that had nodes down (DCHealth.Down) while this run applied: those
	// nodes missed the bookkeeping rows and the data migrations' writes, and get them back
	// reliably only by repair (RepairPlan, once every DC is up).
	// Empty when nothing was applied or every node was up.
	Behind []DCHealth
}

// AppliedMigration is one file a run applied (or finished).
type AppliedMigration struct {
	Migration *Migration
	From      int // first statement this run ran (> 1 when it resumed a partial file)
	Duration  time.Duration
}

// Up applies every pending migration. See UpTo.
func (m *Migrator) Up(ctx context.Context) (*Result, error) { return m.UpTo(ctx, 0) }

// UpTo applies the pending migrations up to and including version to (0: all), safely
// when other processes do the same at the same moment:
//
//  0. it checks, per DC, that enough replicas are up for the lock (Preflight);
//  1. it creates the bookkeeping keyspace and tables when missing (with fixed table ids,
//     so concurrent creations agree);
//  2. it reads the bookkeeping; a changed file stops the run; nothing pending returns at
//     once, without taking the lock (the common case at every deploy);
//  3. it takes the lease, waiting for another holder, and reads the bookkeeping again;
//  4. it applies each statement after an intent that covers it, recording what ran with
//     the next write (progress.go), and waits for schema agreement after each DDL
//     statement; a failure is a *PartialError and the next run continues where this one
//     stopped.
func (m *Migrator) UpTo(ctx context.Context, to int64) (*Result, error) {
	if err := m.checkVersion(to); err != nil {
		return nil, err
	}
	// Before anything is sent, not even the bookkeeping tables' creation: a DC short of
	// replicas for the lock is named here, rather than found at the lock or mid-file.
	dcs, err := m.Preflight(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.bootstrap(ctx); err != nil {
		return nil, err
	}
	recs, err := m.st.ensure(ctx)
	if err != nil {
		return nil, err
	}
	if recs == nil {
		if recs, err = m.records(ctx); err != nil {
			return nil, err
		}
	}
	steps, err := m.plan(recs, to)
	if err != nil || len(steps) == 0 {
		return &Result{}, err
	}
	// While waiting for another process's lock, look at the bookkeeping again: when the
	// holder has applied everything this run wanted, there is nothing to wait for.
	needed := func(ctx context.Context) (bool, error) {
		recs, err := m.records(ctx)
		if err != nil {
			return true, err
		}
		steps, err := m.plan(recs, to)
		return err != nil || len(steps) > 0, nil
	}
	l, err := m.lock(ctx, needed)
	if errors.Is(err, errNoLongerNeeded) {
		m.emit(Event{Kind: NothingToDo})
		return &Result{}, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := m.applyLocked(l, to)
	err = m.unlock(l, l.explain(err))
	if res != nil && len(res.Applied) > 0 {
		for _, d := range dcs {
			if len(d.Down) > 0 {
				res.Behind = append(res.Behind, d)
			}
		}
	}
	return res, err
}

// unlock releases l after a run that ended with err, and returns the run's error. A release
// that fails after the run succeeded is a Warning event, not the run's error: what the run
// did is recorded, and the lease expires on its own within its TTL, after which a waiting
// process takes it. Failing the run would tell a deploy to retry (or stop on) work that is
// done.
func (m *Migrator) unlock(l *lease, err error) error {
	rerr := l.release()
	if rerr == nil || err != nil {
		return err
	}
	m.emit(Event{Kind: Warning, Message: rerr.Error()})
	return nil
}

func (m *Migrator) applyLocked(l *lease, to int64) (*Result, error) {
	ctx := l.ctx
	// Another process may have applied everything while this one waited.
	recs, err := m.records(ctx)
	if err != nil {
		return nil, err
	}
	run, err := gocql.RandomUUID()
	if err != nil {
		return nil, err
	}
	if recorded, err := m.recordBootstrap(l, recs, run); err != nil {
		return nil, err
	} else if recorded {
		if recs, err = m.records(ctx); err != nil {
			return nil, err
		}
	}
	steps, err := m.plan(recs, to)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	if len(steps) == 0 {
		m.emit(Event{Kind: NothingToDo})
		return res, nil
	}
	if m.opt.BeforeApply != nil {
		if err := m.opt.BeforeApply(ctx, realSteps(steps)); err != nil {
			return res, err
		}
	}
	for _, mg := range pendingMigrations(steps) {
		am, err := m.applyOne(l, mg, recs[mg.Version], run)
		if am != nil {
			res.Applied = append(res.Applied, *am)
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// resumeNote says what the bookkeeping tells about a partly applied file.
func resumeNote(mg *Migration, r *Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a run by %s pid %d", r.AppliedBy, r.PID)
	if !r.StartedAt.IsZero() {
		fmt.Fprintf(&b, " started %s", r.StartedAt.UTC().Format(time.RFC3339))
	}
	if r.Applied == 0 {
		fmt.Fprintf(&b, " applied none of its %d statements", len(mg.Statements))
	} else {
		fmt.Fprintf(&b, " applied statements 1-%d of %d", r.Applied, len(mg.Statements))
	}
	switch {
	case r.State == Failed && r.Error != "" && r.Running == 0:
		fmt.Fprintf(&b, "; statement %d failed: %s", r.Applied+1, r.Error)
	case r.State == InDoubt && r.Running > 0 && r.Running <= len(mg.Statements):
		fmt.Fprintf(&b, " and stopped at statement %d (%s), which is in doubt", r.Running, mg.Statements[r.Running-1].Pos)
	case r.inFlightEnd() > r.Running && r.inFlightEnd() <= len(mg.Statements):
		fmt.Fprintf(&b, " and stopped during statements %d-%d (%s), which may have been applied: they are idempotent and sent again", r.Running, r.inFlightEnd(), mg.Statements[r.Running-1].Pos)
	case r.Running > 0 && r.Running <= len(mg.Statements):
		fmt.Fprintf(&b, " and stopped during statement %d (%s), which may have been applied: it is judged before anything is sent", r.Running, mg.Statements[r.Running-1].Pos)
	default:
		b.WriteString(" and stopped")
	}
	if r.Checksum != mg.Checksum {
		fmt.Fprintf(&b, "; the file changed since, after the statements that ran")
	}
	return b.String()
}

func (m *Migrator) applyOne(l *lease, mg *Migration, r *Record, run gocql.UUID) (*AppliedMigration, error) {
	ctx := l.ctx
	from, resume := 1, r != nil
	if resume {
		from = r.Applied + 1
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	// A statement the last run recorded as being sent is judged before this run records
	// anything, so that the record keeps naming the run that sent it.
	inFlight, skip := resume && r.Running == from && from <= len(mg.Statements), false
	if inFlight {
		var err error
		if skip, err = m.recoverInFlight(l, mg, r, from); err != nil {
			return nil, err
		}
	}
	f := m.st.newFileRecorder(l.owner, mg, run, resume, from-1)
	start := time.Now()
	ev := Event{Kind: MigrationStart, Migration: mg, From: from, Total: len(mg.Statements)}
	if resume {
		ev.Message = resumeNote(mg, r)
		if mg.Version == m.bootstrapped && from == 2 {
			ev.Bootstrap = true
			ev.Message = fmt.Sprintf("statement 1 (%s) created keyspace %s before its bookkeeping could exist, and is recorded as done", mg.Statements[0].Pos, m.opt.Keyspace)
		}
	}
	m.emit(ev)
	next := from
	if skip {
		// recoverInFlight recorded it as done.
		f.applied, f.recorded = from, from
		m.emit(Event{Kind: StatementDone, Migration: mg, Statement: from, Total: len(mg.Statements)})
		next++
	}
	for a := next; a <= len(mg.Statements); {
		if err := m.runCalls(l, f, mg, a-1); err != nil {
			return nil, err
		}
		b := min(groupEnd(mg, a, m.opt.Keyspace), max(callBoundary(mg, a), a))
		if err := m.applyGroup(l, f, a, b, inFlight && a == from); err != nil {
			return nil, err
		}
		a = b + 1
	}
	if err := m.runCalls(l, f, mg, len(mg.Statements)); err != nil {
		return nil, err
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	if err := f.finish(ctx); err != nil {
		return nil, err
	}
	d := time.Since(start)
	m.emit(Event{Kind: MigrationDone, Migration: mg, Total: len(mg.Statements), Duration: d})
	return &AppliedMigration{Migration: mg, From: from, Duration: d}, nil
}

// applyGroup records the intent of statements a..b (with what ran before them), then sends
// them one by one. inFlight: statement a is the one the last run was sending.
func (m *Migrator) applyGroup(l *lease, f *fileRecorder, a, b int, inFlight bool) error {
	ctx, mg := l.ctx, f.mg
	if err := l.check(); err != nil {
		return m.stop(f, a, 0, err)
	}
	// The intent, fenced on the lock owner: from here on a successor sees that these
	// statements may have been sent.
	if err := f.intent(ctx, a, b); err != nil {
		return m.stop(f, a, 0, err)
	}
	for i := a; i <= b; i++ {
		stmt := mg.Statements[i-1]
		// Immediately before sending: a lease that may have expired sends nothing.
		if err := l.check(); err != nil {
			return m.stop(f, i, i, err)
		}
		t0 := time.Now()
		if stmt.Use {
			// Nothing to send: the switch is in the Keyspace of the statements after it.
			f.ran(i)
			m.emit(Event{Kind: StatementDone, Migration: mg, Statement: i, Total: len(mg.Statements), Duration: time.Since(t0)})
			continue
		}
		text, err := m.statementText(mg, i)
		if err != nil {
			return m.stop(f, i, 0, err)
		}
		err = m.s.Query(text).WithContext(ctx).Idempotent(false).Exec()
		if m.lostAnswer != nil {
			err = m.lostAnswer(i, err)
		}
		if err != nil && inFlight && i == a && alreadyApplied(stmt, err) {
			m.emit(Event{Kind: Recovered, Migration: mg, Statement: i, Total: len(mg.Statements),
				Message: fmt.Sprintf("statement %d (%s) was in flight when the last run stopped and had been applied (%v); counted as done", i, stmt.Pos, err)})
			err = nil
		}
		if err != nil && stmt.Schema && !refusedStatement(err) && l.lost() == nil && m.settleLostAnswer(l, f, i, text, err) {
			err = nil
		}
		if err != nil {
			return m.sendFailed(l, f, i, err)
		}
		f.ran(i)
		var agreeErr error
		if stmt.Schema {
			agreeErr = m.st.agree(ctx, stmt.Pos.String())
		}
		if recordAtOnce(mg, i, m.opt.Keyspace) {
			if err := f.doneNow(ctx, i); err != nil {
				return m.stop(f, i, 0, err) // it ran: the failure record counts it
			}
		}
		if agreeErr != nil {
			return m.stop(f, i, 0, agreeErr)
		}
		m.emit(Event{Kind: StatementDone, Migration: mg, Statement: i, Total: len(mg.Statements), Duration: time.Since(t0)})
	}
	return nil
}

// sendFailed handles the error of sending statement i.
func (m *Migrator) sendFailed(l *lease, f *fileRecorder, i int, err error) error {
	stmt := f.mg.Statements[i-1]
	running := i
	if refusedStatement(err) {
		running = 0 // the node refused it: it was not applied
	}
	if lerr := l.lost(); lerr != nil {
		err = fmt.Errorf("%w (the statement may have been applied)", lerr)
	} else if running == i {
		if e := m.inDoubtAfter(l, f, i, err); e != nil {
			return e
		}
	}
	return m.stop(f, i, running, fmt.Errorf("%s: %w", statementKind(stmt.Text), err))
}

// stop records why the file stopped at statement i (fenced: a run that lost the lock
// records nothing), with what ran before. running is the statement that may have been
// applied, 0 when none.
func (m *Migrator) stop(f *fileRecorder, i, running int, err error) error {
	fctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !errors.Is(err, ErrLockLost) {
		_ = f.fail(fctx, err, running) // best effort: the error returned says it all
	}
	mg := f.mg
	pe := &PartialError{File: mg.File, Version: mg.Version, Statement: i, Total: len(mg.Statements), Pos: mg.Statements[i-1].Pos,
		Applied: f.applied, Unrecorded: f.applied - f.recorded, Err: err,
		Text: mg.Statements[i-1].Text, Refused: running == 0 && refusedStatement(err)}
	if f.applied >= 1 && f.applied <= len(mg.Statements) {
		pe.LastRan = mg.Statements[f.applied-1].Pos
	}
	return pe
}

// recoverInFlight decides about statement i, which a previous run recorded as being sent
// and never as done (see judgeInFlight): skip reports that its effect is in the live schema
// and it was recorded as done; an idempotent statement returns false (send it again); any
// other is recorded as in doubt and returned as *InDoubtError.
func (m *Migrator) recoverInFlight(l *lease, mg *Migration, r *Record, i int) (skip bool, err error) {
	stmt := mg.Statements[i-1]
	var parsed cql.Statement
	if i-1 < len(mg.Parsed) {
		parsed = mg.Parsed[i-1]
	}
	var live *cql.Schema
	if parsed != nil {
		if live, err = m.readLive(l.ctx, parsed, stmtKeyspace(mg, i, m.opt.Keyspace)); err != nil {
			return false, err
		}
	}
	verdict, reason, check := judgeInFlight(parsed, stmtKeyspace(mg, i, m.opt.Keyspace), live)
	switch verdict {
	case rerunDone:
		if err := l.check(); err != nil {
			return false, err
		}
		if err := m.st.done(l.ctx, l.owner, mg, i); err != nil {
			return false, err
		}
		m.emit(Event{Kind: Recovered, Migration: mg, Statement: i, Total: len(mg.Statements),
			Message: fmt.Sprintf("statement %d (%s) was in flight when the last run stopped and had been applied: the live schema has its effect as written; counted as done", i, stmt.Pos)})
		return true, nil
	case rerunSend:
		m.emit(Event{Kind: Recovered, Migration: mg, Statement: i, Total: len(mg.Statements),
			Message: fmt.Sprintf("statement %d (%s) was in flight when the last run stopped; it is idempotent, so it is sent again", i, stmt.Pos)})
		return false, nil
	}
	e := &InDoubtError{File: mg.File, Version: mg.Version, Statement: i, Total: len(mg.Statements), Pos: stmt.Pos,
		Kind: statementKind(stmt.Text), Reason: reason, Check: check}
	if r.AppliedBy != "" {
		e.By = fmt.Sprintf("%s pid %d", r.AppliedBy, r.PID)
	}
	fctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.st.markInDoubt(fctx, l.owner, mg, i, e.Error()); err != nil {
		return false, fmt.Errorf("%w (and recording it failed: %v)", e, err)
	}
	return false, e
}

// refusedStatement reports whether the node refused a statement as invalid, which proves it
// was not applied (unlike a timeout).
func refusedStatement(err error) bool {
	var req gocql.RequestError
	if !errors.As(err, &req) {
		return false
	}
	switch req.Code() {
	case gocql.ErrCodeSyntax, gocql.ErrCodeInvalid, gocql.ErrCodeConfig, gocql.ErrCodeUnauthorized, gocql.ErrCodeAlreadyExists:
		return true
	}
	return false
}

// alreadyApplied reports whether err, from running again a statement that was in flight
// when the previous run died, shows the previous attempt had succeeded: a CREATE that
// finds its object, a DROP that does not, an ALTER ... ADD that finds its column.
func alreadyApplied(stmt Statement, err error) bool {
	var exists *gocql.RequestErrAlreadyExists
	if errors.As(err, &exists) {
		return true
	}
	var req gocql.RequestError
	if !errors.As(err, &req) || req.Code() != gocql.ErrCodeInvalid {
		return false
	}
	msg := strings.ToLower(req.Message())
	w := leadingWords(stmt.Text, 4)
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "DROP":
		return strings.Contains(msg, "doesn't exist") || strings.Contains(msg, "does not exist") ||
			strings.Contains(msg, "not found") || strings.Contains(msg, "unconfigured")
	case "CREATE":
		return strings.Contains(msg, "already exists")
	case "ALTER":
		up := strings.ToUpper(stmt.Text)
		switch {
		case strings.Contains(up, " ADD "):
			return strings.Contains(msg, "already exists") || strings.Contains(msg, "conflicts with an existing column")
		case strings.Contains(up, " DROP "):
			return strings.Contains(msg, "was not found") || strings.Contains(msg, "doesn't exist") || strings.Contains(msg, "does not exist")
		case strings.Contains(up, " RENAME "):
			return strings.Contains(msg, "already exists") || strings.Contains(msg, "not found") || strings.Contains(msg, "doesn't exist")
		}
	}
	return false
}

// Baseline records every migration up to and including version as applied, without
// running it: for a cluster whose schema was created before migrations were used. Files
// already recorded are left alone; a partly applied one is an error.
func (m *Migrator) Baseline(ctx context.Context, version int64) ([]*Migration, error) {
	if version == 0 && m.byVersion[0] == nil {
		return nil, fmt.Errorf("baseline: version 0: %w", ErrUnknownVersion)
	}
	if err := m.checkVersion(version); err != nil {
		return nil, err
	}
	if _, err := m.st.ensure(ctx); err != nil {
		return nil, err
	}
	l, err := m.lock(ctx, nil)
	if err != nil {
		return nil, err
	}
	out, err := m.baselineLocked(l, version)
	err = m.unlock(l, l.explain(err))
	return out, err
}

func (m *Migrator) baselineLocked(l *lease, version int64) ([]*Migration, error) {
	return m.baselineWhere(l, func(mg *Migration) bool { return mg.Version <= version })
}

// AcceptChecksum records the current checksum of an applied file whose content changed
// (a comment fixed, a statement reformatted), after a person checked the change does not
// need to run. It returns the checksum recorded before; accepting an unchanged file is a no-op.
func (m *Migrator) AcceptChecksum(ctx context.Context, version int64) (previous string, err error) {
	if err := m.checkVersion(version); err != nil {
		return "", err
	}
	accepted, err := m.accept(ctx, func(st Status) bool { return st.Version == version })
	if err != nil {
		return "", err
	}
	if len(accepted) == 0 {
		recs, err := m.readRecords(ctx)
		if err != nil {
			return "", err
		}
		if recs[version] == nil {
			return "", fmt.Errorf("accept checksum: %s is not applied; nothing to accept", m.byVersion[version].File)
		}
		return recs[version].Checksum, nil
	}
	return accepted[0].Record.Checksum, nil
}

// Repair accepts the current checksum of every changed file (see AcceptChecksum) and
// returns their statuses as they were before.
func (m *Migrator) Repair(ctx context.Context) ([]Status, error) {
	return m.accept(ctx, func(Status) bool { return true })
}

func (m *Migrator) accept(ctx context.Context, which func(Status) bool) ([]Status, error) {
	ok, err := m.st.exists(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, nil
	}
	l, err := m.lock(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { err = m.unlock(l, err) }()
	recs, err := m.records(l.ctx)
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, st := range m.statuses(recs) {
		if st.Record == nil || st.Migration == nil || st.Record.Checksum == st.Migration.Checksum || !which(st) {
			continue
		}
		if err := m.st.accept(l.ctx, l.owner, st.Migration, st.Record); err != nil {
			return out, err
		}
		out = append(out, st)
	}
	return out, nil
}

// OutOfOrderError is a pending file older than one already applied.
type OutOfOrderError struct {
	File    string // the pending file
	Applied string // the newest applied file
}

func (e *OutOfOrderError) Error() string {
	return fmt.Sprintf("%s is pending but the newer %s is already applied: it was written against an older schema; renumber it after %s, or allow it (Options.AllowOutOfOrder)",
		e.File, e.Applied, e.Applied)
}

// Migrations returns the files, in version order.
func (m *Migrator) Migrations() []*Migration { return append([]*Migration(nil), m.migs...) }

// Resolve records a person's decision about statement (1-based) of the file with this
// version, which a run recorded as being sent and never as done (status in-doubt): applied
// says it ran (it is recorded as done and the next Up continues after it), otherwise it did
// not (the next Up sends it). The decision is written under the lock, fenced like every
// other bookkeeping write, and kept in the resolved column with who made it and when.
func (m *Migrator) Resolve(ctx context.Context, version int64, statement int, applied bool) error {
	if err := m.checkVersion(version); err != nil {
		return err
	}
	if version == 0 && m.byVersion[0] == nil {
		return fmt.Errorf("resolve: version 0: %w", ErrUnknownVersion)
	}
	mg := m.byVersion[version]
	if statement < 1 || statement > len(mg.Statements) {
		return fmt.Errorf("resolve: %s has statements 1-%d, not %d", mg.File, len(mg.Statements), statement)
	}
	ok, err := m.st.exists(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("resolve: %s has no bookkeeping table yet, so nothing is in doubt", m.opt.Keyspace)
	}
	l, err := m.lock(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { err = m.unlock(l, err) }()
	recs, err := m.records(l.ctx)
	if err != nil {
		return err
	}
	r := recs[version]
	if r == nil || r.Complete() || r.Running != statement {
		state := "not recorded"
		if r != nil {
			state = fmt.Sprintf("state %s, statements 1-%d applied, statement in flight: %d", r.State, r.Applied, r.Running)
		}
		return fmt.Errorf("resolve: statement %d of %s is not in doubt (%s); nothing to resolve", statement, mg.File, state)
	}
	decision := "rerun (it did not run; the next up sends it)"
	if applied {
		decision = "applied (it ran)"
	}
	note := fmt.Sprintf("%s: decided by %s pid %d at %s", decision, m.opt.Host, m.opt.PID, time.Now().UTC().Format(time.RFC3339))
	if err := l.check(); err != nil {
		return err
	}
	return m.st.resolve(l.ctx, l.owner, mg, statement, applied, note)
}
