package cql

import (
	"sort"

	"github.com/cqlsize/cqlsize/cql/options"
)

// ColumnKind is a column's role in its table, as system_schema.columns.kind names it.
type ColumnKind int

// Column roles. Partition key and clustering columns make the primary key.
const (
	PartitionKey ColumnKind = iota
	Clustering
	Static
	Regular
)

func (k ColumnKind) String() string {
	return [...]string{"partition_key", "clustering", "static", "regular"}[k]
}

// Order is a clustering column's sort order.
type Order int

// Clustering orders.
const (
	Asc Order = iota
	Desc
)

func (o Order) String() string {
	if o == Desc {
		return "desc"
	}
	return "asc"
}

// Column is one column of a table.
type Column struct {
	Name     string // as Cassandra stores it: folded to lower case unless it was quoted
	Type     Type
	Kind     ColumnKind
	Position int   // position within the partition key or clustering key; -1 for static and regular
	Order    Order // clustering order (asc for every other kind)
	Pos      Pos   // where the column was declared
}

// Table is a table of the schema after every statement that touched it was applied.
type Table struct {
	Keyspace     string
	Name         string
	Columns      []*Column // in declaration order (ALTER ... ADD appends)
	PartitionKey []*Column // in key order
	Clustering   []*Column // in key order
	Options      TableOptions
	Pos          Pos // the CREATE TABLE statement
	// Dropped remembers the type of every column dropped by ALTER TABLE ... DROP: Cassandra
	// only lets a column of that name come back with the same type.
	Dropped map[string]Type
}

// Column returns the column with the given (already folded) name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ColumnsOf returns the table's columns of one kind, in declaration order.
func (t *Table) ColumnsOf(kind ColumnKind) []*Column {
	var out []*Column
	for _, c := range t.Columns {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// QualifiedName is keyspace.table.
func (t *Table) QualifiedName() string { return t.Keyspace + "." + t.Name }

// DefaultGCGraceSeconds is Cassandra's table default for gc_grace_seconds (10 days).
const DefaultGCGraceSeconds = 864000

// TableOptions are the WITH options of a table. The ones the analyses use are typed;
// every option, typed or not, is also kept in Raw as written (maps as map[string]string).
type TableOptions struct {
	DefaultTTL     int               // default_time_to_live in seconds, 0 = none
	GCGraceSeconds int               // gc_grace_seconds, DefaultGCGraceSeconds unless set
	Compaction     map[string]string // e.g. {"class": "TimeWindowCompactionStrategy", ...}
	Compression    map[string]string
	Caching        map[string]string
	Comment        string
	CompactStorage bool
	Raw            map[string]any
}

// CompactionClass returns the compaction class without its package
// ("SizeTieredCompactionStrategy" when unset, Cassandra's default).
func (o TableOptions) CompactionClass() string {
	c := o.Compaction["class"]
	if c == "" {
		return "SizeTieredCompactionStrategy"
	}
	for i := len(c) - 1; i >= 0; i-- {
		if c[i] == '.' {
			return c[i+1:]
		}
	}
	return c
}

// UserType is a user-defined type.
type UserType struct {
	Keyspace string
	Name     string
	Fields   []Field
	Pos      Pos
}

// Field is one field of a user-defined type.
type Field struct {
	Name string
	Type Type
}

// Index is a secondary index (legacy 2i, SAI or another custom class).
type Index struct {
	Keyspace string
	Name     string
	Table    string
	Target   string // the column, or keys(col), values(col), entries(col), full(col)
	Custom   bool
	Class    string // the custom class, "sai" for USING 'sai'
	Options  map[string]string
	Pos      Pos
}

// View is a materialized view.
type View struct {
	Keyspace  string
	Name      string
	BaseTable string
	Table     *Table // the view's own columns and key
	Pos       Pos
	// IncludeAll is true for SELECT *: columns later added to the base table join the view.
	IncludeAll bool
	Where      string // the WHERE clause as written, e.g. "k IS NOT NULL AND c IS NOT NULL"
}

// Keyspace is a keyspace and everything in it.
type Keyspace struct {
	Name          string
	Replication   map[string]string
	DurableWrites bool
	Tables        map[string]*Table
	Types         map[string]*UserType
	Indexes       map[string]*Index
	Views         map[string]*View
	Functions     map[string]Pos // name -> where it was created; bodies are not modelled
	Aggregates    map[string]Pos
	// Routines are the overloads of each function ("f:name") and aggregate ("a:name")
	// created by statements; nil in a schema read from a node, which knows names only.
	Routines map[string][]Routine
	Pos      Pos
}

// NewKeyspace returns an empty keyspace with every map allocated.
func NewKeyspace(name string) *Keyspace {
	return &Keyspace{
		Name: name, DurableWrites: true, Replication: map[string]string{},
		Tables: map[string]*Table{}, Types: map[string]*UserType{}, Indexes: map[string]*Index{},
		Views: map[string]*View{}, Functions: map[string]Pos{}, Aggregates: map[string]Pos{},
	}
}

// Schema is the result of applying a sequence of statements: every keyspace and its contents.
type Schema struct {
	Keyspaces map[string]*Keyspace
	// Current is the keyspace set by the last USE; unqualified names resolve in it.
	Current string
	// Release is the Cassandra release whose schema rules Apply follows: Release50 (the
	// zero value) or Release41.
	Release options.Release
	// CheckSelect, when set, judges a SELECT beyond the table it names: whether the node
	// runs its restrictions and ordering (cql/check's Rejection, which this package cannot
	// import). Apply calls it after its own checks; Clone keeps it.
	CheckSelect func(*Schema, *Select) error
	// Roles are the roles the statements applied created (true) or dropped (false), and
	// the roles each was granted. A role the statements never named is unknown, not
	// missing: the cluster may have it (a schema read from a node holds no roles).
	Roles   map[string]bool
	Granted map[string]map[string]bool
}

// NewSchema returns an empty schema.
func NewSchema() *Schema { return &Schema{Keyspaces: map[string]*Keyspace{}} }

// Table returns keyspace.name, or nil.
//
// The system keyspaces a 5.0 node ships (system.local, system_schema.tables, ...) are
// found too, unless the schema defines a keyspace of that name itself.
func (s *Schema) Table(keyspace, name string) *Table {
	if ks := s.Keyspaces[keyspace]; ks != nil {
		return ks.Tables[name]
	}
	return SystemTable(keyspace, name)
}

// Tables returns every table, sorted by keyspace then name, so reports are stable.
func (s *Schema) Tables() []*Table {
	var out []*Table
	for _, ks := range s.Keyspaces {
		for _, t := range ks.Tables {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Keyspace != out[j].Keyspace {
			return out[i].Keyspace < out[j].Keyspace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// FindTable finds a table by a name that may be qualified (ks.t) or not; an unqualified
// name is looked up in every keyspace and must be unambiguous.
func (s *Schema) FindTable(name string) (*Table, bool) {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			t := s.Table(name[:i], name[i+1:])
			return t, t != nil
		}
	}
	var found *Table
	for _, ks := range s.Keyspaces {
		if t := ks.Tables[name]; t != nil {
			if found != nil {
				return nil, false
			}
			found = t
		}
	}
	return found, found != nil
}
