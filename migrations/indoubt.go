package migrations

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
)

// InDoubt is the record state of a file stopped at a statement that a run recorded as
// being sent and never recorded as done, and that cannot safely be sent again.
const InDoubt RecordState = "in_doubt"

// InDoubtError is a statement that may or may not have been applied: a run that held the
// migration lock recorded that it was sending it (see fence.go) and stopped before recording
// that it ran, and the statement is not idempotent (a counter update, a list append or
// prepend, a list element deleted by index, a TRUNCATE, or DDL whose object exists but
// differs from the statement). Nothing after it runs until a person decides with
// `cqlsize migrate resolve VERSION STATEMENT --applied|--rerun` (Migrator.Resolve).
type InDoubtError struct {
	File      string
	Version   int64
	Statement int // 1-based
	Total     int
	Pos       cql.Pos // where the statement starts
	Kind      string  // "UPDATE", "CREATE TABLE", ...
	Reason    string  // why it cannot simply be sent again
	Check     string  // what a person should look at to decide
	By        string  // the run that sent it: host pid
	// Cause is the cluster's answer when the run that sent the statement is the one
	// reporting it (a timeout, a lost connection: an answer that does not say whether the
	// statement was applied); nil when a successor found it.
	Cause error
}

func (e *InDoubtError) Error() string {
	by := "a run"
	if e.By != "" {
		by = "a run by " + e.By
	}
	what := by + " recorded that it was sending it and stopped before recording that it ran"
	if e.Cause != nil {
		what = fmt.Sprintf("this run sent it and the cluster answered %q, which does not say whether it was applied", e.Cause.Error())
	}
	return fmt.Sprintf("%s: statement %d of %d (%s) is in doubt: %s, so it may or may not have been applied; %s. Check %s, then record the answer: Migrator.Resolve(%d, %d, true) if it ran, Migrator.Resolve(%d, %d, false) if it did not (the next Migrator.Up sends it)",
		e.Pos, e.Statement, e.Total, e.Kind, what, e.Reason, e.Check, e.Version, e.Statement, e.Version, e.Statement)
}

// Is makes errors.Is(err, ErrInDoubt) true.
func (e *InDoubtError) Is(target error) bool { return target == ErrInDoubt }

// rerunVerdict says what a successor does with a statement a previous run was sending.
type rerunVerdict int

const (
	rerunSend    rerunVerdict = iota // idempotent: send it again
	rerunDone                        // its effect is in the live schema as written: count it done
	rerunInDoubt                     // cannot tell, and sending it again could apply it twice
)

// judgeInFlight decides about statement stmt of a file (in keyspace ks) that a previous run
// recorded as being sent. live is the live schema of the keyspaces the statement names.
// DML is judged from its AST (and column types from live): INSERT, UPDATE and DELETE are
// idempotent unless they add to or subtract from a counter, append or prepend to a list, or
// delete a list element by index; a BATCH is idempotent when all of its statements are.
// DDL is judged from the live schema: a CREATE whose object exists as written is done, one
// whose object is missing is sent; an ALTER ... ADD whose columns are there is done; a DROP
// whose object is gone is done; anything with IF [NOT] EXISTS and any ALTER ... WITH is
// simply sent again.
func judgeInFlight(stmt cql.Statement, ks string, live *cql.Schema) (verdict rerunVerdict, reason, check string) {
	if stmt == nil {
		return rerunInDoubt, "the statement could not be parsed, so whether it is idempotent is unknown", "the statement's effect"
	}
	switch s := stmt.(type) {
	case *cql.Select, *cql.Use, *cql.Describe, *cql.Auth:
		// Role statements: CREATE ROLE again fails with "already exists", which the runner
		// recognises; GRANT and REVOKE are idempotent.
		return rerunSend, "", ""
	case *cql.Insert, *cql.Update, *cql.Delete, *cql.Batch:
		return judgeDML(s, ks, live)
	case *cql.Truncate:
		return rerunInDoubt, "TRUNCATE again would also delete every row written since the first one", "whether " + s.Table.String() + " was emptied at the time"
	}
	return judgeDDL(stmt, ks, live)
}

