package migrations

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/ddl"
	"github.com/cqlsize/cqlsize/internal/retry"
)

// fenceRetry is how a fenced bookkeeping write whose answer was lost is sent again: for up
// to 30 s, from 200 ms doubling to 5 s, on the cluster's transient failures only.
var fenceRetry = retry.Policy{Backoff: retry.Backoff{Min: 200 * time.Millisecond, Max: 5 * time.Second, Jitter: retry.UpperHalf},
	Budget: 30 * time.Second, Retry: connect.Transient}

// Fencing: why a lease alone is not enough, and what closes the gap.
//
// The lease (lock.go) tells a holder when it may no longer be the holder, and the holder
// checks it before sending anything. But a check and the send that follows are two
// moments: a process paused between them (a GC pause, SIGSTOP, a frozen VM) wakes after
// its lease expired and a successor took over, and sends the statement anyway. Arbitrary
// DDL or DML cannot be made conditional on the lock, so the bookkeeping makes the damage
// visible instead of silent:
//
//   - The bookkeeping partition of a target keyspace has a static column, lock_owner. A
//     process that takes the lease writes its owner id there with a lightweight
//     transaction (takeOver) before it reads the history.
//   - Every bookkeeping write a holder makes (a file's intents, done records, finish and
//     failure, baseline, accept, resolve) is an UPDATE ... IF lock_owner = <its owner id>. Paxos
//     orders these writes with the successor's takeOver on the same partition, so once
//     the successor's takeOver is applied, every later write of the old holder is refused
//     (its run stops with ErrLockLost), and every earlier one is visible to the successor.
//   - Before sending statement i, the holder records an intent that covers it (running = i,
//     or running..running_to for a run of idempotent DML; fenced, see progress.go). So a
//     statement is only ever sent after an intent that a successor will see; a successor
//     that finds running = i without done for i knows the statement may have been sent,
//     and re-runs it only when that is harmless (see judgeInFlight), else it stops in doubt.
//
// The old holder's statement itself can still arrive after the successor read the history;
// what the fence guarantees is that such a statement always left an intent behind.

// fenceColumns are the columns that fencing and intents covering several statements added
// to the bookkeeping table. Tables created by an earlier cqlsize lack them;
// ensureFenceColumns adds them.
var fenceColumns = []struct{ name, def string }{
	{"lock_owner", "uuid static"},  // the run that holds the lease, as the fence sees it
	{"resolved", "map<int, text>"}, // statement -> a person's decision (migrate resolve)
	{"in_doubt", "map<int, text>"}, // statement -> why a successor stopped at it
	{"running_to", "int"},          // the last statement of the intent that starts at running
}

// ensureFenceColumns adds the fence columns to a bookkeeping table created by an earlier
// version (ALTER TABLE ... ADD for each missing one), then waits for schema agreement and
// until the node answers queries on them. It runs with the lease held, so only one process
// alters the table; a column another process added meanwhile is not an error.
func (st *store) ensureFenceColumns(ctx context.Context) error {
	if st.fenceReady {
		return nil // columns are never dropped: what ensure saw is still there
	}
	have := map[string]bool{}
	iter := st.s.Query(`SELECT column_name FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?`,
		st.opt.BookkeepingKeyspace, st.opt.Table).WithContext(ctx).Consistency(gocql.One).Iter()
	var name string
	for iter.Scan(&name) {
		have[name] = true
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("read the columns of %s: %w", st.table, err)
	}
	var names []string
	for _, c := range fenceColumns {
		if have[c.name] {
			continue
		}
		names = append(names, c.name)
		err := ddl.AddColumn(ctx, st.s, st.opt.BookkeepingKeyspace, st.opt.Table, c.name, c.def, st.ddlOptions())
		if err != nil && !columnExists(err) {
			return fmt.Errorf("the bookkeeping table %s, created by an earlier cqlsize: %w", st.table, err)
		}
	}
	if len(names) == 0 {
		return nil
	}
	// The nodes that are up must agree (a down one takes the schema when it comes back).
	return st.agree(ctx, "ALTER TABLE "+st.table+" ADD "+strings.Join(names, ", "))
}

