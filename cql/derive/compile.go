package derive

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Target is one filled column of the target table and how it is filled.
type Target struct {
	Column  string // the target column
	Type    cql.Type
	Kind    cql.ColumnKind
	Expr    Expr // a Copy of the same name for a column taken from the source by name
	Derived bool // filled by a rule rather than by name
	Source  *cql.Column
}

// Program fills the columns of one target table from rows of one source table. Build it
// with Compile; it is safe for concurrent use.
type Program struct {
	src, dst *cql.Table
	cols     []Target
	unset    []string
	each     []int // indexes into cols of the each() targets, in column order
}

// Compile checks rules against the source and target tables and returns the Program that
// fills every column of dst: a column named by a rule from its expression, any other
// column from the source column of the same name. It fails with an *Error when a rule
// names an unknown column or fills one twice, when an expression does not fit the types
// (month() of a text column, shard() into a text column, each() of a map), when a column
// taken by name has a different type in the two tables, when a primary key column of dst
// is neither in src nor derived, or when src and dst are the same table. A regular column
// of dst that nothing fills is left unset (Unset lists them).
func Compile(src, dst *cql.Table, rules []Rule) (*Program, error) {
	if src == nil || dst == nil {
		return nil, &Error{Rule: -1, Msg: "no source or no target table"}
	}
	if strings.EqualFold(src.Keyspace, dst.Keyspace) && src.Name == dst.Name {
		return nil, &Error{Rule: -1, Msg: fmt.Sprintf("source and target are the same table %s: a backfill copies one table into another", tableName(src))}
	}
	byTarget := map[string]int{}
	for i, r := range rules {
		c := dst.Column(r.Target)
		if c == nil {
			return nil, &Error{Rule: i, Col: 1, Msg: fmt.Sprintf("target table %s has no column %s", tableName(dst), cql.QuoteName(r.Target))}
		}
		if j, ok := byTarget[r.Target]; ok {
			return nil, &Error{Rule: i, Col: 1, Msg: fmt.Sprintf("column %s is derived twice (rules %d and %d)", cql.QuoteName(r.Target), j+1, i+1)}
		}
		byTarget[r.Target] = i
		s := src.Column(r.Expr.Column)
		if s == nil {
			return nil, &Error{Rule: i, Col: r.Expr.ColCol, Msg: fmt.Sprintf("source table %s has no column %s", tableName(src), cql.QuoteName(r.Expr.Column))}
		}
		if err := check(r.Expr, s, c); err != nil {
			return nil, &Error{Rule: i, Col: r.Expr.Col, Msg: err.Error()}
		}
	}
	p := &Program{src: src, dst: dst}
	for _, c := range dst.Columns {
		t := Target{Column: c.Name, Type: c.Type, Kind: c.Kind, Expr: Expr{Func: Copy, Column: c.Name}}
		if i, ok := byTarget[c.Name]; ok {
			t.Expr, t.Derived = rules[i].Expr, true
		}
		t.Source = src.Column(t.Expr.Column)
		if t.Source == nil {
			if c.Kind == cql.PartitionKey || c.Kind == cql.Clustering {
				return nil, &Error{Rule: -1, Msg: fmt.Sprintf("target key column %s is not a column of %s and no rule derives it", cql.QuoteName(c.Name), tableName(src))}
			}
			p.unset = append(p.unset, c.Name)
			continue
		}
		if !t.Derived {
			if err := check(t.Expr, t.Source, c); err != nil {
				return nil, &Error{Rule: -1, Msg: fmt.Sprintf("column %s is taken from the source by name, but %s", cql.QuoteName(c.Name), err)}
			}
		}
		if t.Expr.Func == Each {
			p.each = append(p.each, len(p.cols))
		}
		p.cols = append(p.cols, t)
	}
	return p, nil
}

func tableName(t *cql.Table) string {
	if t.Keyspace == "" {
		return cql.QuoteName(t.Name)
	}
	return cql.QuoteName(t.Keyspace) + "." + cql.QuoteName(t.Name)
}

