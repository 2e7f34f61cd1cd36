package cql

import "strings"

// Statement is a parsed CQL statement: one of the pointer types in this file (*Select,
// *Insert, *CreateTable, ...). Switch on the concrete type to handle the ones you need.
type Statement interface {
	Info() *StmtInfo
}

// StmtInfo is what every statement has: where it is and how it was written.
type StmtInfo struct {
	Pos  Pos    // the first token
	End  Pos    // just past the last token
	Text string // as written, without the trailing ';'
	Doc  string // the comments right above it (see RawStatement.Doc)
}

// Info returns the statement's position, text and doc comment.
func (s *StmtInfo) Info() *StmtInfo { return s }

// Ident is a name as written: unquoted names are folded to lower case, quoted ones keep
// their case (Name holds the name without quotes).
type Ident struct {
	Name   string
	Quoted bool
	Pos    Pos
}

// IsZero reports whether the identifier is absent (an optional name that was not given).
func (id Ident) IsZero() bool { return !id.Pos.IsValid() }

// String renders the name as CQL would need it written: quoted when it has to be.
func (id Ident) String() string { return QuoteName(id.Name) }

// QualifiedName is a [keyspace.]name of a table, view, type, function or index.
type QualifiedName struct {
	Keyspace Ident // zero when the name is not qualified
	Name     Ident
}

// Pos is where the name starts.
func (q QualifiedName) Pos() Pos {
	if !q.Keyspace.IsZero() {
		return q.Keyspace.Pos
	}
	return q.Name.Pos
}

// String renders keyspace.name, or name when unqualified.
func (q QualifiedName) String() string {
	if q.Keyspace.IsZero() {
		return q.Name.String()
	}
	return q.Keyspace.String() + "." + q.Name.String()
}