func tableOf(live *cql.Schema, ks string, q cql.QualifiedName) *cql.Table {
	if !q.Keyspace.IsZero() {
		ks = q.Keyspace.Name
	}
	if live == nil {
		return nil
	}
	return live.Table(ks, q.Name.Name)
}

func judgeDML(stmt cql.Statement, ks string, live *cql.Schema) (rerunVerdict, string, string) {
	switch s := stmt.(type) {
	case *cql.Insert:
		return rerunSend, "", ""
	case *cql.Update:
		t := tableOf(live, ks, s.Table)
		var bad []string
		for _, a := range s.Set {
			if a.Op != cql.AssignAdd && a.Op != cql.AssignSub && a.Op != cql.AssignPrepend {
				continue
			}
			var col *cql.Column
			if t != nil {
				col = t.Column(a.Column.Name)
			}
			switch {
			case col == nil:
				// Unknown type: c = c + x may be a counter; assume the worst.
				bad = append(bad, a.Column.Name+" ("+a.Op.String()+" on a column of unknown type)")
			case col.Type.Kind == cql.Native && col.Type.Name == "counter":
				bad = append(bad, a.Column.Name+" (a counter)")
			case col.Type.Kind == cql.List && a.Op != cql.AssignSub:
				bad = append(bad, a.Column.Name+" (a list "+map[bool]string{true: "prepend", false: "append"}[a.Op == cql.AssignPrepend]+")")
			}
		}
		if len(bad) == 0 {
			return rerunSend, "", ""
		}
		return rerunInDoubt, "it changes " + strings.Join(bad, ", ") + " relative to its current value, so running it twice applies it twice",
			checkQuery(s.Table, columnsOf(s.Set), s.Where, s.Text, s.Pos)
	case *cql.Delete:
		t := tableOf(live, ks, s.Table)
		for _, d := range s.Columns {
			if d.Key == nil {
				continue
			}
			var col *cql.Column
			if t != nil {
				col = t.Column(d.Column.Name)
			}
			if col == nil || col.Type.Kind == cql.List {
				return rerunInDoubt, "it deletes element " + d.Key.Text + " of list " + d.Column.Name + " by index: a second run deletes the next element",
					checkQuery(s.Table, []string{d.Column.Name}, s.Where, s.Text, s.Pos)
			}
		}
		return rerunSend, "", ""
	case *cql.Batch:
		if s.Type == cql.CounterBatch {
			return rerunInDoubt, "it is a COUNTER batch: running it twice adds twice", "the counters it updates"
		}
		for _, in := range s.Statements {
			if v, reason, check := judgeDML(in, ks, live); v != rerunSend {
				return v, "a statement of the batch is not idempotent: " + reason, check
			}
		}
		return rerunSend, "", ""
	}
	return rerunInDoubt, "it is not a statement whose repetition is known to be harmless", "its effect"
}

func columnsOf(as []*cql.Assignment) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Column.String())
	}
	return out
}

// checkQuery renders the SELECT a person runs to see what the statement changed: the
// columns it sets, from its table, with its WHERE clause.
func checkQuery(table cql.QualifiedName, cols []string, where []*cql.Relation, text string, start cql.Pos) string {
	if len(where) == 0 || len(cols) == 0 {
		return "the rows of " + table.String() + " it changes"
	}
	from := where[0].Pos.Offset - start.Offset
	if from < 0 || from > len(text) {
		return "the rows of " + table.String() + " it changes"
	}
	w := text[from:]
	if i := strings.Index(strings.ToUpper(w), " IF "); i >= 0 {
		w = w[:i]
	}
	w = strings.Join(strings.Fields(w), " ")
	return fmt.Sprintf("`SELECT %s FROM %s WHERE %s`", strings.Join(cols, ", "), table.String(), w)
}