// hasFenceColumns reports whether a bookkeeping table with these columns has every fence
// column.
func hasFenceColumns(have map[string]bool) bool {
	for _, c := range fenceColumns {
		if !have[c.name] {
			return false
		}
	}
	return true
}

func columnExists(err error) bool {
	var req gocql.RequestError
	if !errors.As(err, &req) || req.Code() != gocql.ErrCodeInvalid {
		return false
	}
	msg := strings.ToLower(req.Message())
	return strings.Contains(msg, "already exist") || strings.Contains(msg, "conflicts with an existing column")
}

// takeOver writes owner into lock_owner with a lightweight transaction, so that from now on
// the previous holder's fenced writes are refused. Its condition, lock_owner != owner,
// holds for any previous value, none included (owner is new to this run), so one Paxos
// round both orders it after every earlier fenced write and sets it. It is refused only
// when a retry of this very write finds it applied.
func (st *store) takeOver(ctx context.Context, owner gocql.UUID) error {
	prev := map[string]any{}
	applied, err := st.q(ctx, `UPDATE `+st.table+` SET lock_owner = ? WHERE target = ? IF lock_owner != ?`,
		owner, st.opt.Keyspace, owner).SerialConsistency(st.serial()).MapScanCAS(prev)
	if err != nil {
		return fmt.Errorf("fence the bookkeeping of %s to this run (lock_owner in %s): %w", st.opt.Keyspace, st.table, err)
	}
	if u, ok := prev["lock_owner"].(gocql.UUID); !applied && (!ok || u != owner) {
		return fmt.Errorf("fence the bookkeeping of %s to this run: lock_owner in %s was not set: %w", st.opt.Keyspace, st.table, ErrLockLost)
	}
	return nil
}

// fenceOwner reads lock_owner at SERIAL; nil when none was ever written.
func (st *store) fenceOwner(ctx context.Context) (*gocql.UUID, error) {
	row := map[string]any{}
	err := st.s.Query(`SELECT lock_owner FROM `+st.table+` WHERE target = ? LIMIT 1`, st.opt.Keyspace).
		WithContext(ctx).Consistency(st.serialRead()).MapScan(row)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lock_owner in %s: %w", st.table, err)
	}
	u, ok := row["lock_owner"].(gocql.UUID)
	if !ok || u == (gocql.UUID{}) {
		return nil, nil
	}
	return &u, nil
}

// fenced runs stmt, an UPDATE of the bookkeeping table, as a lightweight transaction
// conditioned on lock_owner = owner. When a successor has fenced the partition the write is
// refused and fenced returns ErrLockLost: this run must stop and send nothing more.
func (st *store) fenced(ctx context.Context, owner gocql.UUID, what, stmt string, args ...any) error {
	prev := map[string]any{}
	var applied bool
	// A write whose answer is lost (a timeout, a connection lost) is sent again: the fence
	// makes that safe. If the first was applied, the second sets the same values; if a
	// successor took over in between, the second is refused, as the first would have been.
	_, err := retry.Do(ctx, fenceRetry, func() error {
		clear(prev)
		var err error
		applied, err = st.q(ctx, stmt+` IF lock_owner = ?`, append(args, owner)...).
			SerialConsistency(st.serial()).MapScanCAS(prev)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !applied {
		who := "no run"
		if u, ok := prev["lock_owner"].(gocql.UUID); ok && u != (gocql.UUID{}) {
			who = "run " + u.String()
		}
		return fmt.Errorf("%s: %w: the bookkeeping of %s is now fenced to %s, which took the migration over; this run sends nothing more",
			what, ErrLockLost, st.opt.Keyspace, who)
	}
	return nil
}
