package migrations

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

// Sentinel errors. Every typed error below matches one of them with errors.Is, so a
// caller can branch without knowing the details.
var (
	// ErrChecksumMismatch: a file was changed after it was applied. Restore the file, or
	// accept the change with AcceptChecksum after checking it is harmless.
	ErrChecksumMismatch = errors.New("migration file changed after it was applied")
	// ErrLocked: another process held the migration lock for longer than LockTimeout.
	ErrLocked = errors.New("migration lock held by another process")
	// ErrLockLost: the lease could not be renewed (the process stalled for longer than the
	// lease TTL, or lost the cluster), so another process may now be migrating. The run stops.
	ErrLockLost = errors.New("migration lock lost")
	// ErrNoKeyspace: the target or bookkeeping keyspace does not exist and no replication
	// was given to create it.
	ErrNoKeyspace = errors.New("keyspace does not exist")
	// ErrSchemaDisagreement: the nodes did not agree on the schema before the deadline.
	ErrSchemaDisagreement = errors.New("schema disagreement")
	// ErrUnknownVersion: a version given to UpTo, Baseline or AcceptChecksum has no file.
	ErrUnknownVersion = errors.New("no migration file has this version")
	// ErrInDoubt: a statement was sent by a run that stopped before recording its outcome,
	// and it cannot safely be sent again (a counter update, a list append): it may or may not
	// have been applied. A person checks and records the answer (cqlsize migrate resolve).
	ErrInDoubt = errors.New("statement in doubt")
	// ErrWrongKeyspace: the session is bound to a keyspace other than Options.Keyspace, so the
	// files would change one keyspace while the history is recorded for another.
	ErrWrongKeyspace = errors.New("session bound to another keyspace")
)

// WrongKeyspaceError is a session bound (ClusterConfig.Keyspace) to a keyspace other than
// the target keyspace.
type WrongKeyspaceError struct {
	Session  string // the keyspace the session is bound to
	Keyspace string // Options.Keyspace
}

func (e *WrongKeyspaceError) Error() string {
	return fmt.Sprintf("migrations: the session is bound to keyspace %s (ClusterConfig.Keyspace) but the target keyspace is %s: the files' unqualified names would resolve to %s while the history is recorded for %s; bind the session to %s, use a session with no keyspace (the migrator then qualifies the names itself), or set Options.Keyspace to %s",
		e.Session, e.Keyspace, e.Session, e.Keyspace, e.Keyspace, e.Session)
}

func (e *WrongKeyspaceError) Is(target error) bool { return target == ErrWrongKeyspace }

// ChecksumError is a file whose sha256 differs from the one recorded when it was applied.
type ChecksumError struct {
	File     string
	Version  int64
	Recorded string // sha256 recorded when the file was applied
	Current  string // sha256 of the file now
	// Statement is set when a partly applied file changed in a statement that had
	// already run (1-based); 0 for a fully applied file.
	Statement int
}

func (e *ChecksumError) Error() string {
	if e.Statement > 0 {
		return fmt.Sprintf("%s: statement %d was applied and has changed since (file checksum recorded %s, now %s); restore it, or run Migrator.AcceptChecksum(%d) once the change is checked",
			e.File, e.Statement, e.Recorded, e.Current, e.Version)
	}
	return fmt.Sprintf("%s: changed after it was applied: checksum recorded %s, now %s; restore the file, or run Migrator.AcceptChecksum(%d) once the change is checked",
		e.File, e.Recorded, e.Current, e.Version)
}

func (e *ChecksumError) Is(target error) bool { return target == ErrChecksumMismatch }

// LockHolder says who holds the migration lock.
type LockHolder struct {
	Owner       string // the holder's run id
	Host        string
	PID         int
	ToolVersion string
	Since       time.Time
}

func (h LockHolder) String() string {
	s := fmt.Sprintf("%s pid %d", h.Host, h.PID)
	if !h.Since.IsZero() {
		s += " since " + h.Since.UTC().Format(time.RFC3339)
	}
	return s
}

// LockedError is returned when the lock could not be taken before LockTimeout.
type LockedError struct {
	Holder LockHolder
	Waited time.Duration
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("migration lock held by %s; gave up after waiting %s (raise Options.LockTimeout, or wait: an abandoned lease expires after its TTL)",
		e.Holder, e.Waited.Round(time.Second))
}