// judgeDDL decides about a schema statement from the live schema.
func judgeDDL(stmt cql.Statement, ks string, live *cql.Schema) (rerunVerdict, string, string) {
	if live == nil {
		return rerunSend, "", ""
	}
	j := ddlJudge{stmt: stmt, ks: ks, live: live}
	switch s := stmt.(type) {
	case *cql.CreateKeyspace:
		if s.IfNotExists || j.kspace(s.Name.Name) == nil {
			return rerunSend, "", ""
		}
		return rerunDone, "", ""
	case *cql.CreateTable, *cql.CreateType, *cql.CreateView, *cql.CreateIndex:
		return j.create(stmt)
	case *cql.AlterTable:
		return j.alterTable(s)
	case *cql.AlterUserType:
		return j.alterType(s)
	}
	if j.dropped(stmt) {
		return rerunDone, "", ""
	}
	// Functions, aggregates, triggers, ALTER KEYSPACE/VIEW: sending them again either does
	// the same thing or fails with "already exists", which the runner recognises.
	return rerunSend, "", ""
}

// ddlJudge judges one schema statement against the live schema.
type ddlJudge struct {
	stmt cql.Statement
	ks   string // the keyspace of unqualified names
	live *cql.Schema
}

func (j ddlJudge) keyspaceOf(q cql.QualifiedName) string {
	if !q.Keyspace.IsZero() {
		return q.Keyspace.Name
	}
	return j.ks
}

func (j ddlJudge) kspace(name string) *cql.Keyspace { return j.live.Keyspaces[name] }

// asWritten compares the live object with what the statement creates, by removing the
// object from a copy of the live schema and applying the statement to it.
func (j ddlJudge) asWritten(remove func(*cql.Schema)) (rerunVerdict, string, string) {
	probe := j.live.Clone()
	remove(probe)
	if err := probe.Apply(j.stmt); err != nil {
		return rerunInDoubt, "its object exists, and comparing it with the statement failed (" + err.Error() + ")", "the live definition against the statement"
	}
	if diffs := liveschema.Diff(probe, j.live); len(diffs) > 0 {
		return rerunInDoubt, "its object exists but differs from the statement: " + strings.Join(diffs, "; "), "who created it (DESCRIBE it) and whether the file or the cluster is right"
	}
	return rerunDone, "", ""
}

// create judges a CREATE of a table, type, view or index: without IF NOT EXISTS, an object
// that exists is done when it is as the statement writes it, in doubt when it differs.
func (j ddlJudge) create(stmt cql.Statement) (rerunVerdict, string, string) {
	switch s := stmt.(type) {
	case *cql.CreateTable:
		k := j.kspace(j.keyspaceOf(s.Name))
		if s.IfNotExists || k == nil || k.Tables[s.Name.Name.Name] == nil {
			return rerunSend, "", ""
		}
		return j.asWritten(func(p *cql.Schema) { delete(p.Keyspaces[k.Name].Tables, s.Name.Name.Name) })
	case *cql.CreateType:
		k := j.kspace(j.keyspaceOf(s.Name))
		if s.IfNotExists || k == nil || k.Types[s.Name.Name.Name] == nil {
			return rerunSend, "", ""
		}
		return j.asWritten(func(p *cql.Schema) { delete(p.Keyspaces[k.Name].Types, s.Name.Name.Name) })
	case *cql.CreateView:
		k := j.kspace(j.keyspaceOf(s.Name))
		if s.IfNotExists || k == nil || k.Views[s.Name.Name.Name] == nil {
			return rerunSend, "", ""
		}
		return j.asWritten(func(p *cql.Schema) { delete(p.Keyspaces[k.Name].Views, s.Name.Name.Name) })
	case *cql.CreateIndex:
		k := j.kspace(j.keyspaceOf(s.Table))
		if s.IfNotExists || k == nil || s.Name.IsZero() || k.Indexes[s.Name.Name] == nil {
			// An unnamed index: running it again fails with "already exists" when it is
			// there, which the runner recognises.
			return rerunSend, "", ""
		}
		return j.asWritten(func(p *cql.Schema) { delete(p.Keyspaces[k.Name].Indexes, s.Name.Name) })
	}
	return rerunSend, "", ""
}

