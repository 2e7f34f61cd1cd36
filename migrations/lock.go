package migrations

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/retry"
)

// serialRead is the SERIAL consistency used to read a lease row: it completes any
// in-flight lightweight transaction first, so the answer reflects the latest owner.
const serialRead = gocql.Consistency(0x0008)

// localSerialRead is serialRead confined to the coordinator's DC.
const localSerialRead = gocql.Consistency(0x0009)

// serial is the serial consistency of the lock's and the fence's lightweight transactions:
// SERIAL (a quorum of every DC's replicas), or LOCAL_SERIAL when Options.LocalSerial says
// only one DC deploys.
func (st *store) serial() gocql.SerialConsistency {
	if st.opt.LocalSerial {
		return gocql.LocalSerial
	}
	return gocql.Serial
}

// serialRead is the read consistency that sees the latest lightweight transaction at the
// serial level in use.
func (st *store) serialRead() gocql.Consistency {
	if st.opt.LocalSerial {
		return localSerialRead
	}
	return serialRead
}

// lease is the cluster-wide migration lock: one row per target keyspace, written with
// INSERT ... IF NOT EXISTS USING TTL, renewed with UPDATE ... USING TTL ... IF owner = ?,
// deleted with DELETE ... IF owner = ?. A holder that dies stops renewing and the row
// expires after the TTL; only then can another process take it.
//
// The lease is valid until validUntil, counted from the moment the acquiring or renewing
// request was SENT, minus leaseMargin: the node stamps the row's expiry at some point after
// the request left, so "sent + TTL" is the earliest the row can expire by the holder's
// clock. A process that was paused (GC, SIGSTOP, a frozen VM) wakes with its clock far
// past validUntil and therefore sends nothing more (see check); counting from when the
// answer arrived instead would let a holder believe in a lease that had already expired.
type lease struct {
	st     *store
	owner  gocql.UUID
	ttl    time.Duration
	ctx    context.Context // cancelled with ErrLockLost when the lease cannot be kept
	cancel context.CancelCauseFunc
	done   chan struct{}
	// validUntil is the lease deadline in Unix nanoseconds (wall clock with its monotonic
	// reading dropped would jump with NTP; see deadline). Written by the renewal goroutine,
	// read before every statement.
	validUntil atomic.Int64
	epoch      time.Time // monotonic base of validUntil
}

// leaseMargin is subtracted from the TTL when computing how long a lease is valid: one
// second because Cassandra stamps a TTL's expiry in whole seconds (a row written at
// 10.9s with TTL 3 expires at 13.0s, 2.1s later), plus a tenth of the TTL for clock drift
// between this machine and the nodes.
func leaseMargin(ttl time.Duration) time.Duration { return time.Second + ttl/10 }

// renewEvery is how often the holder renews: a quarter of the TTL, so that with the
// margin above two renewals can fail or be slow before the lease lapses.
func renewEvery(ttl time.Duration) time.Duration { return ttl / 4 }

// extend records a successful acquisition or renewal whose request was sent at sent.
func (l *lease) extend(sent time.Time) {
	until := sent.Sub(l.epoch) + l.ttl - leaseMargin(l.ttl)
	for {
		cur := l.validUntil.Load()
		if int64(until) <= cur || l.validUntil.CompareAndSwap(cur, int64(until)) {
			return
		}
	}
}

// deadline is when the lease may have expired, by this process's monotonic clock.
func (l *lease) deadline() time.Time { return l.epoch.Add(time.Duration(l.validUntil.Load())) }

// check returns ErrLockLost when the lease may have expired or was found lost. It is called
// immediately before every statement and every bookkeeping write: a holder that cannot be
// sure it still holds the lease must not send anything.
func (l *lease) check() error {
	if err := l.lost(); err != nil {
		return err
	}
	// Both clocks must agree: the monotonic one does not jump with NTP, the wall clock keeps
	// counting while a virtual machine is frozen (a guest's monotonic clock may not).
	now := time.Now()
	wall := l.epoch.Round(0).Add(time.Duration(l.validUntil.Load()))
	if !now.Before(l.deadline()) || !now.Round(0).Before(wall) {
		return fmt.Errorf("%w: the lease was last confirmed by a request sent at %s and may have expired at %s (now %s): the process stalled or could not renew; nothing more is sent",
			ErrLockLost, l.deadline().Add(leaseMargin(l.ttl)-l.ttl).UTC().Format("15:04:05.000"),
			l.deadline().UTC().Format("15:04:05.000"), now.UTC().Format("15:04:05.000"))
	}
	return nil
}

func ttlSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

// tryAcquire makes one attempt. It returns the holder when another process has the lock.
func (st *store) tryAcquire(ctx context.Context, owner gocql.UUID, ttl time.Duration) (bool, LockHolder, error) {
	existing := map[string]any{}
	applied, err := st.s.Query(`INSERT INTO `+st.lock+` (target, owner, host, pid, tool_version, acquired_at)
		VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS USING TTL ?`,
		st.opt.Keyspace, owner, st.opt.Host, st.opt.PID, st.opt.ToolVersion, time.Now(), ttlSeconds(ttl)).
		WithContext(ctx).Consistency(st.opt.Consistency).SerialConsistency(st.serial()).MapScanCAS(existing)
	if err != nil {
		// A timeout on a lightweight transaction leaves its outcome unknown: read the row
		// at SERIAL to find out whether this attempt took the lock after all.
		h, rerr := st.holder(ctx)
		if rerr == nil && h.Owner == owner.String() {
			return true, h, nil
		}
		return false, LockHolder{}, fmt.Errorf("take the migration lock in %s: %w", st.lock, err)
	}
	if applied {
		return true, LockHolder{}, nil
	}
	return false, holderFrom(existing), nil
}

func holderFrom(row map[string]any) LockHolder {
	var h LockHolder
	if u, ok := row["owner"].(gocql.UUID); ok {
		h.Owner = u.String()
	}
	h.Host, _ = row["host"].(string)
	h.PID, _ = row["pid"].(int)
	h.ToolVersion, _ = row["tool_version"].(string)
	h.Since, _ = row["acquired_at"].(time.Time)
	return h
}

// holder reads the current lease at SERIAL; a zero LockHolder means nobody holds it.
func (st *store) holder(ctx context.Context) (LockHolder, error) {
	row := map[string]any{}
	err := st.s.Query(`SELECT owner, host, pid, tool_version, acquired_at FROM `+st.lock+` WHERE target = ?`, st.opt.Keyspace).
		WithContext(ctx).Consistency(st.serialRead()).MapScan(row)
	if errors.Is(err, gocql.ErrNotFound) {
		return LockHolder{}, nil
	}
	if err != nil {
		return LockHolder{}, fmt.Errorf("read the migration lock %s: %w", st.lock, err)
	}
	return holderFrom(row), nil
}

// errNoLongerNeeded is returned by acquire when, while waiting, the work the lock was
// wanted for was done by its holder.
var errNoLongerNeeded = errors.New("no longer needed")

