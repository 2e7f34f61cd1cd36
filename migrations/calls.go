package migrations

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/gocql/gocql"
)

// CallFunc is Go code a gocqlx file runs on a `-- CALL name;` line (Options.Calls): a data
// fix, a backfill, anything CQL cannot say. It runs with the run's context and session,
// while the run holds the migration lock. It runs at least once: a run that stops after a
// call and before the statement that follows it calls it again when the history resumes,
// so a call must be safe to repeat (as gocqlx's own callbacks must be, since gocqlx records
// a call only after it returns).
type CallFunc func(ctx context.Context, s *gocql.Session) error

// ErrUnknownCall: a pending gocqlx file names a call the program did not register.
var ErrUnknownCall = errors.New("calls a function that is not registered")

// CallError is a call that failed or is not registered, with the file line naming it.
type CallError struct {
	File string
	Call Call
	Err  error
}

func (e *CallError) Error() string {
	if errors.Is(e.Err, ErrUnknownCall) {
		return fmt.Sprintf("%s: -- CALL %s; %v: nothing was applied. A library user registers it in Options.Calls; the CLI cannot run Go code, so run the history from the program that owns it, or pass --skip-calls to apply the statements without it", e.Call.Pos, e.Call.Name, e.Err)
	}
	return fmt.Sprintf("%s: -- CALL %s; failed: %v", e.Call.Pos, e.Call.Name, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// checkCalls refuses, before anything runs, a pending file whose calls are not all
// registered, unless SkipCalls says to go on without them.
func (m *Migrator) checkCalls(migs []*Migration) error {
	if m.opt.SkipCalls {
		return nil
	}
	var errs []error
	for _, mg := range migs {
		for _, c := range mg.Calls {
			if _, ok := m.opt.Calls[c.Name]; !ok {
				errs = append(errs, &CallError{File: mg.File, Call: c, Err: ErrUnknownCall})
			}
		}
	}
	return errors.Join(errs...)
}

// callBoundary is the last statement from a on that a group may reach: a call between two
// statements ends the group before it, so that the call runs in its place.
func callBoundary(mg *Migration, a int) int {
	b := len(mg.Statements)
	for _, c := range mg.Calls {
		if c.After >= a && c.After < b {
			b = c.After
		}
	}
	return b
}

// runCalls runs mg's calls placed after its first `after` statements, in file order.
func (m *Migrator) runCalls(l *lease, f *fileRecorder, mg *Migration, after int) error {
	calls := make([]Call, 0, len(mg.Calls))
	for _, c := range mg.Calls {
		if c.After == after {
			calls = append(calls, c)
		}
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].Pos.Offset < calls[j].Pos.Offset })
	for _, c := range calls {
		fn, ok := m.opt.Calls[c.Name]
		if !ok {
			m.emit(Event{Kind: Warning, Migration: mg, Message: fmt.Sprintf("%s: skipped -- CALL %s; (not registered; SkipCalls)", c.Pos, c.Name)})
			continue
		}
		if err := l.check(); err != nil {
			return err
		}
		if err := fn(l.ctx, m.s); err != nil {
			err = &CallError{File: mg.File, Call: c, Err: err}
			fctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_ = f.fail(fctx, err, 0) // best effort: the error returned says it all
			cancel()
			return err
		}
	}
	return nil
}

// RenumberedError: a file the bookkeeping records under one version now has another.
// In the layouts numbered by their order (dotted versions, gocqlx's names, manifests), a
// file added before the last applied one, or one removed, moves every later file; in any
// layout, a renamed file does. Applying by the new numbers would run applied files again
// and skip others, so nothing runs.
type RenumberedError struct {
	File          string
	Recorded, Now int64
}

func (e *RenumberedError) Error() string {
	return fmt.Sprintf("%s was applied as version %d and is version %d now: a file was added, removed or renamed before it. "+
		"Files numbered by their order (dotted versions, gocqlx's names, manifest folders) may only be added after the last applied one; put the files back as they were, or add the new one at the end",
		e.File, e.Recorded, e.Now)
}

// renumbered finds a recorded file that the folder now numbers differently, by the file
// name the bookkeeping keeps (names that several files share, as a manifest's folders
// may, say nothing and are left out).
func (m *Migrator) renumbered(recs map[int64]*Record) error {
	byName := map[string]*Migration{}
	shared := map[string]bool{}
	for _, mg := range m.migs {
		b := fileBase(mg.File)
		if byName[b] != nil {
			shared[b] = true
		}
		byName[b] = mg
	}
	for _, v := range sortedVersions(recs) {
		r := recs[v]
		if mg := byName[r.Name]; mg != nil && !shared[r.Name] && mg.Version != v {
			return &RenumberedError{File: mg.File, Recorded: v, Now: mg.Version}
		}
	}
	return nil
}
