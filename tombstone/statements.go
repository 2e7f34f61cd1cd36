package tombstone

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// EffectKind is a way a statement creates tombstones.
type EffectKind int

// Effects of statements, each with its finding code.
const (
	NullWrite          EffectKind = iota // TS101: a literal NULL into a one-cell column: a cell tombstone
	MaybeNull                            // TS102: a bind marker for a regular column: a tombstone when bound to nil
	JSONNulls                            // TS103: INSERT JSON without DEFAULT UNSET: every missing column written as null
	CollectionWrite                      // TS104: a whole non-frozen collection or UDT written: a complex deletion first
	ElementRemoval                       // TS105: collection elements removed: an element tombstone each
	PartitionDeletion                    // TS106: DELETE of a whole partition
	RowDeletion                          // TS107: DELETE of one row
	RangeDeletion                        // TS108: DELETE of a clustering range or prefix: two range markers
	CellDeletion                         // TS109: DELETE of one-cell columns (or UDT fields): a cell tombstone each
	TTLWrite                             // TS110: USING TTL: the cells turn into tombstones when they expire
	CollectionDeletion                   // TS111: a whole non-frozen collection deleted or set to null: a complex deletion
)

var effectCodes = [...]string{"TS101", "TS102", "TS103", "TS104", "TS105", "TS106", "TS107", "TS108", "TS109", "TS110", "TS111"}

// Code is the effect's stable finding code.
func (k EffectKind) Code() string {
	if k < 0 || int(k) >= len(effectCodes) {
		return "TS1??"
	}
	return effectCodes[k]
}

// Effect is one tombstone a statement writes, or may write.
type Effect struct {
	Kind    EffectKind
	Table   string   // keyspace.table, or the name as written when the schema lacks it
	Columns []string // the columns involved, when the effect is about columns
	Pos     cql.Pos  // the column, value or statement that causes it
}

// Finding describes the effect for a user: severity, what happens, and what to do.
func (e Effect) Finding() Finding {
	cols := strings.Join(e.Columns, ", ")
	f := Finding{Code: e.Kind.Code(), Severity: Info, Table: e.Table, Pos: e.Pos}
	switch e.Kind {
	case NullWrite:
		f.Severity = Warn
		f.Message = fmt.Sprintf("writes a literal NULL to %s: a cell tombstone on every execution, counted by reads for gc_grace_seconds", cols)
		f.Fix = "leave the column out of the statement instead of writing NULL"
	case MaybeNull:
		f.Message = fmt.Sprintf("binds %s: a nil bound value writes a tombstone", cols)
		f.Fix = "bind unset for a missing value (gocql.UnsetValue), never nil"
	case JSONNulls:
		f.Severity = Warn
		f.Message = "INSERT JSON without DEFAULT UNSET writes every column missing from the JSON as null: a tombstone each"
		if cols != "" {
			f.Message += " (" + cols + ")"
		}
		f.Fix = "write INSERT INTO ... JSON ? DEFAULT UNSET"
	case CollectionWrite:
		f.Message = fmt.Sprintf("writes %s whole: a non-frozen collection or UDT written whole gets a complex deletion first (on disk until gc_grace_seconds pass; reads do not count it)", cols)
		f.Fix = "declare it frozen<...> when it is always written whole, or add elements (SET c = c + ...) instead of replacing the value"
	case ElementRemoval:
		f.Message = fmt.Sprintf("removes elements of %s: an element tombstone each, counted by every read of the row for gc_grace_seconds", cols)
		f.Fix = "rewrite a frozen collection whole, or model the elements as clustering rows with a TTL"
	case PartitionDeletion:
		f.Message = "deletes whole partitions: one partition deletion each (reads do not count it against tombstone_warn_threshold)"
	case RowDeletion:
		f.Message = "deletes single rows: a row tombstone each, counted by every read that scans it for gc_grace_seconds"
		f.Fix = "when rows die at a known age, write them with a TTL instead"
	case RangeDeletion:
		f.Message = "deletes a clustering range: two range tombstone markers each, counted by every read that crosses them"
		f.Fix = "prefer a few wide range deletions to many narrow ones; a TTL when rows die at a known age"
	case CellDeletion:
		f.Message = fmt.Sprintf("deletes %s: a cell tombstone each, counted by reads of the row for gc_grace_seconds", cols)
	case TTLWrite:
		f.Message = "writes with a TTL: each cell becomes a tombstone when it expires; reads count it until gc_grace_seconds after the write"
		f.Fix = "pair TTL'd time series with TWCS and read only unexpired buckets"
	case CollectionDeletion:
		f.Message = fmt.Sprintf("deletes %s whole (or sets it to null): a complex deletion (reads do not count it)", cols)
	}
	return f
}

