package denorm

import (
	"fmt"
	"strings"
)

// Stage is where a move from one table to another stands. A table's primary key cannot be
// altered, so a new access pattern or a new key is a new table, and the service moves to
// it in four steps, each a change of configuration rather than of code:
//
//	OldOnly    write the old table, read it (the new table may not exist yet)
//	DualWrite  write both, read the old one: now copy the rows written before (backfill), verify
//	ReadNew    write both, read the new one: the old one still gets every write, so going
//	           back to DualWrite is safe
//	NewOnly    write and read the new table only: the old one can be dropped by a later migration
//
// Every write of a Model carries one timestamp, so a dual write stores the same cells with
// the same write time in both tables: a backfill that copies with the source's write times
// (USING TIMESTAMP) then loses to any newer dual write and never brings back a row a dual
// delete removed.
//
// The zero Stage is OldOnly: a transition left out of a service's configuration does not
// write to a table that may not have been created yet.
type Stage int

const (
	OldOnly Stage = iota
	DualWrite
	ReadNew
	NewOnly
)

var stageNames = [...]string{"old-only", "dual-write", "read-new", "new-only"}

// String returns the stage's configuration name: old-only, dual-write, read-new or new-only.
func (s Stage) String() string {
	if s < 0 || int(s) >= len(stageNames) {
		return fmt.Sprintf("Stage(%d)", int(s))
	}
	return stageNames[s]
}

// ParseStage reads a stage by its configuration name (case and '_' for '-' do not matter).
func ParseStage(name string) (Stage, error) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
	for i, s := range stageNames {
		if n == s {
			return Stage(i), nil
		}
	}
	return 0, fmt.Errorf("stage %q: want %s", name, strings.Join(stageNames[:], ", "))
}