// alterTable judges ALTER TABLE ADD, DROP and RENAME by the columns the live table has.
func (j ddlJudge) alterTable(s *cql.AlterTable) (rerunVerdict, string, string) {
	t := tableOf(j.live, j.ks, s.Name)
	if t == nil || s.IfColumn || s.IfExists {
		return rerunSend, "", ""
	}
	switch s.Action {
	case cql.AlterAdd:
		present := 0
		for _, c := range s.Add {
			if col := t.Column(c.Name.Name); col != nil {
				if !col.Type.Equal(c.Type) {
					return rerunInDoubt, fmt.Sprintf("column %s exists with type %s, the statement adds it as %s", c.Name.Name, col.Type, c.Type),
						"who added the column and which type is right"
				}
				present++
			}
		}
		if present == len(s.Add) {
			return rerunDone, "", ""
		}
		return rerunSend, "", ""
	case cql.AlterDrop:
		for _, c := range s.Drop {
			if t.Column(c.Name) != nil {
				return rerunSend, "", ""
			}
		}
		return rerunDone, "", ""
	case cql.AlterRename:
		for _, r := range s.Renames {
			if t.Column(r.From.Name) != nil {
				return rerunSend, "", ""
			}
		}
		return rerunDone, "", ""
	}
	return rerunSend, "", "" // WITH, MASK: setting the same thing twice is the same
}

// alterType judges ALTER TYPE ADD and RENAME by the fields the live type has.
func (j ddlJudge) alterType(s *cql.AlterUserType) (rerunVerdict, string, string) {
	k := j.kspace(j.keyspaceOf(s.Name))
	if k == nil || k.Types[s.Name.Name.Name] == nil || s.IfField || s.IfExists {
		return rerunSend, "", ""
	}
	ut := k.Types[s.Name.Name.Name]
	has := func(name string) bool {
		for _, f := range ut.Fields {
			if f.Name == name {
				return true
			}
		}
		return false
	}
	switch s.Action {
	case cql.AlterTypeAdd:
		if s.Add != nil && has(s.Add.Name.Name) {
			return rerunDone, "", ""
		}
	case cql.AlterTypeRename:
		for _, r := range s.Renames {
			if has(r.From.Name) {
				return rerunSend, "", ""
			}
		}
		return rerunDone, "", ""
	}
	return rerunSend, "", ""
}

// dropped reports whether a DROP without IF EXISTS has already removed its object.
func (j ddlJudge) dropped(stmt cql.Statement) bool {
	switch s := stmt.(type) {
	case *cql.DropTable:
		k := j.kspace(j.keyspaceOf(s.Name))
		return !s.IfExists && (k == nil || k.Tables[s.Name.Name.Name] == nil)
	case *cql.DropType:
		k := j.kspace(j.keyspaceOf(s.Name))
		return !s.IfExists && (k == nil || k.Types[s.Name.Name.Name] == nil)
	case *cql.DropView:
		k := j.kspace(j.keyspaceOf(s.Name))
		return !s.IfExists && (k == nil || k.Views[s.Name.Name.Name] == nil)
	case *cql.DropIndex:
		k := j.kspace(j.keyspaceOf(s.Name))
		return !s.IfExists && (k == nil || k.Indexes[s.Name.Name.Name] == nil)
	case *cql.DropKeyspace:
		return !s.IfExists && j.kspace(s.Name.Name) == nil
	}
	return false
}

// namedKeyspaces lists the keyspaces a statement touches (ks for unqualified names), for
// reading the live schema it is judged against.
func namedKeyspaces(stmt cql.Statement, ks string) []string {
	out := []string{ks}
	add := func(q cql.QualifiedName) {
		if !q.Keyspace.IsZero() && q.Keyspace.Name != ks {
			out = append(out, q.Keyspace.Name)
		}
	}
	switch s := stmt.(type) {
	case *cql.Update:
		add(s.Table)
	case *cql.Delete:
		add(s.Table)
	case *cql.Batch:
		for _, in := range s.Statements {
			out = append(out, namedKeyspaces(in, ks)[1:]...)
		}
	case *cql.CreateTable:
		add(s.Name)
	case *cql.CreateType:
		add(s.Name)
	case *cql.CreateView:
		add(s.Name)
	case *cql.CreateIndex:
		add(s.Table)
	case *cql.AlterTable:
		add(s.Name)
	case *cql.AlterUserType:
		add(s.Name)
	case *cql.DropTable:
		add(s.Name)
	case *cql.DropType:
		add(s.Name)
	case *cql.DropView:
		add(s.Name)
	case *cql.DropIndex:
		add(s.Name)
	case *cql.CreateKeyspace:
		out = append(out, s.Name.Name)
	case *cql.DropKeyspace:
		out = append(out, s.Name.Name)
	}
	return out
}