// check says why e cannot fill target from source, or nil.
func check(e Expr, source, target *cql.Column) error {
	st, tt := source.Type, target.Type
	switch e.Func {
	case Copy:
		if !assignable(st, tt) {
			return fmt.Errorf("source column %s is %s and target column %s is %s", cql.QuoteName(source.Name), st, cql.QuoteName(target.Name), tt)
		}
	case Year, Month, Week, Day, Hour, Minute:
		if !isNative(st, "timestamp", "date", "timeuuid") {
			return fmt.Errorf("%s() needs a timestamp, date or timeuuid column; %s is %s", e.Func, cql.QuoteName(source.Name), st)
		}
		if (e.Func == Hour || e.Func == Minute) && isNative(st, "date") {
			return fmt.Errorf("%s() of %s: a date has no %s", e.Func, cql.QuoteName(source.Name), e.Func)
		}
		switch {
		case isNative(tt, "text", "ascii", "timestamp"):
		case isNative(tt, "date"):
			if e.Func == Hour || e.Func == Minute {
				return fmt.Errorf("%s() into %s: a date cannot hold %s (use text or timestamp)", e.Func, cql.QuoteName(target.Name), map[Func]string{Hour: "an hour", Minute: "a minute"}[e.Func])
			}
		case isNative(tt, "int", "bigint") && e.Func == Year:
		default:
			return fmt.Errorf("%s() gives a label (text, ascii), a start (timestamp, date)%s; target column %s is %s",
				e.Func, map[bool]string{true: " or a year number (int, bigint)"}[e.Func == Year], cql.QuoteName(target.Name), tt)
		}
	case Shard:
		if !isNative(st, "text", "ascii", "varchar", "blob", "uuid", "timeuuid", "int", "bigint", "smallint", "tinyint") {
			return fmt.Errorf("shard() hashes text, blob, uuid, timeuuid or integer columns; %s is %s", cql.QuoteName(source.Name), st)
		}
		if !isNative(tt, "int", "bigint", "smallint", "tinyint") {
			return fmt.Errorf("shard() gives an integer; target column %s is %s", cql.QuoteName(target.Name), tt)
		}
		if isNative(tt, "tinyint") && e.Shards > 128 || isNative(tt, "smallint") && e.Shards > 1<<15 {
			return fmt.Errorf("shard(%s, %d) does not fit target column %s of type %s", cql.QuoteName(source.Name), e.Shards, cql.QuoteName(target.Name), tt)
		}
	case Each:
		if st.Kind != cql.Set && st.Kind != cql.List || len(st.Params) != 1 {
			return fmt.Errorf("each() needs a set or list column; %s is %s", cql.QuoteName(source.Name), st)
		}
		if !assignable(st.Params[0], tt) {
			return fmt.Errorf("each(%s) gives %s; target column %s is %s", cql.QuoteName(source.Name), st.Params[0], cql.QuoteName(target.Name), tt)
		}
	}
	return nil
}

// assignable reports whether a value of type from can be written to a column of type to
// as it is read: the same type (frozen or not at the top), ascii into text, timeuuid into uuid.
func assignable(from, to cql.Type) bool {
	from.Frozen, to.Frozen = false, false
	if from.Equal(to) {
		return true
	}
	return isNative(from, "ascii") && isNative(to, "text") || isNative(from, "timeuuid") && isNative(to, "uuid")
}

func isNative(t cql.Type, names ...string) bool {
	if t.Kind != cql.Native {
		return false
	}
	for _, n := range names {
		if t.Name == n {
			return true
		}
	}
	return false
}

// Columns returns the filled target columns, in the target table's column order.
func (p *Program) Columns() []Target { return append([]Target(nil), p.cols...) }

// Unset returns the regular columns of the target table that nothing fills.
func (p *Program) Unset() []string { return append([]string(nil), p.unset...) }

// Sources returns the source columns the program reads, each once, in the source
// table's column order.
func (p *Program) Sources() []string {
	used := map[string]bool{}
	for _, t := range p.cols {
		used[t.Expr.Column] = true
	}
	var out []string
	for _, c := range p.src.Columns {
		if used[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out
}

// Fanouts returns the number of each() columns: a target row per combination of their
// elements.
func (p *Program) Fanouts() int { return len(p.each) }

// SourceTable and TargetTable return the tables the program was compiled for.
func (p *Program) SourceTable() *cql.Table { return p.src }
func (p *Program) TargetTable() *cql.Table { return p.dst }
