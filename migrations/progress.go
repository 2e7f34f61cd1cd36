package migrations

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// What the bookkeeping writes while a file runs, and why it is not two writes a statement.
//
// Every bookkeeping write is a lightweight transaction fenced on the lock owner (fence.go),
// 3-8 ms on one node and about 20 ms on a ring: next to an INSERT that is the whole cost.
// The rule that makes a run safe to kill is only this: nothing is sent before an intent a
// successor will see. A done record is what spares the successor a judgement; it need not be
// a write of its own. So:
//
//   - The done record of a statement rides on the next write: the intent of the next
//     statement, the file's finish, or its failure. A run killed between two statements
//     leaves the first one as the intent; the successor judges it as it judges any statement
//     in flight (it re-sends it, counts it done from the live schema, or stops in doubt).
//   - That judgement can only say "in doubt" for some statements: counter updates, list
//     appends, prepends and deletions by index, TRUNCATE, and what does not parse. Their
//     done record is written at once, after they ran (recordAtOnce), so a run killed after
//     one of them never leaves it in doubt: that costs them the second write, as before.
//   - Consecutive DML statements that are idempotent whatever the schema (groupable) share
//     one intent: running = first, running_to = last, at most maxGroup of them. A successor
//     that finds it re-sends them all, which leaves what one run leaves.
//   - The file's start is written with its first intent (or its finish).
//
// A file of n INSERTs costs two writes (start with the intent of all of them; finish); a
// file of n schema changes costs n+1 (was 2n+2). Records written by an earlier cqlsize
// (running = i alone, running_to absent) read as an intent of statement i.

// maxGroup bounds how many statements one intent covers: a successor re-sends up to that
// many statements that had already run.
const maxGroup = 100

// groupable reports whether statement i (1-based) of mg is DML that may be sent again
// whatever the live schema says (judgeDML without one: an INSERT, an UPDATE that sets
// values, a DELETE of rows or whole columns, a batch of those).
func groupable(mg *Migration, i int, ks string) bool {
	parsed := parsedStatement(mg, i)
	switch parsed.(type) {
	case *cql.Insert, *cql.Update, *cql.Delete, *cql.Batch:
	default:
		return false
	}
	v, _, _ := judgeDML(parsed, stmtKeyspace(mg, i, ks), nil)
	return v == rerunSend
}

// recordAtOnce reports whether a successor that found statement i in flight could have to
// stop in doubt (judgeInFlight with no live schema says so): its done record is written as
// soon as it ran.
func recordAtOnce(mg *Migration, i int, ks string) bool {
	v, _, _ := judgeInFlight(parsedStatement(mg, i), stmtKeyspace(mg, i, ks), nil)
	return v == rerunInDoubt
}

func parsedStatement(mg *Migration, i int) cql.Statement {
	if i < 1 || i > len(mg.Parsed) {
		return nil
	}
	return mg.Parsed[i-1]
}

// groupEnd returns the last statement of the intent that starts at statement a.
func groupEnd(mg *Migration, a int, ks string) int {
	b := a
	if !groupable(mg, a, ks) {
		return b
	}
	for b < len(mg.Statements) && b-a+1 < maxGroup && groupable(mg, b+1, ks) {
		b++
	}
	return b
}

// inFlightEnd is the last statement of a record's intent (0 when none is in flight).
func (r *Record) inFlightEnd() int {
	if r.Running <= 0 {
		return 0
	}
	return max(r.Running, r.RunningTo)
}

// update is the SET clause of one bookkeeping write, built column by column; setting a
// column again replaces its value.
type update struct {
	exprs []string
	args  []any
	index map[string]int
}

func (u *update) put(col, expr string, v any) {
	if u.index == nil {
		u.index = map[string]int{}
	}
	if k, ok := u.index[col]; ok {
		u.exprs[k], u.args[k] = expr, v
		return
	}
	u.index[col] = len(u.exprs)
	u.exprs = append(u.exprs, expr)
	u.args = append(u.args, v)
}

func (u *update) set(col string, v any) { u.put(col, col+" = ?", v) }

// add adds the entries of a map value to a map column.
func (u *update) add(col string, v any) { u.put(col, col+" = "+col+" + ?", v) }

// fileRecorder writes the bookkeeping of one file as a run applies it: what ran since its
// last write (applied, and the statements' done times and checksums) travels with the next
// write, whatever that is.
type fileRecorder struct {
	st    *store
	owner gocql.UUID
	mg    *Migration
	start *update // the file's start, written with the first write; nil once written
	// applied: statements 1..applied have run. recorded: the value the bookkeeping holds.
	applied, recorded int
	done              map[int]time.Time
	sums              map[int]string
}