// acquire waits for the lock until LockTimeout, polling with jitter so that many waiting
// processes do not hit the same Paxos round at the same instant. needed, when set, is
// asked after each failed attempt whether the lock is still wanted (the holder may have
// done the work); when it says no, acquire returns errNoLongerNeeded.
func (st *store) acquire(ctx context.Context, emit func(Event), needed func(context.Context) (bool, error)) (*lease, error) {
	owner, err := gocql.RandomUUID()
	if err != nil {
		return nil, fmt.Errorf("make a lock owner id: %w", err)
	}
	ttl := st.opt.LockTTL
	start := time.Now()
	deadline := start.Add(st.opt.LockTimeout)
	var lastReport time.Time
	var last LockHolder
	for {
		sent := time.Now()
		ok, h, err := st.tryAcquire(ctx, owner, ttl)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil && refusedStatement(err) {
			// A role without SELECT or MODIFY on the lock table is refused the same way every
			// time: waiting out the lock timeout would only hide the refusal.
			return nil, err
		}
		if ok {
			l := &lease{st: st, owner: owner, ttl: ttl, done: make(chan struct{}), epoch: sent}
			l.extend(sent)
			l.ctx, l.cancel = context.WithCancelCause(ctx)
			go l.renew()
			emit(Event{Kind: LockAcquired, Duration: time.Since(start)})
			return l, nil
		}
		if err == nil {
			last = h
			if time.Since(lastReport) >= 10*time.Second {
				emit(Event{Kind: LockWait, Holder: h, Duration: time.Since(start)})
				lastReport = time.Now()
			}
		}
		if err == nil && needed != nil {
			if ok, nerr := needed(ctx); nerr == nil && !ok {
				return nil, errNoLongerNeeded
			}
		}
		// A failed attempt (a timeout on a busy node) is retried like a busy lock.
		now := time.Now()
		if !now.Before(deadline) {
			if err != nil {
				return nil, err
			}
			return nil, &LockedError{Holder: last, Waited: now.Sub(start)}
		}
		base := min(ttl/4, 2*time.Second)
		wait := base/2 + rand.N(base) // uniformly 0.5..1.5 of base
		if rest := deadline.Sub(now); wait > rest {
			wait = rest
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// renew keeps the lease alive every quarter of the TTL. Each success extends the lease
// from the moment its request was sent. It gives up, cancelling l.ctx with ErrLockLost,
// when another owner holds the row (the renewal's condition fails) or when the lease
// deadline passed without a successful renewal. The ticker is only how often it renews:
// whether the lease is still valid is decided by check, before each statement, from the
// deadline alone, so a renewal that comes late cannot make a stale holder send anything.
func (l *lease) renew() {
	defer close(l.done)
	st := l.st
	every := renewEvery(l.ttl)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		if !time.Now().Before(l.deadline()) {
			l.cancel(fmt.Errorf("%w: no renewal succeeded before the lease deadline (the process stalled, or the cluster did not answer)", ErrLockLost))
			return
		}
		// A renewal must not outlive the lease it tries to extend.
		ctx, cancel := context.WithDeadline(l.ctx, l.deadline())
		sent := time.Now()
		applied, err := st.s.Query(`UPDATE `+st.lock+` USING TTL ? SET owner = ?, host = ?, pid = ?, tool_version = ?
			WHERE target = ? IF owner = ?`,
			ttlSeconds(l.ttl), l.owner, st.opt.Host, st.opt.PID, st.opt.ToolVersion, st.opt.Keyspace, l.owner).
			WithContext(ctx).Consistency(st.opt.Consistency).SerialConsistency(st.serial()).MapScanCAS(map[string]any{})
		cancel()
		switch {
		case err == nil && applied:
			l.extend(sent)
		case err == nil && !applied:
			l.cancel(fmt.Errorf("%w: the lease expired and another process (or none) owns it now", ErrLockLost))
			return
		}
	}
}

// release stops renewing and deletes the row if this process still owns it. The delete is
// sent again after a transient error, a timeout included (unlike other conditional
// bookkeeping writes): sent twice, `DELETE ... IF owner = ?` leaves the same state, since
// the second finds the row gone, or owned by another process after the lease expired.
// Eight processes polling the lock on a 3-node ring made a release time out ("received
// only 1 responses") after its run had applied everything.
func (l *lease) release() error {
	l.cancel(nil)
	<-l.done
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := l.st
	_, err := retry.Do(ctx, retry.Policy{Backoff: retryBackoff, Attempts: releaseAttempts,
		Retry: func(err error) bool { return retryClass(err) != permanent }}, func() error {
		_, err := st.s.Query(`DELETE FROM `+st.lock+` WHERE target = ? IF owner = ?`, st.opt.Keyspace, l.owner).
			WithContext(ctx).Consistency(st.opt.Consistency).SerialConsistency(st.serial()).MapScanCAS(map[string]any{})
		return err
	})
	if err != nil {
		return fmt.Errorf("release the migration lock (it expires on its own after %s): %w", l.ttl, err)
	}
	return nil
}

// releaseAttempts bounds the sends of a release (each within the 30 s the release has).
const releaseAttempts = 3

// explain adds why the lease was lost to an error that a cancelled request produced
// ("context canceled"), so that the caller sees ErrLockLost (safe to retry) and its
// reason rather than a bare cancellation.
func (l *lease) explain(err error) error {
	if err == nil || errors.Is(err, ErrLockLost) || errors.Is(err, ErrInDoubt) {
		return err
	}
	if lerr := l.lost(); lerr != nil {
		return fmt.Errorf("%w; %w", err, lerr)
	}
	return err
}

// lost returns why the lease was lost, or nil while it is held.
func (l *lease) lost() error {
	if l.ctx.Err() == nil {
		return nil
	}
	if c := context.Cause(l.ctx); c != nil && errors.Is(c, ErrLockLost) {
		return c
	}
	return nil
}
