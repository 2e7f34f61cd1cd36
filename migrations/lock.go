package migrations

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gocql/gocql"
)

// serialRead is the SERIAL consistency used to read a lease row: it completes any
// in-flight lightweight transaction first, so the answer reflects the latest owner.
const serialRead = gocql.Consistency(0x0008)

// lease is the cluster-wide migration lock: one row per target keyspace, written with
// INSERT ... IF NOT EXISTS USING TTL, renewed with UPDATE ... USING TTL ... IF owner = ?,
// deleted with DELETE ... IF owner = ?. A holder that dies stops renewing and the row
// expires after the TTL; only then can another process take it.
type lease struct {
	st     *store
	owner  gocql.UUID
	ttl    time.Duration
	ctx    context.Context // cancelled with ErrLockLost when the lease cannot be kept
	cancel context.CancelCauseFunc
	done   chan struct{}
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
		WithContext(ctx).Consistency(st.opt.Consistency).SerialConsistency(gocql.Serial).MapScanCAS(existing)
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
		WithContext(ctx).Consistency(serialRead).MapScan(row)
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
		ok, h, err := st.tryAcquire(ctx, owner, ttl)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if ok {
			l := &lease{st: st, owner: owner, ttl: ttl, done: make(chan struct{})}
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
		// A failed attempt (a timeout under load) is retried like a busy lock.
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

// renew keeps the lease alive every third of the TTL. It gives up, cancelling l.ctx with
// ErrLockLost, when another owner holds the row or no renewal succeeded for a whole TTL.
func (l *lease) renew() {
	defer close(l.done)
	st := l.st
	every := l.ttl / 3
	lastOK := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(l.ctx, every)
		applied, err := st.s.Query(`UPDATE `+st.lock+` USING TTL ? SET owner = ?, host = ?, pid = ?, tool_version = ?
			WHERE target = ? IF owner = ?`,
			ttlSeconds(l.ttl), l.owner, st.opt.Host, st.opt.PID, st.opt.ToolVersion, st.opt.Keyspace, l.owner).
			WithContext(ctx).Consistency(st.opt.Consistency).SerialConsistency(gocql.Serial).MapScanCAS(map[string]any{})
		cancel()
		switch {
		case err == nil && applied:
			lastOK = time.Now()
		case err == nil && !applied:
			l.cancel(fmt.Errorf("%w: the lease expired and another process (or none) owns it now; a statement may have run twice", ErrLockLost))
			return
		case time.Since(lastOK) >= l.ttl:
			l.cancel(fmt.Errorf("%w: could not renew the lease for %s: %v", ErrLockLost, l.ttl, err))
			return
		}
	}
}

// release stops renewing and deletes the row if this process still owns it.
func (l *lease) release() error {
	l.cancel(nil)
	<-l.done
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := l.st
	_, err := st.s.Query(`DELETE FROM `+st.lock+` WHERE target = ? IF owner = ?`, st.opt.Keyspace, l.owner).
		WithContext(ctx).Consistency(st.opt.Consistency).SerialConsistency(gocql.Serial).MapScanCAS(map[string]any{})
	if err != nil {
		return fmt.Errorf("release the migration lock (it expires on its own after %s): %w", l.ttl, err)
	}
	return nil
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
