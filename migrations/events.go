package migrations

import (
	"fmt"
	"time"
)

// EventKind says what an Event reports.
type EventKind int

// Event kinds, in the order a run emits them.
const (
	LockWait       EventKind = iota // another process holds the lock (Holder); sent every 10s while waiting
	LockAcquired                    // the lock is ours (Duration: how long it took)
	NothingToDo                     // after taking the lock: another process applied everything meanwhile
	MigrationStart                  // a file starts (From > 1 when resuming; Message says what happened before)
	StatementDone                   // statement Statement of Total ran (Duration)
	Recovered                       // a statement in flight when a run died had been applied (Message)
	MigrationDone                   // every statement of the file ran (Duration)
	Warning                         // something the operator should know that does not stop the run (Message), e.g. a node down
)

// Event is progress reported to Options.OnEvent.
type Event struct {
	Kind      EventKind
	Migration *Migration
	Statement int // 1-based
	From      int // first statement this run applies
	Total     int
	Duration  time.Duration
	Holder    LockHolder
	Message   string
	// Bootstrap: statement 1 of this file created the target keyspace before its
	// bookkeeping could exist; the run goes on at statement 2 (not a resumed failure).
	Bootstrap bool
}

// String renders an event as the progress line the CLI prints.
func (e Event) String() string {
	switch e.Kind {
	case LockWait:
		return fmt.Sprintf("waiting for the migration lock held by %s (%s so far)", e.Holder, e.Duration.Round(time.Second))
	case LockAcquired:
		return fmt.Sprintf("took the migration lock in %s", e.Duration.Round(time.Millisecond))
	case NothingToDo:
		return "nothing to apply: another process applied the pending migrations while this one waited for the lock"
	case MigrationStart:
		switch {
		case e.Total == 0:
			return fmt.Sprintf("%s: %s: a no-op version, recorded as applied", e.Migration, e.Migration.NoOpKind())
		case e.Bootstrap && e.Total == 2:
			return fmt.Sprintf("%s: %s; applying statement 2", e.Migration, e.Message)
		case e.Bootstrap && e.Total > 2:
			return fmt.Sprintf("%s: %s; applying statements 2-%d", e.Migration, e.Message, e.Total)
		}
		if e.From > e.Total && e.Message != "" {
			return fmt.Sprintf("%s: %s", e.Migration, e.Message)
		}
		if e.From > 1 {
			return fmt.Sprintf("%s: resuming at statement %d of %d: %s", e.Migration, e.From, e.Total, e.Message)
		}
		if e.Total == 1 {
			return fmt.Sprintf("%s: applying 1 statement", e.Migration)
		}
		return fmt.Sprintf("%s: applying %d statements", e.Migration, e.Total)
	case StatementDone:
		return fmt.Sprintf("%s: statement %d/%d done in %s", e.Migration, e.Statement, e.Total, e.Duration.Round(time.Millisecond))
	case Recovered:
		return fmt.Sprintf("%s: %s", e.Migration, e.Message)
	case MigrationDone:
		return fmt.Sprintf("%s: applied in %s", e.Migration, e.Duration.Round(time.Millisecond))
	case Warning:
		return "warning: " + e.Message
	}
	return fmt.Sprintf("event %d", e.Kind)
}
