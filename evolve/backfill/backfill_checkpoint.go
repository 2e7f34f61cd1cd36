package backfill

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/internal/ddl"
	"github.com/cqlsize/cqlsize/internal/retry"
)

// The bookkeeping tables a backfill keeps in the target's keyspace. profile.Bookkeeping
// knows their names and comments, so a profile of the keyspace leaves them out.
const (
	ProgressTable = "cqlsize_backfill"
	LeaseTable    = "cqlsize_backfill_lease"
)

// ErrLeaseLost is the cause of a range's cancellation when its lease could not be renewed
// in time: another run may take the range, so this one stops writing it.
var ErrLeaseLost = errors.New("the lease on the range was lost")

// checkpoint is the per-range progress of backfills and the leases on ranges being copied.
type checkpoint struct {
	s           *gocql.Session
	id          string // the backfill: source and target
	progress    string // qualified tables
	lease       string
	consistency gocql.Consistency
	ttl         time.Duration
	owner       string
	retry       time.Duration // how long a statement failing with transient trouble is sent again
	serial      gocql.SerialConsistency
}

// ensure creates the tables unless they exist, and waits until they answer.
func (c *checkpoint) ensure(ctx context.Context, keyspace string) error {
	// Each table has a fixed id (ddl.TableID), so that processes creating it at the same
	// moment create the same one; a send whose answer misses the client's timeout is checked
	// in system_schema and sent again.
	for _, t := range []ddl.Table{
		{Name: ProgressTable, Columns: `backfill text, range_lo bigint, range_hi bigint,
			rows bigint, target_rows bigint, bytes bigint, finished_at timestamp, finished_by text,
			ranges int static, rules text static, started_at timestamp static,
			PRIMARY KEY ((backfill), range_lo)`,
			Options: `comment = 'cqlsize backfill: one row per token range copied, per backfill'`},
		{Name: LeaseTable, Columns: `backfill text, range_lo bigint, owner text, acquired_at timestamp,
			PRIMARY KEY ((backfill, range_lo))`,
			Options: `gc_grace_seconds = 3600
			AND comment = 'cqlsize backfill: the run copying a range now (LWT + TTL)'`},
	} {
		t.Scope, t.Keyspace = "backfill", keyspace
		if err := ddl.CreateTable(ctx, c.s, t, ddl.Options{Budget: max(c.retry, ddl.DefaultBudget)}); err != nil {
			return fmt.Errorf("backfill bookkeeping: %w", err)
		}
	}
	// Every node that is up should know the tables before ranges are claimed in them; a node
	// that does not yet is retried around (schemaLag), so a failed wait is not an error.
	_ = c.s.AwaitSchemaAgreement(ctx)
	wait := retry.Policy{Backoff: retry.Backoff{Min: 200 * time.Millisecond}, Deadline: time.Now().Add(30 * time.Second),
		// A role that may not read them is refused the same way for the whole wait.
		Retry: func(err error) bool {
			var req gocql.RequestError
			return !errors.As(err, &req) || req.Code() != gocql.ErrCodeUnauthorized
		}}
	for _, q := range []string{`SELECT range_lo FROM ` + c.progress + ` WHERE backfill = ? LIMIT 1`, `SELECT owner FROM ` + c.lease + ` WHERE backfill = ? AND range_lo = 0`} {
		if _, err := retry.Do(ctx, wait, c.s.Query(q, c.id).WithContext(ctx).Consistency(c.consistency).Exec); err != nil {
			return fmt.Errorf("query the bookkeeping tables: %w", err)
		}
	}
	return nil
}

// MismatchError is a checkpoint made by a backfill of the same tables with other rules or
// another number of ranges: continuing would mix two copies. Start over with Restart.
type MismatchError struct {
	Backfill   string
	Have, Want string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the checkpoint of backfill %s was made with %s, this run has %s: run it as it was, or start over with Options.Restart", e.Backfill, e.Have, e.Want)
}

// begin records the backfill's plan (ranges and rules) unless a run recorded one, and
// checks that a recorded one is the same. Transient trouble (a timeout, a connection lost)
// is retried for c.retry, as every other checkpoint write is: an attempt whose answer was
// lost may have recorded the plan, and then the next one finds it recorded, the same.
func (c *checkpoint) begin(ctx context.Context, ranges int, rules string) error {
	return retryFor(ctx, c.retry, func() error { return c.beginOnce(ctx, ranges, rules) })
}

func (c *checkpoint) beginOnce(ctx context.Context, ranges int, rules string) error {
	applied, err := c.s.Query(`UPDATE `+c.progress+` SET ranges = ?, rules = ?, started_at = ? WHERE backfill = ? IF ranges = null`,
		ranges, rules, time.Now(), c.id).WithContext(ctx).SerialConsistency(c.serialLevel()).MapScanCAS(map[string]any{})
	if err != nil {
		return fmt.Errorf("record the backfill in %s: %w", c.progress, err)
	}
	if applied {
		return nil
	}
	var have int
	var haveRules string
	// At SERIAL, so an LWT in flight completes first.
	if err := c.s.Query(`SELECT ranges, rules FROM `+c.progress+` WHERE backfill = ? LIMIT 1`, c.id).WithContext(ctx).
		Consistency(gocql.Consistency(0x0008)).Scan(&have, &haveRules); err != nil {
		return fmt.Errorf("read the backfill in %s: %w", c.progress, err)
	}
	if have != ranges || haveRules != rules {
		return &MismatchError{Backfill: c.id, Have: fmt.Sprintf("%d ranges and rules %q", have, haveRules),
			Want: fmt.Sprintf("%d ranges and rules %q", ranges, rules)}
	}
	return nil
}

