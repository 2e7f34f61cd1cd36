package denorm

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// Mode says how a write reaches the cluster.
type Mode int

const (
	// Logged sends every row of every table in one LOGGED batch: through the batchlog,
	// either all of them are applied or, after a coordinator failure, all are replayed.
	// It is the default because a half-written entity (in posts_by_id but missing from
	// posts_by_user) is a bug users see.
	Logged Mode = iota
	// Concurrent sends one idempotent statement per row, a few at a time. It is faster
	// for wide fan-outs and has no batch size limit, but a failure can leave some tables
	// written and others not: retry the same write (same timestamp) until it succeeds.
	Concurrent
)

func (m Mode) String() string {
	if m == Concurrent {
		return "concurrent"
	}
	return "logged"
}

// Cassandra's default batch_size_warn_threshold and batch_size_fail_threshold (cassandra.yaml).
const (
	DefaultWarnBytes = 5 * 1024
	DefaultFailBytes = 50 * 1024
)

// maxTTL is the longest TTL Cassandra accepts (Attributes.MAX_TTL, 20 years).
const maxTTL = 20 * 365 * 24 * time.Hour

// Options configure a Model. The zero value is the recommended setting.
type Options struct {
	// Keyspace qualifies every table name. Empty: the table's keyspace in the schema,
	// or, when the schema has none, the session's keyspace.
	Keyspace string
	// Mode is Logged (the default) or Concurrent.
	Mode Mode
	// Concurrency bounds the statements in flight per write in Concurrent mode (default 8).
	Concurrency int
	// Consistency of every write (default LOCAL_QUORUM). gocql.Any is the zero value and
	// so cannot be chosen; it is hardly ever what a write service wants. Across
	// datacenters LOCAL_QUORUM acknowledges the coordinator's DC only and keeps writing
	// through the loss of another; EACH_QUORUM waits for a quorum in every DC, for writes
	// that must be in both before the caller goes on, and is refused (Unavailable, nothing
	// applied) while a DC has too few replicas up.
	Consistency gocql.Consistency
	// TTL of every row written (USING TTL). Zero leaves the table's default_time_to_live.
	TTL time.Duration
	// WarnBytes and FailBytes mirror the cluster's batch_size_warn_threshold and
	// batch_size_fail_threshold (defaults 5 KiB and 50 KiB). A logged batch over WarnBytes
	// is logged to Logger; one over FailBytes is refused before it is sent. Negative
	// disables the check.
	WarnBytes int
	FailBytes int
	// Logger receives warnings (a batch over WarnBytes). Nil discards them.
	Logger *slog.Logger
	// AllowCollectionTombstones lets a mapping write whole non-frozen collections and user
	// types. Cassandra writes a tombstone before each such value (the column is replaced, so
	// its old elements are deleted), which breaks the no-tombstone promise of this package;
	// declare the column frozen instead unless elements are updated one by one elsewhere.
	AllowCollectionTombstones bool
	// Now is the clock default write timestamps come from (default time.Now).
	Now func() time.Time
	// SpeculativeReadAfter, when positive, makes Load send its read a second time, to
	// another replica, when the first attempt has not answered after this long (see
	// SpeculativeReads). Zero: one attempt at a time (retries still follow the session's
	// retry policy).
	SpeculativeReadAfter time.Duration
	// Transitions move access patterns from an old table to a new one (or add a new
	// one): each Stage says which of the two mapped tables writes reach and which one
	// readers use (Model.Reads, Choose), so a service goes from dual writes to reading the
	// new table to dropping the old one by changing its configuration.
	Transitions []Transition
}