// newFileRecorder starts the bookkeeping of mg for run, which continues the file after
// statement applied (0 for a fresh start).
func (st *store) newFileRecorder(owner gocql.UUID, mg *Migration, run gocql.UUID, resume bool, applied int) *fileRecorder {
	u := &update{}
	u.set("state", string(Running))
	u.set("name", fileBase(mg.File))
	u.set("checksum", mg.Checksum)
	u.set("statements", len(mg.Statements))
	u.set("applied_by", st.opt.Host)
	u.set("pid", st.opt.PID)
	u.set("tool_version", st.opt.ToolVersion)
	u.set("run_id", run)
	if resume {
		u.set("error", nil)
	} else {
		u.set("applied", 0)
		u.set("running", 0)
		u.set("started_at", time.Now())
	}
	return &fileRecorder{st: st, owner: owner, mg: mg, start: u, applied: applied, recorded: applied}
}

// ran notes that statement i ran; the next write records it.
func (f *fileRecorder) ran(i int) {
	if f.done == nil {
		f.done, f.sums = map[int]time.Time{}, map[int]string{}
	}
	f.applied = i
	f.done[i] = time.Now()
	f.sums[i] = f.mg.Statements[i-1].Checksum
}

// unrecorded says which statements ran and are not recorded yet ("" when none).
func (f *fileRecorder) unrecorded() string {
	switch {
	case f.applied == f.recorded:
		return ""
	case f.applied == f.recorded+1:
		return fmt.Sprintf("statement %d", f.applied)
	}
	return fmt.Sprintf("statements %d-%d", f.recorded+1, f.applied)
}

// write sends one fenced UPDATE of the file's row with u, the start and what ran since the
// last write. A write refused because another run took over says what ran unrecorded.
func (f *fileRecorder) write(ctx context.Context, what string, u *update) error {
	w := &update{}
	if f.start != nil {
		for k, e := range f.start.exprs {
			w.put(e[:strings.Index(e, " ")], e, f.start.args[k])
		}
	}
	w.set("applied", f.applied)
	if len(f.done) > 0 {
		w.add("statement_done", f.done)
		w.add("statement_checksum", f.sums)
	}
	for k, e := range u.exprs {
		w.put(e[:strings.Index(e, " ")], e, u.args[k])
	}
	st := f.st
	err := st.fenced(ctx, f.owner, what, `UPDATE `+st.table+` SET `+strings.Join(w.exprs, ", ")+` WHERE target = ? AND version = ?`,
		append(w.args, st.opt.Keyspace, f.mg.Version)...)
	if err != nil {
		if ran := f.unrecorded(); ran != "" && errors.Is(err, ErrLockLost) {
			err = fmt.Errorf("%w; %s ran but %s recorded only as being sent: the run that took over re-sends what is idempotent and otherwise stops in doubt (Migrator.Status; Migrator.Resolve)",
				err, ran, map[bool]string{true: "is", false: "are"}[f.applied == f.recorded+1])
		}
		return err
	}
	f.start, f.done, f.sums, f.recorded = nil, nil, nil, f.applied
	return nil
}

// intent records, before statement a is sent, that statements a..b may be sent from now on
// (running = a, running_to = b), with what ran before them.
func (f *fileRecorder) intent(ctx context.Context, a, b int) error {
	u := &update{}
	u.set("running", a)
	u.set("running_to", b)
	what := fmt.Sprintf("record statement %d of %s as running", a, f.mg.File)
	if b > a {
		what = fmt.Sprintf("record statements %d-%d of %s as running", a, b, f.mg.File)
	}
	return f.write(ctx, what, u)
}

// doneNow records what ran, statement i last, with nothing in flight.
func (f *fileRecorder) doneNow(ctx context.Context, i int) error {
	u := &update{}
	u.set("running", 0)
	u.set("running_to", 0)
	return f.write(ctx, fmt.Sprintf("record statement %d of %s as applied (it ran; until it is recorded the next run treats it as in flight)", i, f.mg.File), u)
}

// finish records the file as applied: every statement ran.
func (f *fileRecorder) finish(ctx context.Context) error {
	u := &update{}
	u.set("state", string(Applied))
	u.set("running", 0)
	u.set("running_to", 0)
	u.set("finished_at", time.Now())
	return f.write(ctx, fmt.Sprintf("record %s as applied (every statement ran)", f.mg.File), u)
}

// fail records that the file stopped with cause. running is the statement that may have
// been applied (a timeout), or 0 when the node refused it, which proves it was not; the
// statements after it in its intent were not sent.
func (f *fileRecorder) fail(ctx context.Context, cause error, running int) error {
	u := &update{}
	u.set("state", string(Failed))
	u.set("error", cause.Error())
	u.set("running", running)
	u.set("running_to", running)
	return f.write(ctx, fmt.Sprintf("record the failure of %s", f.mg.File), u)
}

// starting records the intent to send statement i alone, after statements 1..i-1.
func (st *store) starting(ctx context.Context, owner gocql.UUID, mg *Migration, i int) error {
	f := &fileRecorder{st: st, owner: owner, mg: mg, applied: i - 1, recorded: i - 1}
	return f.intent(ctx, i, i)
}

// done records that statement i ran, and statements 1..i-1 before it, with nothing in flight.
func (st *store) done(ctx context.Context, owner gocql.UUID, mg *Migration, i int) error {
	f := &fileRecorder{st: st, owner: owner, mg: mg, applied: i - 1, recorded: i - 1}
	f.ran(i)
	return f.doneNow(ctx, i)
}