// readLive reads the live schema a statement is judged against.
func (m *Migrator) readLive(ctx context.Context, stmt cql.Statement, ks string) (*cql.Schema, error) {
	live, err := liveschema.Read(ctx, m.s, namedKeyspaces(stmt, ks)...)
	if err != nil {
		return nil, fmt.Errorf("read the live schema to judge a statement a previous run was sending: %w", err)
	}
	live.Current = ks
	return live, nil
}

// inDoubtAfter judges statement i, which this run sent and whose outcome the cluster's
// answer leaves unknown (a timeout, a lost connection). One that cannot be sent again is in
// doubt now: the run records that and says so (exit 4), instead of stopping "partway" for a
// retry that would only stop at the same statement. It returns nil when the statement may be
// sent again or counted done (the next run judges it as a successor does), or when the live
// schema cannot be read to judge it.
func (m *Migrator) inDoubtAfter(l *lease, f *fileRecorder, i int, cause error) error {
	mg := f.mg
	if i-1 >= len(mg.Parsed) || mg.Parsed[i-1] == nil {
		return nil
	}
	parsed := mg.Parsed[i-1]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	live, err := m.readLive(ctx, parsed, stmtKeyspace(f.mg, i, m.opt.Keyspace))
	if err != nil {
		return nil
	}
	verdict, reason, check := judgeInFlight(parsed, stmtKeyspace(f.mg, i, m.opt.Keyspace), live)
	if verdict != rerunInDoubt {
		return nil
	}
	stmt := mg.Statements[i-1]
	e := &InDoubtError{File: mg.File, Version: mg.Version, Statement: i, Total: len(mg.Statements), Pos: stmt.Pos,
		Kind: statementKind(stmt.Text), Reason: reason, Check: check,
		By: fmt.Sprintf("%s pid %d", m.opt.Host, m.opt.PID), Cause: cause}
	if err := f.fail(ctx, cause, i); err != nil {
		return fmt.Errorf("%w (and recording it failed: %v)", e, err)
	}
	if err := m.st.markInDoubt(ctx, l.owner, mg, i, e.Error()); err != nil {
		return fmt.Errorf("%w (and recording it failed: %v)", e, err)
	}
	return e
}

// settleLostAnswer decides, within this run, about schema change i whose answer was lost
// (cause: most often the client timeout, on a cluster busy enough that the change outlasts
// it). The change is usually still being applied: the run waits for the nodes to agree and
// judges the statement as a successor would judge one left in flight (judgeInFlight): done
// when its effect is in the live schema as written, sent once more when sending it again
// cannot apply it twice. It reports whether the statement now counts as applied; when not,
// the run stops on cause as before, and the next run judges it again.
func (m *Migrator) settleLostAnswer(l *lease, f *fileRecorder, i int, text string, cause error) bool {
	mg := f.mg
	if i-1 >= len(mg.Parsed) || mg.Parsed[i-1] == nil {
		return false
	}
	stmt, parsed, ks := mg.Statements[i-1], mg.Parsed[i-1], stmtKeyspace(mg, i, m.opt.Keyspace)
	if err := m.st.agree(l.ctx, stmt.Pos.String()); err != nil {
		return false
	}
	live, err := m.readLive(l.ctx, parsed, ks)
	if err != nil {
		return false
	}
	recovered := func(how string) bool {
		m.emit(Event{Kind: Recovered, Migration: mg, Statement: i, Total: len(mg.Statements),
			Message: fmt.Sprintf("statement %d (%s): the answer was lost (%v); %s", i, stmt.Pos, cause, how)})
		return true
	}
	verdict, _, _ := judgeInFlight(parsed, ks, live)
	switch verdict {
	case rerunDone:
		return recovered("the live schema has its effect as written: counted as done")
	case rerunSend:
		if l.check() != nil {
			return false
		}
		err := m.s.Query(text).WithContext(l.ctx).Idempotent(false).Exec()
		if err == nil || alreadyApplied(stmt, err) {
			return recovered("sending it again cannot apply it twice, and it was sent again")
		}
	}
	return false
}