func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// PartialError is a migration that stopped partway: Applied statements of the file ran,
// statement Statement failed with Err. DDL is not transactional, so the statements that
// ran stay applied; the bookkeeping records them and the next run continues with
// Statement once the cause is fixed.
type PartialError struct {
	File      string
	Version   int64
	Statement int     // 1-based, the statement that failed
	Total     int     // statements in the file
	Pos       cql.Pos // where the failed statement starts
	Applied   int     // statements of the file that are applied
	// Unrecorded: of those, how many the bookkeeping holds only as being sent (the run
	// stopped before the write that records them): the next run judges them as in flight.
	Unrecorded int
	Err        error
	// Text is the failed statement as written; LastRan is where the last statement that
	// ran before it starts (zero when none ran). Both come from the runner, which says
	// with them what to fix.
	Text    string
	LastRan cql.Pos
	// Refused: the node refused the statement as invalid (syntax, an unknown column, a
	// permission...), so it did not run, and running it again as written fails the same
	// way: the statement has to change. Otherwise (a timeout, a node that went away) the
	// same file goes through on a later run.
	Refused bool
}

func (e *PartialError) Error() string {
	var msg string
	if e.Unrecorded > 0 {
		from := e.Applied - e.Unrecorded + 1
		which, them := fmt.Sprintf("statement %d is", from), "it"
		if e.Unrecorded > 1 {
			which, them = fmt.Sprintf("statements %d-%d are", from, e.Applied), "them"
		}
		msg = fmt.Sprintf("%s: statement %d of %d failed (%d applied; %s recorded only as being sent: the next run judges %s as in flight, then continues from statement %d): %v",
			e.Pos, e.Statement, e.Total, e.Applied, which, them, e.Applied+1, e.Err)
	} else {
		msg = fmt.Sprintf("%s: statement %d of %d failed (%d applied, recorded; the next run continues from statement %d): %v",
			e.Pos, e.Statement, e.Total, e.Applied, e.Applied+1, e.Err)
	}
	if e.Text == "" {
		return msg
	}
	file := e.File
	if file == "" {
		file = e.Pos.File
	}
	msg += fmt.Sprintf("\n  the statement (%d:%d): %s", e.Pos.Line, e.Pos.Col, shortText(e.Text))
	switch {
	case e.Applied == 1:
		msg += fmt.Sprintf("\n  applied before it: statement 1 (%d:%d); the next run skips it. Leave it as it is: a change to a statement that ran is refused as a changed checksum", e.LastRan.Line, e.LastRan.Col)
	case e.Applied > 1:
		msg += fmt.Sprintf("\n  applied before it: statements 1-%d (the last at %d:%d); the next run skips them. Leave them as they are: a change to a statement that ran is refused as a changed checksum", e.Applied, e.LastRan.Line, e.LastRan.Col)
	default:
		msg += "\n  applied before it: none of the file's statements"
	}
	if e.Refused {
		msg += fmt.Sprintf("\n  to do: the node refused it, so it did not run and will fail again as written: fix statement %d in %s, then run up again; it continues from statement %d", e.Statement, file, e.Statement)
	} else {
		msg += fmt.Sprintf("\n  to do: run up again once the cause above is gone, with the file as it is; it continues from statement %d", e.Applied+1)
	}
	return msg
}

// shortText is a statement on one line, cut after 200 characters.
func shortText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "..."
	}
	return s
}

func (e *PartialError) Unwrap() error { return e.Err }

// DisagreementError names the nodes whose schema version differs from the coordinator's
// after a DDL statement.
type DisagreementError struct {
	Statement string            // file:line:col of the statement that was applied
	Versions  map[string]string // host -> schema_version
	Err       error             // what the wait ended with (deadline, or a read error)
}

func (e *DisagreementError) Error() string {
	hosts := make([]string, 0, len(e.Versions))
	for h := range e.Versions {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	// The version most nodes report is the one the others have to reach.
	count := map[string]int{}
	for _, v := range e.Versions {
		count[v]++
	}
	major, best := "", 0
	for v, n := range count {
		if n > best || n == best && v < major {
			major, best = v, n
		}
	}
	var behind []string
	for _, h := range hosts {
		if e.Versions[h] != major {
			behind = append(behind, h+" has "+e.Versions[h])
		}
	}
	msg := "nodes did not agree on the schema"
	if e.Statement != "" {
		msg += " after " + e.Statement
	}
	if len(behind) > 0 {
		msg += fmt.Sprintf(": %s (the others have %s)", strings.Join(behind, ", "), major)
	}
	if e.Err != nil {
		msg += fmt.Sprintf(": %v", e.Err)
	}
	return msg + "; check those nodes (nodetool describecluster) before running again"
}

func (e *DisagreementError) Is(target error) bool { return target == ErrSchemaDisagreement }

func (e *DisagreementError) Unwrap() error { return e.Err }