// restart forgets the progress of the ranges starting in [from, to) (this run's share,
// whatever number of ranges cut it before: the other shares' processes restart theirs) and
// records the plan anew. Both writes are plain and the same when sent again, so transient
// trouble is retried for c.retry.
func (c *checkpoint) restart(ctx context.Context, from, to int64, ranges int, rules string) error {
	return retryFor(ctx, c.retry, func() error {
		if err := c.s.Query(`DELETE FROM `+c.progress+` WHERE backfill = ? AND range_lo >= ? AND range_lo < ?`, c.id, from, to).
			WithContext(ctx).Consistency(c.consistency).Exec(); err != nil {
			return fmt.Errorf("clear the checkpoint in %s: %w", c.progress, err)
		}
		if err := c.s.Query(`UPDATE `+c.progress+` SET ranges = ?, rules = ?, started_at = ? WHERE backfill = ?`, ranges, rules, time.Now(), c.id).
			WithContext(ctx).Consistency(c.consistency).Exec(); err != nil {
			return fmt.Errorf("record the backfill in %s: %w", c.progress, err)
		}
		return nil
	})
}

// rangeDone is a range's progress row.
type rangeDone struct {
	lo, hi                  int64
	rows, targetRows, bytes int64
}

// done reads the ranges already copied.
func (c *checkpoint) done(ctx context.Context) (map[int64]rangeDone, error) {
	var out map[int64]rangeDone
	err := retryFor(ctx, c.retry, func() error {
		iter := c.s.Query(`SELECT range_lo, range_hi, rows, target_rows, bytes FROM `+c.progress+` WHERE backfill = ?`, c.id).
			WithContext(ctx).Consistency(c.consistency).Idempotent(true).Iter()
		out = map[int64]rangeDone{}
		var d rangeDone
		var hi *int64
		for iter.Scan(&d.lo, &hi, &d.rows, &d.targetRows, &d.bytes) {
			if hi != nil { // the static row of a backfill with no range done reads as a null range
				d.hi = *hi
				out[d.lo] = d
			}
		}
		return iter.Close()
	})
	if err != nil {
		return nil, fmt.Errorf("read the checkpoint in %s: %w", c.progress, err)
	}
	return out, nil
}

// isDone reports whether the range starting at lo was copied.
func (c *checkpoint) isDone(ctx context.Context, lo int64) (bool, error) {
	var hi *int64
	err := retryFor(ctx, c.retry, func() error {
		return c.s.Query(`SELECT range_hi FROM `+c.progress+` WHERE backfill = ? AND range_lo = ?`, c.id, lo).
			WithContext(ctx).Consistency(c.consistency).Idempotent(true).Scan(&hi)
	})
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the checkpoint in %s: %w", c.progress, err)
	}
	return hi != nil, nil
}