func (o Options) withDefaults() (Options, error) {
	if o.Mode != Logged && o.Mode != Concurrent {
		return o, fmt.Errorf("options: mode %d: want Logged or Concurrent", int(o.Mode))
	}
	if o.Concurrency < 0 {
		return o, fmt.Errorf("options: concurrency %d: must not be negative", o.Concurrency)
	}
	if o.Concurrency == 0 {
		o.Concurrency = 8
	}
	if o.Consistency == gocql.Any {
		o.Consistency = gocql.LocalQuorum
	}
	if o.TTL < 0 || o.TTL > maxTTL {
		return o, fmt.Errorf("options: TTL %s: want 0 (the table default) up to 20 years", o.TTL)
	}
	if o.WarnBytes == 0 {
		o.WarnBytes = DefaultWarnBytes
	}
	if o.FailBytes == 0 {
		o.FailBytes = DefaultFailBytes
	}
	if o.WarnBytes > 0 && o.FailBytes > 0 && o.WarnBytes > o.FailBytes {
		return o, fmt.Errorf("options: WarnBytes %d is over FailBytes %d", o.WarnBytes, o.FailBytes)
	}
	if o.SpeculativeReadAfter < 0 {
		return o, fmt.Errorf("options: SpeculativeReadAfter %s: must not be negative", o.SpeculativeReadAfter)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// Mapping says how an entity of type E becomes rows of one table. Build it with Map, or
// with MapStruct from a struct's gocqlx field mapping.
type Mapping[E any] struct {
	table  string
	rows   func(e *E, out *Rows) error
	source func(Values) (*E, error)
	// bind, for MapStruct, resolves the mapping against its table when New has built it:
	// it sets rows (and scan, for a struct source) once, so no write looks up a field.
	bind func(mp Mapping[E], t *table) (Mapping[E], error)
	// scan, for MapStruct with AsSource, makes Load scan the row straight into E's fields.
	scan *structScan
	// plan, for a mapping from a write plan (PlannedEntity.Mappings), names its entity and
	// whether its table holds every row of it, so New can refuse a set that drops rows.
	plan *plannedMapping
}

// Map maps entities to rows of table (a name in the schema, optionally keyspace.table).
// rows is called once per write with a fresh Rows: it adds one row for an entity stored
// once in the table, or one per element for a fan-out (a post with three hashtags adds
// three rows to posts_by_hashtag), and may derive key columns (a month bucket from the
// post's timeuuid).
func Map[E any](table string, rows func(e *E, out *Rows) error) Mapping[E] {
	return Mapping[E]{table: table, rows: rows}
}

// Source marks the table as the one Load reads an entity back from, with scan turning a
// row into an entity. The table must hold exactly one row per entity (posts_by_id), so
// that Delete and Update can start from what is stored rather than from a caller's copy.
func (m Mapping[E]) Source(scan func(Values) (*E, error)) Mapping[E] {
	m.source = scan
	return m
}

// Values is one row read back from Cassandra, by column name.
type Values map[string]any

// column is one column of a mapped table with what is needed to marshal and measure it.
type column struct {
	name      string
	quoted    string
	kind      cql.ColumnKind
	typ       cql.Type
	info      gocql.TypeInfo
	fixed     int  // value length when every value has the same length, else -1
	complex   bool // non-frozen collection or user type: one cell per element
	text      bool // text, ascii or blob: a Go string is sent as its bytes
	textElems bool // a frozen list or set of text or ascii
}

// table is a mapped table, with its statements built once.
type table struct {
	name       string // as shown in messages: keyspace.table, or table when unqualified
	keyspace   string // for mutation identity: rows of one keyspace and partition key merge
	cols       []column
	index      map[string]int
	pk, ck     []int // column indexes, in key order
	defaultTTL bool
	insert     string // INSERT ... USING TIMESTAMP ?
	insertTTL  string // INSERT ... USING TTL ? AND TIMESTAMP ?
	delete     string // DELETE FROM ... USING TIMESTAMP ? WHERE <primary key>
	selectKey  string // SELECT * FROM ... WHERE <primary key>
}

// Model writes entities of type E to their tables. It is safe for concurrent use.
type Model[E any] struct {
	session *gocql.Session
	opts    Options
	tables  []*table
	maps    []Mapping[E]
	// sources are the indexes of the Source mappings: one, or the old and the new table of
	// a transition, of which Load reads the one the stage reads.
	sources []int
	trans   []boundTransition
	writes  []bool // per table: whether writes reach it at its transition's stage
}

// New builds a Model over the tables of schema, one Mapping per table. session may be nil
// for a Model that only plans (PlanInsert and friends), for instance in a test without a
// cluster. Every mapped table must exist in schema; counter tables cannot be written this
// way; whole non-frozen collections are refused unless AllowCollectionTombstones is set.
func New[E any](session *gocql.Session, schema *cql.Schema, opts Options, maps ...Mapping[E]) (*Model[E], error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if schema == nil {
		return nil, fmt.Errorf("new model: no schema")
	}
	if len(maps) == 0 {
		return nil, fmt.Errorf("new model: no table mapped")
	}
	m := &Model[E]{session: session, opts: opts}
	seen := map[string]bool{}
	defs := map[*cql.Table]*table{}
	for _, mp := range maps {
		if mp.rows == nil && mp.bind == nil {
			return nil, fmt.Errorf("new model: table %q: no row function", mp.table)
		}
		t, ok := schema.FindTable(mp.table)
		if !ok {
			if retired(mp.table, opts.Transitions) {
				continue // dropped after its transition ended: nothing writes or reads it
			}
			return nil, &SchemaError{Table: mp.table, Msg: "not found in the schema (or ambiguous: qualify it as keyspace.table)"}
		}
		tb, err := newTable(t, schema, opts)
		if err != nil {
			return nil, err
		}
		if mp.bind != nil { // a copy: maps may be the caller's slice
			if mp, err = mp.bind(mp, tb); err != nil {
				return nil, err
			}
		}
		if seen[tb.name] {
			return nil, &SchemaError{Table: tb.name, Msg: "mapped twice: add all its rows in one mapping"}
		}
		seen[tb.name] = true
		if mp.source != nil || mp.scan != nil {
			m.sources = append(m.sources, len(m.maps))
		}
		defs[t] = tb
		m.maps = append(m.maps, mp)
		m.tables = append(m.tables, tb)
	}
	if len(m.tables) == 0 {
		return nil, fmt.Errorf("new model: no table mapped")
	}
	find := func(name string) *table {
		if t, ok := schema.FindTable(name); ok {
			return defs[t]
		}
		return nil
	}
	if m.trans, m.writes, err = bindTransitions(opts.Transitions, m.tables, find); err != nil {
		return nil, err
	}
	if err := m.checkSources(); err != nil {
		return nil, err
	}
	if err := checkPlanned(m.maps); err != nil {
		return nil, err
	}
	return m, nil
}

// checkPlanned refuses mappings from a write plan that leave out every table holding all
// of an entity's rows (its home, say): some rows would then be written nowhere.
func checkPlanned[E any](maps []Mapping[E]) error {
	whole := map[string]bool{}
	var entities []string
	for _, mp := range maps {
		if mp.plan == nil {
			continue
		}
		if _, ok := whole[mp.plan.entity]; !ok {
			entities = append(entities, mp.plan.entity)
		}
		whole[mp.plan.entity] = whole[mp.plan.entity] || mp.plan.whole
	}
	for _, e := range entities {
		if !whole[e] {
			return fmt.Errorf("new model: write plan entity %s: none of the mapped tables holds every row (a fan-out over an empty set writes none), so rows would be dropped: map its home too (PlannedEntity.Source)", e)
		}
	}
	return nil
}

// retired reports whether name is the old table of a transition at NewOnly, whose mapping
// may outlive the table: the migration dropping it can ship before the code forgets it.
func retired(name string, trs []Transition) bool {
	bare := func(n string) string { return n[strings.LastIndexByte(n, '.')+1:] }
	for _, tr := range trs {
		if tr.Stage != NewOnly || tr.Old == "" {
			continue
		}
		// keyspace.table on one side and table on the other name the same table here: the
		// schema no longer has it to tell otherwise.
		qualified := strings.Contains(tr.Old, ".") && strings.Contains(name, ".")
		if strings.EqualFold(tr.Old, name) || !qualified && strings.EqualFold(bare(tr.Old), bare(name)) {
			return true
		}
	}
	return false
}

// checkSources allows one Source, or two when they are the old and the new table of one
// transition: Load then reads whichever the stage reads.
func (m *Model[E]) checkSources() error {
	if len(m.sources) < 2 {
		return nil
	}
	a, b := m.tables[m.sources[0]], m.tables[m.sources[1]]
	for _, tr := range m.trans {
		if len(m.sources) == 2 && (tr.old == a && tr.new == b || tr.old == b && tr.new == a) {
			return nil
		}
	}
	return &SchemaError{Table: b.name, Msg: "a second Source: only one table can be read back (or the old and the new table of one transition)"}
}

func newTable(t *cql.Table, schema *cql.Schema, opts Options) (*table, error) {
	ksName := opts.Keyspace
	if ksName == "" {
		ksName = t.Keyspace
	}
	tb := &table{keyspace: ksName, index: map[string]int{}, defaultTTL: t.Options.DefaultTTL > 0}
	qualified := cql.QuoteName(t.Name)
	tb.name = t.Name
	if ksName != "" {
		qualified = cql.QuoteName(ksName) + "." + qualified
		tb.name = ksName + "." + t.Name
	}
	ks := schema.Keyspaces[t.Keyspace]
	if len(t.PartitionKey) == 0 {
		return nil, &SchemaError{Table: tb.name, Msg: "has no partition key"}
	}
	for _, c := range t.Columns {
		if c.Type.Kind == cql.Native && c.Type.Name == "counter" {
			return nil, &SchemaError{Table: tb.name, Column: c.Name, Msg: "is a counter: counter tables cannot be written with a timestamp or in a logged batch"}
		}
		info, err := typeInfo(c.Type, ks)
		if err != nil {
			return nil, &SchemaError{Table: tb.name, Column: c.Name, Msg: err.Error()}
		}
		col := column{name: c.Name, quoted: cql.QuoteName(c.Name), kind: c.Kind, typ: c.Type, info: info, fixed: -1, complex: c.Type.MultiCell()}
		if n, ok := c.Type.FixedSize(); ok {
			col.fixed = n
		} else {
			switch c.Type.Name {
			case "smallint":
				col.fixed = 2
			case "tinyint":
				col.fixed = 1
			case "date":
				col.fixed = 4
			case "time":
				col.fixed = 8
			}
			if c.Type.Kind != cql.Native {
				col.fixed = -1
			}
		}
		isText := func(t cql.Type) bool {
			return t.Kind == cql.Native && (t.Name == "text" || t.Name == "ascii" || t.Name == "blob")
		}
		col.text = isText(c.Type)
		col.textElems = !col.complex && (c.Type.Kind == cql.List || c.Type.Kind == cql.Set) && len(c.Type.Params) == 1 &&
			isText(c.Type.Params[0]) && c.Type.Params[0].Name != "blob"
		if col.complex && !opts.AllowCollectionTombstones {
			return nil, &SchemaError{Table: tb.name, Column: c.Name, Msg: fmt.Sprintf(
				"is a non-frozen %s: writing it whole writes a tombstone first; declare it frozen<%s> (or set AllowCollectionTombstones)", c.Type, c.Type)}
		}
		tb.index[c.Name] = len(tb.cols)
		tb.cols = append(tb.cols, col)
	}
	for _, k := range t.PartitionKey {
		tb.pk = append(tb.pk, tb.index[k.Name])
	}
	for _, k := range t.Clustering {
		tb.ck = append(tb.ck, tb.index[k.Name])
	}
	var names, marks, where []string
	for _, c := range tb.cols {
		names = append(names, c.quoted)
		marks = append(marks, "?")
	}
	for _, i := range append(append([]int(nil), tb.pk...), tb.ck...) {
		where = append(where, tb.cols[i].quoted+" = ?")
	}
	head := "INSERT INTO " + qualified + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
	tb.insert = head + " USING TIMESTAMP ?"
	tb.insertTTL = head + " USING TTL ? AND TIMESTAMP ?"
	tb.delete = "DELETE FROM " + qualified + " USING TIMESTAMP ? WHERE " + strings.Join(where, " AND ")
	tb.selectKey = "SELECT * FROM " + qualified + " WHERE " + strings.Join(where, " AND ")
	return tb, nil
}

// Tables returns the mapped tables' names in mapping order, qualified when a keyspace is known.
func (m *Model[E]) Tables() []string {
	out := make([]string, len(m.tables))
	for i, t := range m.tables {
		out[i] = t.name
	}
	return out
}

// Rows collects the rows a mapping adds for one entity.
type Rows struct {
	t    *table
	vals []any // len(t.cols) values per row, nil = not set
	err  error
}

// Len returns the number of rows added so far.
func (rs *Rows) Len() int { return len(rs.vals) / len(rs.t.cols) }

// Add starts a new row; set its columns with Set.
func (rs *Rows) Add() Row {
	off, n := len(rs.vals), len(rs.t.cols)
	rs.vals = slices.Grow(rs.vals, n)[:off+n]
	clear(rs.vals[off:])
	return Row{rs: rs, off: off}
}

// Row is one row being built. A column left unset, or set to nil, a nil pointer, slice or
// map, or a zero time.Time, is sent as unset: Cassandra leaves it alone and writes no
// tombstone. (A zero time.Time would otherwise be sent as an empty value, read back as null.)
type Row struct {
	rs  *Rows
	off int
}

// Set sets a column of the row. An unknown column is reported by the write, which then
// sends nothing.
func (r Row) Set(column string, value any) Row {
	i, ok := r.rs.t.index[column]
	if !ok {
		i, ok = r.rs.t.index[strings.ToLower(column)]
	}
	if !ok {
		if r.rs.err == nil {
			r.rs.err = &UnknownColumnError{Table: r.rs.t.name, Column: column}
		}
		return r
	}
	r.rs.vals[r.off+i] = value
	return r
}