// MarshalText and UnmarshalText let a Stage sit in a service's configuration struct as its
// name (JSON, YAML, environment decoders, flag.TextVar).
func (s Stage) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(stageNames) {
		return nil, fmt.Errorf("stage %d: not a stage", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a stage name, as ParseStage.
func (s *Stage) UnmarshalText(b []byte) error {
	v, err := ParseStage(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Transition moves an access pattern from table Old to table New (names as in the schema,
// optionally keyspace.table). Old is empty when New serves an access pattern the service
// did not have (posts_by_hashtag added to a service of posts_by_id and posts_by_user):
// then New is written from DualWrite on and read from ReadNew on, and there is nothing to
// drop. Both tables are mapped in the Model as any other; the transition only decides,
// from its Stage, which of them a write reaches and which one readers use.
type Transition struct {
	Old, New string
	Stage    Stage
}

// WritesOld reports whether writes reach the old table at this stage.
func (t Transition) WritesOld() bool { return t.Old != "" && t.Stage < NewOnly }

// WritesNew reports whether writes reach the new table at this stage.
func (t Transition) WritesNew() bool { return t.Stage >= DualWrite }

// ReadsNew reports whether readers use the new table at this stage.
func (t Transition) ReadsNew() bool { return t.Stage >= ReadNew }

// ReadTable is the table readers use at this stage: Old before ReadNew, New from then on.
// It is empty for a new access pattern not yet readable (Old empty, before ReadNew).
func (t Transition) ReadTable() string {
	if t.ReadsNew() {
		return t.New
	}
	return t.Old
}

// Choose returns old while the transition's readers stay on the old table and new from
// ReadNew on. Readers of the two tables usually differ in shape (a re-keyed table is paged
// another way), so a service builds both and lets its configuration pick:
//
//	byUser := denorm.Choose(tr, oldByUser, newByUser)
func Choose[T any](t Transition, old, new T) T {
	if t.ReadsNew() {
		return new
	}
	return old
}

func (t Transition) check() error {
	switch {
	case t.Stage < OldOnly || t.Stage > NewOnly:
		return fmt.Errorf("transition to %s: stage %d: want OldOnly, DualWrite, ReadNew or NewOnly", t.New, int(t.Stage))
	case t.New == "":
		return fmt.Errorf("transition from %q: no new table", t.Old)
	}
	return nil
}

// boundTransition is a Transition resolved against the Model's tables. old is nil for a new
// access pattern, and for an old table no longer mapped or no longer in the schema (allowed
// at NewOnly only: nothing reads or writes it then).
type boundTransition struct {
	Transition
	old, new *table
}

// bindTransitions resolves the transitions against the bound tables (find maps a name as
// the mappings name it to its table, nil when none) and returns, per table, whether writes
// reach it.
func bindTransitions(trs []Transition, tables []*table, find func(string) *table) ([]boundTransition, []bool, error) {
	out := make([]boundTransition, 0, len(trs))
	in := map[*table]string{}
	claim := func(t *table, tr Transition) error {
		if prev, dup := in[t]; dup {
			return &SchemaError{Table: t.name, Msg: fmt.Sprintf("is in two transitions (%s and %s->%s): move one table at a time", prev, tr.Old, tr.New)}
		}
		in[t] = tr.Old + "->" + tr.New
		return nil
	}
	for _, tr := range trs {
		if err := tr.check(); err != nil {
			return nil, nil, err
		}
		b := boundTransition{Transition: tr, new: find(tr.New)}
		if b.new == nil {
			return nil, nil, &SchemaError{Table: tr.New, Msg: "is the new table of a transition but no mapping writes it: map it"}
		}
		if tr.Old != "" {
			b.old = find(tr.Old)
			if b.old == nil && tr.Stage != NewOnly {
				return nil, nil, &SchemaError{Table: tr.Old, Msg: fmt.Sprintf("is the old table of a transition at %s but no mapping writes it: map it until the transition is at %s", tr.Stage, NewOnly)}
			}
			if b.old == b.new {
				return nil, nil, &SchemaError{Table: b.new.name, Msg: "is both the old and the new table of a transition"}
			}
		}
		for _, t := range []*table{b.old, b.new} {
			if t != nil {
				if err := claim(t, tr); err != nil {
					return nil, nil, err
				}
			}
		}
		out = append(out, b)
	}
	writes := make([]bool, len(tables))
	for i, t := range tables {
		writes[i] = true
		for _, b := range out {
			switch t {
			case b.old:
				writes[i] = b.WritesOld()
			case b.new:
				writes[i] = b.WritesNew()
			}
		}
	}
	return out, writes, nil
}

// lookup finds a mapped table by the name Tables gives it, or by its bare name when only one
// mapped table has it.
func (m *Model[E]) lookup(name string) *table {
	if t := m.table(name); t != nil {
		return t
	}
	var found *table
	for _, t := range m.tables {
		bare := t.name[strings.LastIndexByte(t.name, '.')+1:]
		if bare == name || strings.EqualFold(bare, name) && !strings.ContainsAny(name, `"`) {
			if found != nil {
				return nil
			}
			found = t
		}
	}
	return found
}

// Writes reports whether the Model's writes reach table now: every mapped table in no
// transition does, and a transition's tables as its stage says. A table the Model does not
// map is never written.
func (m *Model[E]) Writes(table string) bool {
	t := m.lookup(table)
	if t == nil {
		return false
	}
	for i, mt := range m.tables {
		if mt == t {
			return m.writes[i]
		}
	}
	return false
}

// Reads reports whether readers should use table now: a mapped table in no transition
// always, a transition's old table before ReadNew and its new table from ReadNew on. A
// service uses it to build (or refuse, as not available yet) the reader of a table, and
// Load reads the Source table that it names.
func (m *Model[E]) Reads(table string) bool {
	t := m.lookup(table)
	if t == nil {
		return false
	}
	return m.reads(t)
}

func (m *Model[E]) reads(t *table) bool {
	for _, b := range m.trans {
		switch t {
		case b.old:
			return !b.ReadsNew()
		case b.new:
			return b.ReadsNew()
		}
	}
	return true
}

// Transitions returns the Model's transitions as configured.
func (m *Model[E]) Transitions() []Transition {
	out := make([]Transition, len(m.trans))
	for i, b := range m.trans {
		out[i] = b.Transition
	}
	return out
}