// markDone records a range as copied.
func (c *checkpoint) markDone(ctx context.Context, d rangeDone) error {
	at := time.Now()
	err := retryFor(ctx, c.retry, func() error {
		return c.s.Query(`INSERT INTO `+c.progress+` (backfill, range_lo, range_hi, rows, target_rows, bytes, finished_at, finished_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			c.id, d.lo, d.hi, d.rows, d.targetRows, d.bytes, at, c.owner).WithContext(ctx).Consistency(c.consistency).Idempotent(true).Exec()
	})
	if err != nil {
		return fmt.Errorf("record range (%d, %d] in %s: %w", d.lo, d.hi, c.progress, err)
	}
	return nil
}

// claim takes the lease on the range starting at lo, or reports that another run holds it
// (held). The lease expires after ttl unless renewed; the returned context is cancelled,
// with ErrLeaseLost, when it could not be renewed in time, and release ends it.
func (c *checkpoint) claim(ctx context.Context, lo int64) (rctx context.Context, release func(), held string, err error) {
	sent := time.Now()
	owner, err := c.take(ctx, lo, sent)
	if err != nil {
		return nil, nil, "", fmt.Errorf("claim range %d in %s: %w", lo, c.lease, err)
	}
	if owner != c.owner {
		return nil, nil, owner, nil
	}
	rctx, cancel := context.WithCancelCause(ctx)
	// rnctx ends the renewals (and a renewal being retried) when the range is released.
	rnctx, stop := context.WithCancel(rctx)
	finished := make(chan struct{})
	// The lease is good until sent + ttl, less a margin for the node's rounding of the TTL
	// to seconds and for clock drift; it is renewed every quarter of the ttl.
	margin := time.Second + c.ttl/10
	go func() {
		defer close(finished)
		valid := sent.Add(c.ttl - margin)
		tick := time.NewTicker(c.ttl / 4)
		defer tick.Stop()
		for {
			select {
			case <-rnctx.Done():
				return
			case <-tick.C:
			}
			var lost bool
			if valid, lost = c.renew(rnctx, lo, valid, margin); lost {
				cancel(ErrLeaseLost)
				return
			}
		}
	}()
	release = func() {
		stop()
		<-finished
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer dcancel()
		// Best effort: a lease left behind expires after its TTL.
		_, _ = c.s.Query(`DELETE FROM `+c.lease+` WHERE backfill = ? AND range_lo = ? IF owner = ?`, c.id, lo, c.owner).
			WithContext(dctx).SerialConsistency(c.serialLevel()).MapScanCAS(map[string]any{})
		cancel(nil)
	}
	return rctx, release, "", nil
}

// renew extends the lease on the range starting at lo, good until valid, and returns until
// when it is good now. A renewal that fails (a timeout, a node lost, an answer lost) is
// sent again with backoff for as long as the lease lasts: a renewal is idempotent for its
// owner. lost: another run holds the lease, or it ran out before a renewal got through.
func (c *checkpoint) renew(ctx context.Context, lo int64, valid time.Time, margin time.Duration) (time.Time, bool) {
	if time.Now().After(valid) {
		return valid, true
	}
	var renewed time.Time
	var held bool
	_, err := retry.Do(ctx, retry.Policy{Backoff: retry.Backoff{Min: 100 * time.Millisecond, Max: 2 * time.Second}, Deadline: valid}, func() error {
		at := time.Now()
		qctx, qcancel := context.WithDeadline(ctx, valid)
		defer qcancel()
		ok, err := c.s.Query(`UPDATE `+c.lease+` USING TTL ? SET owner = ? WHERE backfill = ? AND range_lo = ? IF owner = ?`,
			int(c.ttl/time.Second), c.owner, c.id, lo, c.owner).WithContext(qctx).SerialConsistency(c.serialLevel()).MapScanCAS(map[string]any{})
		renewed, held = at.Add(c.ttl-margin), ok
		return err
	})
	switch {
	case err == nil && held:
		return renewed, false
	case err == nil:
		return valid, true // another run holds it
	case ctx.Err() != nil:
		return valid, false // released or stopped: not a loss
	}
	return valid, true // the lease ran out before a renewal got through
}

// take sends the lease's claim (first sent at sent) until it has an answer, for c.retry,
// and returns the lease's owner: c.owner when the claim won. A claim that failed with
// transient trouble (a timeout, a connection lost) is in doubt, as a lightweight
// transaction's answer lost may have been applied: the lease is read at SERIAL (which
// completes a transaction in flight) to learn whether it won, and sent again only if
// nobody holds the range.
func (c *checkpoint) take(ctx context.Context, lo int64, sent time.Time) (string, error) {
	var owner string
	err := retryFor(ctx, c.retry, func() error {
		m := map[string]any{}
		applied, err := c.s.Query(`INSERT INTO `+c.lease+` (backfill, range_lo, owner, acquired_at) VALUES (?, ?, ?, ?) IF NOT EXISTS USING TTL ?`,
			c.id, lo, c.owner, sent, int(c.ttl/time.Second)).WithContext(ctx).SerialConsistency(c.serialLevel()).MapScanCAS(m)
		if err == nil {
			owner, _ = m["owner"].(string)
			if applied {
				owner = c.owner
			}
			return nil
		}
		if !denorm.Transient(err) {
			return err
		}
		var found bool
		if found, owner, err = c.leaseOwner(ctx, lo); err != nil || found {
			return err
		}
		return fmt.Errorf("the claim failed and nobody holds the range: %w", gocql.ErrTimeoutNoResponse)
	})
	return owner, err
}

// serialLevel is the leases' serial consistency: SERIAL unless the run said otherwise.
func (c *checkpoint) serialLevel() gocql.SerialConsistency {
	if c.serial == 0 {
		return gocql.Serial
	}
	return c.serial
}

// leaseOwner reads who holds the lease on the range starting at lo, at the leases' serial
// consistency.
func (c *checkpoint) leaseOwner(ctx context.Context, lo int64) (bool, string, error) {
	var owner string
	err := c.s.Query(`SELECT owner FROM `+c.lease+` WHERE backfill = ? AND range_lo = ?`, c.id, lo).
		WithContext(ctx).Consistency(gocql.Consistency(c.serialLevel())).Scan(&owner)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, "", nil
	}
	return err == nil, owner, err
}

// backfillID names a backfill in the checkpoint: its source and target tables.
func backfillID(src, dst *cql.Table) string {
	return src.Keyspace + "." + src.Name + " -> " + dst.Keyspace + "." + dst.Name
}

// rulesText is the program's rules in a canonical form, to tell a changed backfill apart.
func rulesText(cols []string) string { return strings.Join(cols, "; ") }