// Effects lists the tombstones each data-changing statement (INSERT, UPDATE, DELETE, BATCH)
// writes or may write, in statement order. The schema says which columns are keys and which
// are non-frozen collections; a USE statement in stmts changes the keyspace unqualified
// names resolve in. A statement on a table the schema lacks is classified by what it says
// alone (literal NULLs, JSON, TTL).
func Effects(schema *cql.Schema, stmts []cql.Statement) []Effect {
	a := analyzer{schema: schema}
	for _, st := range stmts {
		from := len(a.out)
		a.statement(st, nil)
		// Within a statement, report in source order.
		added := a.out[from:]
		sort.SliceStable(added, func(i, j int) bool { return added[i].Pos.Offset < added[j].Pos.Offset })
	}
	return a.out
}

// StatementFindings is Effects as findings, for reports.
func StatementFindings(schema *cql.Schema, stmts []cql.Statement) []Finding {
	var out []Finding
	for _, e := range Effects(schema, stmts) {
		out = append(out, e.Finding())
	}
	return out
}

type analyzer struct {
	schema   *cql.Schema
	keyspace string
	out      []Effect
}

func (a *analyzer) add(kind EffectKind, table string, pos cql.Pos, cols ...string) {
	a.out = append(a.out, Effect{Kind: kind, Table: table, Columns: cols, Pos: pos})
}

// resolve finds the statement's table; the name is what to call it either way.
func (a *analyzer) resolve(q cql.QualifiedName) (*cql.Table, string) {
	ks := q.Keyspace.Name
	if ks == "" {
		ks = a.keyspace
	}
	if a.schema != nil {
		if ks != "" {
			if t := a.schema.Table(ks, q.Name.Name); t != nil {
				return t, t.QualifiedName()
			}
		} else if t, ok := a.schema.FindTable(q.Name.Name); ok {
			return t, t.QualifiedName()
		}
	}
	if ks != "" {
		return nil, ks + "." + q.Name.Name
	}
	return nil, q.Name.Name
}

func (a *analyzer) statement(st cql.Statement, batchTTL *cql.Term) {
	switch s := st.(type) {
	case *cql.Use:
		a.keyspace = s.Keyspace.Name
	case *cql.Batch:
		for _, inner := range s.Statements {
			a.statement(inner, s.Using.TTL)
		}
	case *cql.Insert:
		a.insert(s, batchTTL)
	case *cql.Update:
		a.update(s, batchTTL)
	case *cql.Delete:
		a.delete(s)
	}
}

func (a *analyzer) ttl(t *cql.Term, batchTTL *cql.Term, table string, pos cql.Pos) {
	if t == nil {
		t = batchTTL
	}
	if t == nil || (t.Kind == cql.TermLiteral && strings.TrimSpace(t.Value) == "0") {
		return
	}
	a.add(TTLWrite, table, t.Pos)
}

// column returns the schema column for a name, or nil when the table or column is unknown.
func column(t *cql.Table, name string) *cql.Column {
	if t == nil {
		return nil
	}
	return t.Column(name)
}

func isKey(c *cql.Column) bool {
	return c != nil && (c.Kind == cql.PartitionKey || c.Kind == cql.Clustering)
}

// value classifies writing term v to column c (nil when unknown).
func (a *analyzer) value(table string, name string, c *cql.Column, v *cql.Term, maybe *[]string, pos cql.Pos) {
	if isKey(c) || v == nil {
		return
	}
	multi := c != nil && c.Type.MultiCell()
	switch {
	case v.Kind == cql.TermNull:
		if multi {
			a.add(CollectionDeletion, table, v.Pos, name)
		} else {
			a.add(NullWrite, table, v.Pos, name)
		}
	case multi:
		a.add(CollectionWrite, table, pos, name)
		if v.IsMarker() {
			*maybe = append(*maybe, name)
		}
	case v.IsMarker():
		*maybe = append(*maybe, name)
	}
}

func (a *analyzer) insert(s *cql.Insert, batchTTL *cql.Term) {
	t, name := a.resolve(s.Table)
	if s.JSON != nil {
		a.insertJSON(s, t, name)
	}
	var maybe []string
	var maybePos cql.Pos
	for i, col := range s.Columns {
		if i >= len(s.Values) {
			break
		}
		before := len(maybe)
		a.value(name, col.Name, column(t, col.Name), s.Values[i], &maybe, col.Pos)
		if len(maybe) > before && !maybePos.IsValid() {
			maybePos = s.Values[i].Pos
		}
	}
	if len(maybe) > 0 {
		a.add(MaybeNull, name, maybePos, maybe...)
	}
	a.ttl(s.Using.TTL, batchTTL, name, s.Pos)
}

