package check

import "github.com/cqlsize/cqlsize/cql"

// The checker works on its own small model of a SELECT: just what Cassandra's restriction
// rules look at. convert.go builds it from the cql parser's AST, so the rules below do not
// depend on how the AST spells things.

// op is the operator of a WHERE relation.
type op int

const (
	opEQ op = iota
	opLT
	opLTE
	opGT
	opGTE
	opIN
	opContains
	opContainsKey
	opNEQ
	opLike
	opIsNotNull
)

var opNames = [...]string{"=", "<", "<=", ">", ">=", "IN", "CONTAINS", "CONTAINS KEY", "!=", "LIKE", "IS NOT NULL"}

func (o op) String() string { return opNames[o] }

// isSlice reports whether o bounds a range (<, <=, >, >=).
func (o op) isSlice() bool { return o >= opLT && o <= opGTE }

// isStart reports whether a slice operator sets the start bound (> or >=).
func (o op) isStart() bool { return o == opGT || o == opGTE }

// relation is one WHERE relation as written.
type relation struct {
	cols   []string // the column, or the columns of a tuple (c1, c2) > (...), or token()'s arguments
	tuple  bool     // a multi-column relation
	token  bool     // token(cols...) op value
	mapKey bool     // col[key] op value: a map entry
	other  string   // a relation the checker does not model (expr(), col.field): what it is
	op     op
	inN    int // number of values of an IN list; unknownN for IN ? (one marker for the whole list)
	pos    cql.Pos
	text   string // as written, for messages
	value  string // the right side as written (not for IN)
}

// unknownN is the value count of IN ?: the list is bound at run time.
const unknownN = -1

// selector is one item of the select clause.
type selector struct {
	cols      []string // the columns it reads
	fn        string   // lower-case function name; "" for a plain column
	aggregate bool     // count, min, max, sum, avg or a user-defined aggregate
	pos       cql.Pos
}

// groupTerm is one GROUP BY term: a column, or a function of one column (floor(ts, 1h)).
type groupTerm struct {
	col string
	fn  string
	pos cql.Pos
}

// ordering is one ORDER BY term.
type ordering struct {
	col  string
	desc bool
	ann  bool // ORDER BY col ANN OF [...]: a vector search, not a clustering order
	// annLen is the number of elements of the vector searched for, -1 when it is not a
	// literal list.
	annLen int
	pos    cql.Pos
}

// limitVal is a LIMIT or PER PARTITION LIMIT: a literal or a bind marker.
type limitVal struct {
	n      int
	marker bool
	pos    cql.Pos
}

// selectQuery is a SELECT as the checker sees it.
type selectQuery struct {
	keyspace, table string
	tablePos        cql.Pos
	distinct, json  bool
	star            bool
	sel             []selector
	where           []relation
	groupBy         []groupTerm
	orderBy         []ordering
	limit, ppl      *limitVal // LIMIT, PER PARTITION LIMIT; nil when absent
	allowFiltering  bool
	pos             cql.Pos
}