// QuoteName returns name as it must be written in CQL: as is when it is a valid unquoted
// lower-case identifier (a letter, then letters, digits and _) and not one of Cassandra
// 5.0's reserved keywords, otherwise in double quotes (a " doubled). Unreserved keywords
// (key, type, ttl, ...) stay unquoted. Every statement the project builds names keyspaces,
// tables, columns and roles through it.
func QuoteName(name string) string {
	ok := name != "" && isLetter(name[0])
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = (c >= 'a' && c <= 'z') || isDigit(c) || c == '_'
	}
	if ok && !isReserved(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// TermKind says what a term (a value in a statement) is.
type TermKind int

// Term kinds.
const (
	TermLiteral TermKind = iota // a constant; Lit says which kind of token
	TermNull                    // NULL
	TermMarker                  // a bind marker: ? (Name "") or :name
	TermList                    // [a, b]
	TermSet                     // {a, b}, and {} (which Cassandra also accepts for maps)
	TermMap                     // {k: v, ...}: Keys and Items pair up
	TermUDT                     // {field: v, ...}: Fields and Items pair up
	TermTuple                   // (a, b)
	TermFunc                    // name(args): Name is the function, Items the arguments
	TermCast                    // (type) term or CAST(term AS type): Type, Items[0]
	TermOp                      // Items[0] Op Items[1], or -Items[0] when Op is "neg"
)

var termKindNames = [...]string{"literal", "null", "marker", "list", "set", "map", "udt", "tuple", "function", "cast", "operation"}

func (k TermKind) String() string {
	if k >= 0 && int(k) < len(termKindNames) {
		return termKindNames[k]
	}
	return "term"
}

// Term is a value: a literal, a bind marker, a collection, a function call, ...
type Term struct {
	Kind   TermKind
	Pos    Pos
	Text   string    // as written
	Lit    TokenKind // for TermLiteral: String, Int, Float, Bool, Duration, UUID or Blob
	Value  string    // literal value (strings unescaped); marker name; function name; operator
	Items  []*Term   // elements, map values, UDT values, arguments, operands
	Keys   []*Term   // map keys
	Fields []Ident   // UDT field names
	Type   *Type     // the type of a cast
}

// IsMarker reports whether the term is a bind marker (? or :name).
func (t *Term) IsMarker() bool { return t != nil && t.Kind == TermMarker }

// HasMarker reports whether the term is or contains a bind marker.
func (t *Term) HasMarker() bool {
	if t == nil {
		return false
	}
	if t.Kind == TermMarker {
		return true
	}
	for _, x := range t.Items {
		if x.HasMarker() {
			return true
		}
	}
	for _, x := range t.Keys {
		if x.HasMarker() {
			return true
		}
	}
	return false
}

// Operator is a comparison in a WHERE clause or IF condition, written as Cassandra writes it.
type Operator string

// Operators of Cassandra 5.0.
const (
	OpEq          Operator = "="
	OpNe          Operator = "!="
	OpLt          Operator = "<"
	OpLe          Operator = "<="
	OpGt          Operator = ">"
	OpGe          Operator = ">="
	OpIn          Operator = "IN"
	OpContains    Operator = "CONTAINS"
	OpContainsKey Operator = "CONTAINS KEY"
	OpLike        Operator = "LIKE"
	OpIsNotNull   Operator = "IS NOT NULL"
)

// IsSlice reports whether the operator restricts a range (<, <=, >, >=).
func (o Operator) IsSlice() bool { return o == OpLt || o == OpLe || o == OpGt || o == OpGe }

// RelationKind says what the left side of a relation is.
type RelationKind int

// Relation kinds.
const (
	RelColumn  RelationKind = iota // col op value
	RelToken                       // token(a, b) op value
	RelTuple                       // (a, b) op (x, y): a multi-column restriction
	RelElement                     // col[key] op value (a map element, or a list/map element in IF)
	RelField                       // col.field op value (IF conditions on UDT fields)
	RelCustom                      // expr(index_name, value): a custom index expression
)

var relationKindNames = [...]string{"column", "token", "tuple", "element", "field", "custom"}

func (k RelationKind) String() string {
	if k >= 0 && int(k) < len(relationKindNames) {
		return relationKindNames[k]
	}
	return "relation"
}

// Relation is one restriction of a WHERE clause, or one condition of an IF clause.
//
// The checker reads it like this: Kind and Columns say what is restricted (one column, a
// token of the partition key, or a tuple of clustering columns); Op how; and the value is
// either Value (for every operator but IN) or, for IN, the list In (len(In) items) or the
// single marker InMarker (IN ?: the number of items is only known at bind time).
type Relation struct {
	Kind     RelationKind
	Pos      Pos
	Text     string
	Columns  []Ident // the column; token's arguments; the tuple's columns
	Op       Operator
	Value    *Term   // the right side, except for IN
	In       []*Term // IN (a, b, c): the items (each a tuple for a multi-column IN)
	InMarker *Term   // IN ? or IN :name
	Key      *Term   // RelElement: the element's key or index
	Field    Ident   // RelField: the field
	Index    QualifiedName
}

// Column returns the first (for RelColumn, RelElement and RelField: the only) column.
func (r *Relation) Column() Ident {
	if len(r.Columns) == 0 {
		return Ident{}
	}
	return r.Columns[0]
}

// InCount is the number of IN items, or -1 when the list is one bind marker, or 0 when the
// operator is not IN.
func (r *Relation) InCount() int {
	if r.Op != OpIn {
		return 0
	}
	if r.InMarker != nil {
		return -1
	}
	return len(r.In)
}

// Bound reports whether the value comes from a bind marker (in whole or in part).
func (r *Relation) Bound() bool {
	if r.InMarker != nil || r.Value.HasMarker() {
		return true
	}
	for _, t := range r.In {
		if t.HasMarker() {
			return true
		}
	}
	return false
}

// SelectorKind says what a selector (an item of a SELECT clause) is.
type SelectorKind int

// Selector kinds.
const (
	SelColumn    SelectorKind = iota // a column: Column
	SelFunc                          // a function call: Func (possibly "ks.f"), Args
	SelCountStar                     // count(*)
	SelWritetime                     // writetime(col), maxwritetime(col), ttl(col): Func, Column
	SelCast                          // cast(x AS type): Args[0], Type
	SelTerm                          // a literal, NULL or bind marker: Term
	SelField                         // Args[0].Field
	SelElement                       // Args[0][Term], or a slice Args[0][Term..To]
	SelOp                            // Args[0] Func Args[1]; unary minus when Func is "neg"
	SelTypeHint                      // (type) selector: Type, Args[0]
	SelTuple                         // (a, b): Args
	SelList                          // [a, b]: Args
	SelSet                           // {a, b}: Args
	SelMap                           // {k: v}: Args in pairs
)

var selectorKindNames = [...]string{"column", "function", "count(*)", "writetime", "cast", "term", "field", "element", "operation", "type hint", "tuple", "list", "set", "map"}

func (k SelectorKind) String() string {
	if k >= 0 && int(k) < len(selectorKindNames) {
		return selectorKindNames[k]
	}
	return "selector"
}

// Selector is one item of a SELECT clause.
type Selector struct {
	Kind   SelectorKind
	Pos    Pos
	Text   string
	Column Ident
	Func   string
	Args   []*Selector
	Term   *Term
	To     *Term // the end of a slice m[a..b] (nil when open)
	Slice  bool
	Field  Ident
	Type   *Type
	Alias  Ident // AS alias; zero when none
}

// Columns returns the columns the selector reads, in order of appearance.
func (s *Selector) Columns() []Ident {
	var out []Ident
	var walk func(*Selector)
	walk = func(s *Selector) {
		if !s.Column.IsZero() {
			out = append(out, s.Column)
		}
		for _, a := range s.Args {
			walk(a)
		}
	}
	walk(s)
	return out
}

// Ordering is one ORDER BY item.
type Ordering struct {
	Column Ident
	Desc   bool
	ANN    *Term // ORDER BY v ANN OF [...]: the vector searched for
	Pos    Pos
}

// Select is a SELECT statement. The fields a query-first check needs are all here: Table,
// each restriction in Where (see Relation), OrderBy, Limit, PerPartitionLimit, GroupBy and
// AllowFiltering. Selectors is empty for SELECT *.
type Select struct {
	StmtInfo
	JSON              bool
	Distinct          bool
	Star              bool
	Selectors         []*Selector
	Table             QualifiedName
	Where             []*Relation
	GroupBy           []*Selector
	OrderBy           []Ordering
	PerPartitionLimit *Term // an integer literal or a bind marker; nil when absent
	Limit             *Term // an integer literal or a bind marker; nil when absent
	AllowFiltering    bool
}

// Using holds USING TTL and USING TIMESTAMP; each is nil when absent.
type Using struct {
	TTL       *Term
	Timestamp *Term
}

// Insert is an INSERT statement (with a column list, or JSON).
type Insert struct {
	StmtInfo
	Table        QualifiedName
	Columns      []Ident
	Values       []*Term
	JSON         *Term // INSERT ... JSON: the string or marker; nil otherwise
	DefaultUnset bool  // JSON ... DEFAULT UNSET (the default is NULL)
	IfNotExists  bool
	Using        Using
}

// AssignOp says what an UPDATE assignment does.
type AssignOp int

// Assignment operations.
const (
	AssignSet     AssignOp = iota // c = v
	AssignAdd                     // c = c + v, c += v (counters, collections)
	AssignSub                     // c = c - v, c -= v
	AssignPrepend                 // c = v + c (lists)
	AssignElement                 // c[k] = v
	AssignField                   // c.f = v
)

var assignOpNames = [...]string{"set", "add", "subtract", "prepend", "set element", "set field"}

func (o AssignOp) String() string {
	if o >= 0 && int(o) < len(assignOpNames) {
		return assignOpNames[o]
	}
	return "assign"
}

// Assignment is one item of an UPDATE's SET clause.
type Assignment struct {
	Column Ident
	Op     AssignOp
	Key    *Term // AssignElement: the key or index
	Field  Ident // AssignField
	Value  *Term
	Pos    Pos
}

// Update is an UPDATE statement.
type Update struct {
	StmtInfo
	Table    QualifiedName
	Using    Using
	Set      []*Assignment
	Where    []*Relation
	IfExists bool
	If       []*Relation
}

// DeleteTarget is one item deleted by DELETE: a column, an element c[k], or a field c.f.
type DeleteTarget struct {
	Column Ident
	Key    *Term
	Field  Ident
	Pos    Pos
}

// Delete is a DELETE statement. Columns is empty when whole rows are deleted.
type Delete struct {
	StmtInfo
	Columns  []*DeleteTarget
	Table    QualifiedName
	Using    Using // only Timestamp is allowed
	Where    []*Relation
	IfExists bool
	If       []*Relation
}

// BatchType is LOGGED (the default), UNLOGGED or COUNTER.
type BatchType int

// Batch types.
const (
	LoggedBatch BatchType = iota
	UnloggedBatch
	CounterBatch
)

func (t BatchType) String() string {
	switch t {
	case UnloggedBatch:
		return "UNLOGGED"
	case CounterBatch:
		return "COUNTER"
	}
	return "LOGGED"
}

// Batch is BEGIN [UNLOGGED|COUNTER] BATCH ... APPLY BATCH. Statements are *Insert,
// *Update and *Delete.
type Batch struct {
	StmtInfo
	Type       BatchType
	Using      Using
	Statements []Statement
}

// Property is one WITH option: name = constant, or name = {map of constants}.
type Property struct {
	Name  Ident
	Value string    // the constant's value (strings unescaped); "" for a map
	Lit   TokenKind // the constant's kind (String, Int, Float, Bool, Ident for keywords)
	Map   []MapEntry
	IsMap bool
	Pos   Pos // the value
}

// MapEntry is a key and value of a property map, both constants, with where each is
// written, so an error about one sub-option names its file:line:col.
type MapEntry struct {
	Key, Value       string
	KeyPos, ValuePos Pos
}

// MapValue returns the map as a Go map.
func (p *Property) MapValue() map[string]string {
	m := make(map[string]string, len(p.Map))
	for _, e := range p.Map {
		m[e.Key] = e.Value
	}
	return m
}

// ColumnDef is a column in CREATE TABLE or ALTER TABLE ADD.
type ColumnDef struct {
	Name       Ident
	Type       Type
	TypePos    Pos
	Static     bool
	PrimaryKey bool   // declared "col type PRIMARY KEY"
	Mask       string // MASKED WITH ...: the masking function as written; "" when none
}

// ClusteringOrder is one item of WITH CLUSTERING ORDER BY.
type ClusteringOrder struct {
	Column Ident
	Desc   bool
}

// CreateKeyspace is CREATE KEYSPACE.
type CreateKeyspace struct {
	StmtInfo
	Name        Ident
	IfNotExists bool
	Properties  []*Property
}

// AlterKeyspace is ALTER KEYSPACE.
type AlterKeyspace struct {
	StmtInfo
	Name       Ident
	IfExists   bool
	Properties []*Property
}

// DropKeyspace is DROP KEYSPACE.
type DropKeyspace struct {
	StmtInfo
	Name     Ident
	IfExists bool
}

// CreateTable is CREATE TABLE. PartitionKey and Clustering are filled from either a
// PRIMARY KEY (...) clause or a column declared PRIMARY KEY.
type CreateTable struct {
	StmtInfo
	Name            QualifiedName
	IfNotExists     bool
	Columns         []*ColumnDef
	PartitionKey    []Ident
	Clustering      []Ident
	KeyPos          Pos // the PRIMARY KEY clause; zero when there is none
	KeyCount        int // how many PRIMARY KEY declarations (Cassandra requires exactly one)
	ClusteringOrder []ClusteringOrder
	CompactStorage  bool
	Properties      []*Property
}

// AlterTableAction says what an ALTER TABLE does.
type AlterTableAction int

// ALTER TABLE actions.
const (
	AlterAdd                AlterTableAction = iota // ADD col type[, ...]
	AlterDrop                                       // DROP col[, ...]
	AlterRename                                     // RENAME a TO b [AND c TO d]
	AlterWith                                       // WITH options
	AlterType                                       // ALTER col TYPE t (rejected by Cassandra 5.0)
	AlterMask                                       // ALTER col MASKED WITH ... / DROP MASKED
	AlterDropCompactStorage                         // DROP COMPACT STORAGE
)

var alterTableActionNames = [...]string{"ADD", "DROP", "RENAME", "WITH", "ALTER TYPE", "MASK", "DROP COMPACT STORAGE"}

func (a AlterTableAction) String() string {
	if a >= 0 && int(a) < len(alterTableActionNames) {
		return alterTableActionNames[a]
	}
	return "ALTER"
}

// Rename is one a TO b of a RENAME.
type Rename struct {
	From, To Ident
}

// AlterTable is ALTER TABLE.
type AlterTable struct {
	StmtInfo
	Name          QualifiedName
	IfExists      bool
	Action        AlterTableAction
	IfColumn      bool // ADD IF NOT EXISTS, DROP IF EXISTS, RENAME IF EXISTS, ALTER IF EXISTS
	Add           []*ColumnDef
	Drop          []Ident
	DropTimestamp *Term
	Renames       []Rename
	Column        Ident // ALTER col ...
	NewType       *Type // ALTER col TYPE t
	Mask          string
	Properties    []*Property
}

// DropTable is DROP TABLE.
type DropTable struct {
	StmtInfo
	Name     QualifiedName
	IfExists bool
}

// Truncate is TRUNCATE [TABLE].
type Truncate struct {
	StmtInfo
	Table QualifiedName
}

// Use is USE keyspace.
type Use struct {
	StmtInfo
	Keyspace Ident
}

// FieldDef is a field of CREATE TYPE.
type FieldDef struct {
	Name    Ident
	Type    Type
	TypePos Pos
}

// CreateType is CREATE TYPE.
type CreateType struct {
	StmtInfo
	Name        QualifiedName
	IfNotExists bool
	Fields      []*FieldDef
}

// AlterTypeAction says what an ALTER TYPE does.
type AlterTypeAction int

// ALTER TYPE actions.
const (
	AlterTypeAdd    AlterTypeAction = iota // ADD field type
	AlterTypeRename                        // RENAME a TO b [AND ...]
	AlterTypeAlter                         // ALTER field TYPE t (rejected by Cassandra 5.0)
)

func (a AlterTypeAction) String() string {
	return [...]string{"ADD", "RENAME", "ALTER TYPE"}[a]
}

// AlterUserType is ALTER TYPE.
type AlterUserType struct {
	StmtInfo
	Name     QualifiedName
	IfExists bool
	Action   AlterTypeAction
	IfField  bool // ADD IF NOT EXISTS, RENAME IF EXISTS
	Add      *FieldDef
	Renames  []Rename
	Field    Ident // ALTER field TYPE t
	NewType  *Type
}

// DropType is DROP TYPE.
type DropType struct {
	StmtInfo
	Name     QualifiedName
	IfExists bool
}

// IndexTarget is what an index indexes: a column, or keys/values/entries/full of a collection.
type IndexTarget struct {
	Column Ident
	Kind   string // "" for the column itself, or "keys", "values", "entries", "full"
	Pos    Pos
}

// String renders the target as system_schema.indexes stores it in options['target'].
func (t IndexTarget) String() string {
	if t.Kind == "" {
		return t.Column.String()
	}
	return t.Kind + "(" + t.Column.String() + ")"
}

// CreateIndex is CREATE [CUSTOM] INDEX.
type CreateIndex struct {
	StmtInfo
	Name        Ident // zero when not named (Cassandra derives table_column_idx)
	IfNotExists bool
	Custom      bool
	Table       QualifiedName
	Targets     []IndexTarget
	Using       string // the class, e.g. "sai" or "org.apache.cassandra.index.sasi.SASIIndex"
	UsingPos    Pos
	Properties  []*Property // WITH OPTIONS = {...} and the like
}

// DropIndex is DROP INDEX.
type DropIndex struct {
	StmtInfo
	Name     QualifiedName
	IfExists bool
}

// CreateView is CREATE MATERIALIZED VIEW.
type CreateView struct {
	StmtInfo
	Name            QualifiedName
	IfNotExists     bool
	Star            bool
	Selectors       []*Selector
	Base            QualifiedName
	Where           []*Relation
	PartitionKey    []Ident
	Clustering      []Ident
	KeyPos          Pos
	ClusteringOrder []ClusteringOrder
	Properties      []*Property
}

// AlterView is ALTER MATERIALIZED VIEW.
type AlterView struct {
	StmtInfo
	Name       QualifiedName
	IfExists   bool
	Properties []*Property
}

// DropView is DROP MATERIALIZED VIEW.
type DropView struct {
	StmtInfo
	Name     QualifiedName
	IfExists bool
}

// FuncArg is an argument of CREATE FUNCTION.
type FuncArg struct {
	Name Ident
	Type Type
}

// CreateFunction is CREATE [OR REPLACE] FUNCTION.
type CreateFunction struct {
	StmtInfo
	Name              QualifiedName
	OrReplace         bool
	IfNotExists       bool
	Args              []FuncArg
	CalledOnNullInput bool
	Returns           Type
	Language          string
	Body              string
}

// DropFunction is DROP FUNCTION; ArgTypes is set only when HasArgs.
type DropFunction struct {
	StmtInfo
	Name     QualifiedName
	IfExists bool
	HasArgs  bool
	ArgTypes []Type
}

// CreateAggregate is CREATE [OR REPLACE] AGGREGATE.
type CreateAggregate struct {
	StmtInfo
	Name        QualifiedName
	OrReplace   bool
	IfNotExists bool
	ArgTypes    []Type
	SFunc       string
	SType       Type
	FinalFunc   string
	InitCond    *Term
}

// DropAggregate is DROP AGGREGATE; ArgTypes is set only when HasArgs.
type DropAggregate struct {
	StmtInfo
	Name     QualifiedName
	IfExists bool
	HasArgs  bool
	ArgTypes []Type
}

// CreateTrigger is CREATE TRIGGER.
type CreateTrigger struct {
	StmtInfo
	Name        Ident
	IfNotExists bool
	Table       QualifiedName
	Class       string
}

// DropTrigger is DROP TRIGGER.
type DropTrigger struct {
	StmtInfo
	Name     Ident
	IfExists bool
	Table    QualifiedName
}

// Auth is a role, user or permission statement (CREATE/ALTER/DROP ROLE or USER, GRANT,
// REVOKE, LIST ROLES/USERS/PERMISSIONS). Its verb and the roles it names are modelled
// (Schema.Roles), and its options checked as far as the node's grammar refuses them
// (parse_auth.go); it does not change the tables.
type Auth struct {
	StmtInfo
	Verb string // upper case, e.g. "CREATE ROLE", "GRANT", "LIST PERMISSIONS"
	// Role is the role the statement creates, alters, drops or lists the roles of, or the
	// role a GRANT or REVOKE of a role gives; "" when there is none (a permission). Names
	// are folded as the node folds them (unquoted to lower case).
	Role    string
	RolePos Pos
	// Member is the role a GRANT gives to or a REVOKE takes from.
	Member string
	// Table is the table a GRANT or REVOKE of a permission is on (ON TABLE t, ON t); zero
	// for any other resource.
	Table               QualifiedName
	IfExists, NotExists bool
}

// Describe is DESCRIBE/DESC ...; recognised, not modelled.
type Describe struct {
	StmtInfo
}
