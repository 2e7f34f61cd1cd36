package migrations

import (
	"context"
	"fmt"
)

// Moving reports whether another run may be changing the schema while this one judges it
// before taking the lock: it holds the lock, or the history changed since steps were
// planned (Plan(ctx, to) gives a different list now). A check of the pending statements
// against the live schema made outside the lock cannot be trusted then: the holder applies
// a statement before it records it, so the schema can be ahead of the history this run
// read (a column "added twice"), or a read can see it behind (a column "missing"). The
// check under the lock (Options.BeforeApply) is exact and decides.
//
// It returns why ("" when nothing moves). A lock that cannot be read counts as moving: in
// doubt the run defers to the check under the lock.
func (m *Migrator) Moving(ctx context.Context, steps []Step, to int64) (string, error) {
	now, err := m.Plan(ctx, to)
	if err != nil {
		return "", err
	}
	if !sameSteps(steps, now) {
		return fmt.Sprintf("the history changed while this run read it (%d pending statements, now %d)", len(steps), len(now)), nil
	}
	ok, err := tableExists(ctx, m.st.s, m.st.opt.BookkeepingKeyspace, m.st.opt.Table+"_lock")
	if err != nil {
		return fmt.Sprintf("the migration lock could not be looked up (%v)", err), nil
	}
	if !ok {
		// No run applies a statement without the lock, and the lock's table outlives every
		// run: none has applied one yet.
		return "", nil
	}
	h, err := m.st.holder(ctx)
	if err != nil {
		return fmt.Sprintf("the migration lock could not be read (%v)", err), nil
	}
	if h.Owner != "" {
		return "another run holds the migration lock (" + h.String() + ")", nil
	}
	return "", nil
}

// sameSteps reports whether two plans list the same statements.
func sameSteps(a, b []Step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Migration.Version != b[i].Migration.Version || a[i].Index != b[i].Index || a[i].InFlight != b[i].InFlight {
			return false
		}
	}
	return true
}