// insertJSON classifies INSERT ... JSON. With a literal JSON document the columns it sets are
// known; with a bind marker any column may be missing (null unless DEFAULT UNSET) or set.
func (a *analyzer) insertJSON(s *cql.Insert, t *cql.Table, name string) {
	var present map[string]bool
	if s.JSON.Kind == cql.TermLiteral && s.JSON.Lit == cql.TokString {
		var doc map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s.JSON.Value), &doc); err == nil {
			present = map[string]bool{}
			for k, v := range doc {
				// JSON keys are case-sensitive column names unless quoted with "\"...\"".
				col := strings.ToLower(k)
				if len(k) > 1 && strings.HasPrefix(k, `"`) && strings.HasSuffix(k, `"`) {
					col = k[1 : len(k)-1]
				}
				if string(v) == "null" {
					continue // an explicit null: counted with the missing ones below
				}
				present[col] = true
			}
		}
	}
	if t == nil {
		if !s.DefaultUnset {
			a.add(JSONNulls, name, s.Pos)
		}
		return
	}
	var nulls, whole, wholeNull []string
	for _, c := range t.Columns {
		if isKey(c) {
			continue
		}
		set := present == nil || present[c.Name] // unknown document: any column may be set
		missing := present == nil || !present[c.Name]
		if c.Type.MultiCell() && set {
			whole = append(whole, c.Name)
		}
		if missing && !s.DefaultUnset {
			if c.Type.MultiCell() && present != nil {
				wholeNull = append(wholeNull, c.Name)
			} else if !c.Type.MultiCell() {
				nulls = append(nulls, c.Name)
			}
		}
	}
	if len(nulls) > 0 {
		a.add(JSONNulls, name, s.JSON.Pos, nulls...)
	}
	if len(whole) > 0 {
		a.add(CollectionWrite, name, s.JSON.Pos, whole...)
	}
	if len(wholeNull) > 0 {
		a.add(CollectionDeletion, name, s.JSON.Pos, wholeNull...)
	}
}

func (a *analyzer) update(s *cql.Update, batchTTL *cql.Term) {
	t, name := a.resolve(s.Table)
	var maybe []string
	var maybePos cql.Pos
	for _, as := range s.Set {
		c := column(t, as.Column.Name)
		if isKey(c) {
			continue
		}
		switch as.Op {
		case cql.AssignSet:
			before := len(maybe)
			a.value(name, as.Column.Name, c, as.Value, &maybe, as.Pos)
			if len(maybe) > before && !maybePos.IsValid() {
				maybePos = as.Value.Pos
			}
		case cql.AssignSub:
			a.add(ElementRemoval, name, as.Pos, as.Column.Name)
		case cql.AssignElement:
			if as.Value != nil && as.Value.Kind == cql.TermNull {
				a.add(ElementRemoval, name, as.Value.Pos, as.Column.Name)
			}
		case cql.AssignField:
			if as.Value != nil && as.Value.Kind == cql.TermNull {
				a.add(NullWrite, name, as.Value.Pos, as.Column.Name+"."+as.Field.Name)
			}
		}
	}
	if len(maybe) > 0 {
		a.add(MaybeNull, name, maybePos, maybe...)
	}
	a.ttl(s.Using.TTL, batchTTL, name, s.Pos)
}

func (a *analyzer) delete(s *cql.Delete) {
	t, name := a.resolve(s.Table)
	if len(s.Columns) > 0 {
		var cells []string
		var cellPos cql.Pos
		for _, target := range s.Columns {
			c := column(t, target.Column.Name)
			switch {
			case target.Key != nil:
				a.add(ElementRemoval, name, target.Pos, target.Column.Name)
			case !target.Field.IsZero():
				cells = append(cells, target.Column.Name+"."+target.Field.Name)
			case c != nil && c.Type.MultiCell():
				a.add(CollectionDeletion, name, target.Pos, target.Column.Name)
			default:
				cells = append(cells, target.Column.Name)
			}
			if len(cells) > 0 && !cellPos.IsValid() {
				cellPos = target.Pos
			}
		}
		if len(cells) > 0 {
			a.add(CellDeletion, name, cellPos, cells...)
		}
		return
	}
	if t == nil {
		return // which kind of deletion depends on the key, which the schema does not give
	}
	a.add(deletionKind(t, s.Where), name, s.Pos)
}

// deletionKind says what a row-level DELETE removes, from its WHERE clause: nothing below
// the partition key restricted means the partition; every clustering column restricted by
// = or IN means rows; a prefix or a slice means a range.
func deletionKind(t *cql.Table, where []*cql.Relation) EffectKind {
	if len(t.Clustering) == 0 {
		return PartitionDeletion
	}
	isClustering := map[string]bool{}
	for _, c := range t.Clustering {
		isClustering[c.Name] = true
	}
	eq := map[string]bool{}
	slice := false
	for _, r := range where {
		switch r.Kind {
		case cql.RelColumn:
			col := r.Column().Name
			if !isClustering[col] {
				continue
			}
			if r.Op.IsSlice() {
				slice = true
			} else if r.Op == cql.OpEq || r.Op == cql.OpIn {
				eq[col] = true
			}
		case cql.RelTuple:
			if r.Op.IsSlice() {
				slice = true
				continue
			}
			for _, c := range r.Columns {
				if isClustering[c.Name] {
					eq[c.Name] = true
				}
			}
		}
	}
	switch {
	case slice:
		return RangeDeletion
	case len(eq) == 0:
		return PartitionDeletion
	case len(eq) == len(t.Clustering):
		return RowDeletion
	default:
		return RangeDeletion
	}
}
