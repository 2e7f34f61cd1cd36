package cql

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Apply applies one statement to the schema, the way Cassandra 5.0 would: DDL changes the
// schema, USE sets the current keyspace, DML and role statements change nothing but must
// name tables that exist. A statement Cassandra would reject is an *Error at the position
// of the offending name, and leaves the schema unchanged.
//
// The rules checked are those a 5.0 node enforces (each one was tried on a real node): a
// missing or existing keyspace, table, type, index or view (unless IF [NOT] EXISTS),
// duplicate columns and fields, primary keys naming undeclared columns, static columns
// without clustering columns, counters beside other columns, non-frozen collections and
// user types where they are not allowed, invalid table options, and more.
func (s *Schema) Apply(stmt Statement) error {
	if s.Keyspaces == nil {
		s.Keyspaces = map[string]*Keyspace{}
	}
	switch st := stmt.(type) {
	case *Use:
		if s.Keyspaces[st.Keyspace.Name] == nil {
			return Errorf(st.Keyspace.Pos, "keyspace %s does not exist", st.Keyspace)
		}
		s.Current = st.Keyspace.Name
		return nil
	case *CreateKeyspace:
		return s.createKeyspace(st)
	case *AlterKeyspace:
		return s.alterKeyspace(st)
	case *DropKeyspace:
		if s.Keyspaces[st.Name.Name] == nil {
			if st.IfExists {
				return nil
			}
			return Errorf(st.Name.Pos, "keyspace %s does not exist", st.Name)
		}
		delete(s.Keyspaces, st.Name.Name)
		return nil
	case *CreateTable:
		return s.createTable(st)
	case *AlterTable:
		return s.alterTable(st)
	case *DropTable:
		return s.dropTable(st)
	case *Truncate:
		_, _, err := s.findTable(st.Table)
		return err
	case *CreateType:
		return s.createType(st)
	case *AlterUserType:
		return s.alterType(st)
	case *DropType:
		return s.dropType(st)
	case *CreateIndex:
		return s.createIndex(st)
	case *DropIndex:
		ks, err := s.keyspaceOf(st.Name)
		if err != nil {
			return err
		}
		if ks.Indexes[st.Name.Name.Name] == nil {
			if st.IfExists {
				return nil
			}
			return Errorf(st.Name.Name.Pos, "index %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
		}
		delete(ks.Indexes, st.Name.Name.Name)
		return nil
	case *CreateView:
		return s.createView(st)
	case *AlterView:
		ks, err := s.keyspaceOf(st.Name)
		if err != nil {
			return err
		}
		v := ks.Views[st.Name.Name.Name]
		if v == nil {
			if st.IfExists {
				return nil
			}
			return Errorf(st.Name.Name.Pos, "materialized view %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
		}
		opts, err := tableOptions(v.Table.Options, st.Properties, false, false)
		if err != nil {
			return err
		}
		v.Table.Options = opts
		return nil
	case *DropView:
		ks, err := s.keyspaceOf(st.Name)
		if err != nil {
			return err
		}
		if ks.Views[st.Name.Name.Name] == nil {
			if st.IfExists {
				return nil
			}
			if ks.Tables[st.Name.Name.Name] != nil {
				return Errorf(st.Name.Name.Pos, "%s is a table, not a materialized view: use DROP TABLE", st.Name)
			}
			return Errorf(st.Name.Name.Pos, "materialized view %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
		}
		delete(ks.Views, st.Name.Name.Name)
		return nil
	case *CreateFunction:
		ks, err := s.keyspaceOf(st.Name)
		if err != nil {
			return err
		}
		if _, ok := ks.Functions[st.Name.Name.Name]; !ok || st.OrReplace {
			ks.Functions[st.Name.Name.Name] = st.Pos
		}
		return nil
	case *DropFunction:
		return s.dropRoutine(st.Name, st.IfExists, "function", func(ks *Keyspace) map[string]Pos { return ks.Functions })
	case *CreateAggregate:
		ks, err := s.keyspaceOf(st.Name)
		if err != nil {
			return err
		}
		if _, ok := ks.Aggregates[st.Name.Name.Name]; !ok || st.OrReplace {
			ks.Aggregates[st.Name.Name.Name] = st.Pos
		}
		return nil
	case *DropAggregate:
		return s.dropRoutine(st.Name, st.IfExists, "aggregate", func(ks *Keyspace) map[string]Pos { return ks.Aggregates })
	case *CreateTrigger:
		_, _, err := s.findTable(st.Table)
		return err
	case *DropTrigger:
		_, _, err := s.findTable(st.Table)
		return err
	case *Select:
		_, _, err := s.findTableOrView(st.Table)
		return err
	case *Insert:
		_, _, err := s.findTable(st.Table)
		return err
	case *Update:
		_, _, err := s.findTable(st.Table)
		return err
	case *Delete:
		_, _, err := s.findTable(st.Table)
		return err
	case *Batch:
		for _, b := range st.Statements {
			if err := s.Apply(b); err != nil {
				return err
			}
		}
		return nil
	case *Auth, *Describe:
		return nil
	case nil:
		return fmt.Errorf("apply statement: nil statement")
	}
	return Errorf(stmt.Info().Pos, "unsupported statement %T", stmt)
}

// ApplyAll applies statements in order. It is all or nothing: on the first error the
// schema is left as it was before the call.
func (s *Schema) ApplyAll(stmts []Statement) error {
	next := s.Clone()
	for _, st := range stmts {
		if err := next.Apply(st); err != nil {
			return err
		}
	}
	*s = *next
	return nil
}

// ApplyFile parses a CQL source and applies its statements in order, all or nothing.
func (s *Schema) ApplyFile(file string, src []byte) error {
	stmts, err := ParseFile(file, src)
	if err != nil {
		return err
	}
	return s.ApplyAll(stmts)
}

// ---- name resolution ----

// keyspaceName returns the keyspace a name lives in: its qualifier, or the current one.
func (s *Schema) keyspaceName(q QualifiedName) (string, error) {
	if !q.Keyspace.IsZero() {
		return q.Keyspace.Name, nil
	}
	if s.Current == "" {
		return "", Errorf(q.Name.Pos, "no keyspace for %s: qualify it as keyspace.%s or USE a keyspace first", q.Name, q.Name)
	}
	return s.Current, nil
}

// keyspaceOf returns the existing keyspace a name lives in.
func (s *Schema) keyspaceOf(q QualifiedName) (*Keyspace, error) {
	name, err := s.keyspaceName(q)
	if err != nil {
		return nil, err
	}
	ks := s.Keyspaces[name]
	if ks == nil {
		pos := q.Pos()
		return nil, Errorf(pos, "keyspace %s does not exist", QuoteName(name))
	}
	return ks, nil
}

// findTable returns the table q names.
func (s *Schema) findTable(q QualifiedName) (*Keyspace, *Table, error) {
	ks, err := s.keyspaceOf(q)
	if err != nil {
		return nil, nil, err
	}
	t := ks.Tables[q.Name.Name]
	if t == nil {
		if ks.Views[q.Name.Name] != nil {
			return nil, nil, Errorf(q.Name.Pos, "%s.%s is a materialized view, not a table", QuoteName(ks.Name), q.Name)
		}
		return nil, nil, Errorf(q.Name.Pos, "table %s.%s does not exist", QuoteName(ks.Name), q.Name)
	}
	return ks, t, nil
}

// findTableOrView returns the table or view q names (SELECT reads both).
func (s *Schema) findTableOrView(q QualifiedName) (*Keyspace, *Table, error) {
	ks, err := s.keyspaceOf(q)
	if err != nil {
		return nil, nil, err
	}
	if t := ks.Tables[q.Name.Name]; t != nil {
		return ks, t, nil
	}
	if v := ks.Views[q.Name.Name]; v != nil {
		return ks, v.Table, nil
	}
	return nil, nil, Errorf(q.Name.Pos, "table %s.%s does not exist", QuoteName(ks.Name), q.Name)
}

func (s *Schema) dropRoutine(q QualifiedName, ifExists bool, what string, m func(*Keyspace) map[string]Pos) error {
	ks, err := s.keyspaceOf(q)
	if err != nil {
		if ifExists {
			return nil
		}
		return err
	}
	if _, ok := m(ks)[q.Name.Name]; !ok {
		if ifExists {
			return nil
		}
		return Errorf(q.Name.Pos, "%s %s.%s does not exist", what, QuoteName(ks.Name), q.Name)
	}
	delete(m(ks), q.Name.Name)
	return nil
}

// validName reports whether a keyspace or table name is one Cassandra accepts: letters,
// digits and underscores only.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isIdentByte(name[i]) {
			return false
		}
	}
	return true
}

// maxKeyspaceName is Cassandra's limit on keyspace name length.
const maxKeyspaceName = 48

// ---- keyspaces ----

func (s *Schema) createKeyspace(st *CreateKeyspace) error {
	name := st.Name.Name
	if !validName(name) {
		return Errorf(st.Name.Pos, "invalid keyspace name %s: use letters, digits and underscores only", st.Name)
	}
	if len(name) > maxKeyspaceName {
		return Errorf(st.Name.Pos, "keyspace name %s is %d characters long; the limit is %d", st.Name, len(name), maxKeyspaceName)
	}
	ks := NewKeyspace(name)
	ks.Pos = st.Name.Pos
	if err := keyspaceOptions(ks, st.Properties, true, st.Pos); err != nil {
		return err
	}
	if s.Keyspaces[name] != nil {
		if st.IfNotExists {
			return nil
		}
		return Errorf(st.Name.Pos, "keyspace %s already exists", st.Name)
	}
	s.Keyspaces[name] = ks
	return nil
}

func (s *Schema) alterKeyspace(st *AlterKeyspace) error {
	ks := s.Keyspaces[st.Name.Name]
	if ks == nil {
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Pos, "keyspace %s does not exist", st.Name)
	}
	next := *ks
	if err := keyspaceOptions(&next, st.Properties, false, st.Pos); err != nil {
		return err
	}
	ks.Replication, ks.DurableWrites = next.Replication, next.DurableWrites
	return nil
}

// replicationStrategies are the replication classes Cassandra 5.0 ships, by short name.
var replicationStrategies = map[string]bool{
	"SimpleStrategy": true, "NetworkTopologyStrategy": true, "LocalStrategy": true, "EverywhereStrategy": true,
}

const locatorPackage = "org.apache.cassandra.locator."

// keyspaceOptions applies replication and durable_writes to ks.
func keyspaceOptions(ks *Keyspace, props []*Property, create bool, stmtPos Pos) error {
	seen := map[string]bool{}
	hasReplication := false
	for _, p := range props {
		name := p.Name.Name
		if seen[name] {
			return Errorf(p.Name.Pos, "multiple definitions for property %s", name)
		}
		seen[name] = true
		switch name {
		case "replication":
			if !p.IsMap {
				return Errorf(p.Pos, "invalid value for property replication: it must be a map")
			}
			m := p.MapValue()
			class := m["class"]
			if class == "" {
				return Errorf(p.Pos, "missing replication strategy class: replication needs a 'class'")
			}
			short := strings.TrimPrefix(class, locatorPackage)
			if !replicationStrategies[short] {
				return Errorf(p.Pos, "unknown replication strategy class %q", class)
			}
			m["class"] = locatorPackage + short
			ks.Replication = m
			hasReplication = true
		case "durable_writes":
			b, err := boolOption(p)
			if err != nil {
				return err
			}
			ks.DurableWrites = b
		default:
			return Errorf(p.Name.Pos, "unknown keyspace property %s", name)
		}
	}
	if create && !hasReplication {
		return Errorf(stmtPos, "missing mandatory option replication")
	}
	return nil
}

func boolOption(p *Property) (bool, error) {
	if !p.IsMap {
		switch strings.ToLower(p.Value) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, Errorf(p.Pos, "invalid boolean value for %s", p.Name.Name)
}

// ---- types of columns ----

// typeContext says where a type is used, for the rules that depend on it.
type typeContext int

const (
	inTable typeContext = iota
	inUDT
)

// resolveType checks t as a column or field type in keyspace ks and returns it with user
// types qualified by their keyspace. pos is where the type was written.
func resolveType(ks *Keyspace, t Type, pos Pos, ctx typeContext) (Type, error) {
	whole := t
	var walk func(t Type, inCollection, inTuple bool) (Type, error)
	walk = func(t Type, inCollection, inTuple bool) (Type, error) {
		switch t.Kind {
		case Native:
			if t.Name == "counter" {
				switch {
				case ctx == inUDT:
					return t, Errorf(pos, "a user type cannot contain counters")
				case inCollection:
					return t, Errorf(pos, "counters are not allowed inside collections: %s", whole)
				case inTuple:
					return t, Errorf(pos, "counters are not allowed inside tuples")
				}
			}
		case UDT:
			if t.Keyspace != "" && t.Keyspace != ks.Name {
				return t, Errorf(pos, "user type %s.%s is in another keyspace: user types can only be used in the keyspace %s they are defined in", QuoteName(t.Keyspace), QuoteName(t.Name), QuoteName(ks.Name))
			}
			ut := ks.Types[t.Name]
			if ut == nil {
				return t, Errorf(pos, "unknown type %s.%s", QuoteName(ks.Name), QuoteName(t.Name))
			}
			t.Keyspace = ks.Name
			if !t.Frozen {
				if ctx == inUDT {
					return t, Errorf(pos, "a user type cannot contain non-frozen user types: write frozen<%s>", QuoteName(t.Name))
				}
				if inCollection {
					return t, Errorf(pos, "non-frozen user types are not allowed inside collections: %s", whole)
				}
				for _, f := range ut.Fields {
					if f.Type.MultiCell() && f.Type.IsCollection() {
						return t, Errorf(pos, "non-frozen user types with nested non-frozen collections are not supported: write frozen<%s>", QuoteName(t.Name))
					}
				}
			}
		case List, Set, Map:
			if !t.Frozen && inCollection {
				return t, Errorf(pos, "non-frozen collections are not allowed inside collections: %s", whole)
			}
			if t.Kind == Set && len(t.Params) == 1 && t.Params[0].Kind == Native && t.Params[0].Name == "duration" {
				return t, Errorf(pos, "durations are not allowed inside sets: %s", whole)
			}
			if t.Kind == Map && len(t.Params) == 2 && t.Params[0].Kind == Native && t.Params[0].Name == "duration" {
				return t, Errorf(pos, "durations are not allowed as map keys: %s", whole)
			}
		}
		if len(t.Params) == 0 {
			return t, nil
		}
		ps := make([]Type, len(t.Params))
		for i, p := range t.Params {
			var err error
			coll := inCollection || t.Kind == List || t.Kind == Set || t.Kind == Map
			if t.Kind == Vector {
				coll = inCollection
			}
			ps[i], err = walk(p, coll, inTuple || t.Kind == Tuple)
			if err != nil {
				return t, err
			}
		}
		t.Params = ps
		return t, nil
	}
	return walk(t, false, false)
}

// usesType reports whether t refers to the user type name of keyspace ks.
func usesType(t Type, ks, name string) bool {
	return t.Contains(func(x Type) bool { return x.Kind == UDT && x.Name == name && (x.Keyspace == "" || x.Keyspace == ks) })
}

// ---- tables ----

func (s *Schema) createTable(st *CreateTable) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		return err
	}
	name := st.Name.Name
	if !validName(name.Name) {
		return Errorf(name.Pos, "invalid table name %s: use letters, digits and underscores only", name)
	}
	if ks.Tables[name.Name] != nil || ks.Views[name.Name] != nil {
		if st.IfNotExists {
			return nil
		}
		return Errorf(name.Pos, "table %s.%s already exists", QuoteName(ks.Name), name)
	}
	t := &Table{Keyspace: ks.Name, Name: name.Name, Pos: st.Pos}
	for _, c := range st.Columns {
		if t.Column(c.Name.Name) != nil {
			return Errorf(c.Name.Pos, "duplicate column %s in table %s", c.Name, st.Name)
		}
		typ, err := resolveType(ks, c.Type, c.TypePos, inTable)
		if err != nil {
			return err
		}
		kind := Regular
		if c.Static {
			kind = Static
		}
		t.Columns = append(t.Columns, &Column{Name: c.Name.Name, Type: typ, Kind: kind, Position: -1, Pos: c.Name.Pos})
	}
	switch {
	case st.KeyCount == 0:
		return Errorf(st.Name.Name.Pos, "no PRIMARY KEY specified for table %s (exactly one is required)", st.Name)
	case st.KeyCount > 1:
		return Errorf(st.KeyPos, "more than one PRIMARY KEY specified for table %s (exactly one is required)", st.Name)
	}
	seen := map[string]bool{}
	mark := func(ids []Ident, kind ColumnKind) error {
		for i, id := range ids {
			c := t.Column(id.Name)
			if c == nil {
				return Errorf(id.Pos, "unknown column %s in the PRIMARY KEY of table %s", id, st.Name)
			}
			if seen[id.Name] {
				return Errorf(id.Pos, "duplicate column %s in the PRIMARY KEY of table %s", id, st.Name)
			}
			seen[id.Name] = true
			if c.Kind == Static {
				return Errorf(id.Pos, "static column %s cannot be part of the PRIMARY KEY", id)
			}
			if err := checkKeyType(c, id.Pos); err != nil {
				return err
			}
			c.Kind, c.Position = kind, i
			if kind == PartitionKey {
				t.PartitionKey = append(t.PartitionKey, c)
			} else {
				t.Clustering = append(t.Clustering, c)
			}
		}
		return nil
	}
	if err := mark(st.PartitionKey, PartitionKey); err != nil {
		return err
	}
	if err := mark(st.Clustering, Clustering); err != nil {
		return err
	}
	if err := clusteringOrder(t, st.ClusteringOrder, st.Name, false); err != nil {
		return err
	}
	if err := checkColumns(t, st.Name); err != nil {
		return err
	}
	opts, err := tableOptions(TableOptions{GCGraceSeconds: DefaultGCGraceSeconds}, st.Properties, true, st.CompactStorage)
	if err != nil {
		return err
	}
	t.Options = opts
	if err := checkCounterTTL(t, st.Properties); err != nil {
		return err
	}
	if st.CompactStorage {
		if err := compactStorage(t, st); err != nil {
			return err
		}
	}
	ks.Tables[t.Name] = t
	return nil
}

// checkKeyType rejects types Cassandra does not allow in a primary key.
func checkKeyType(c *Column, pos Pos) error {
	switch {
	case c.Type.Kind == Native && (c.Type.Name == "counter" || c.Type.Name == "duration"):
		return Errorf(pos, "%s type is not supported for PRIMARY KEY column %s", c.Type.Name, QuoteName(c.Name))
	case c.Type.IsCollection() && !c.Type.Frozen:
		return Errorf(pos, "invalid non-frozen collection type %s for PRIMARY KEY column %s", c.Type, QuoteName(c.Name))
	case c.Type.Kind == UDT && !c.Type.Frozen:
		return Errorf(pos, "invalid non-frozen user type %s for PRIMARY KEY column %s", c.Type, QuoteName(c.Name))
	}
	return nil
}

// checkColumns checks the rules that span columns: static columns need clustering columns
// and counters cannot share a table with other non-key columns.
func checkColumns(t *Table, name QualifiedName) error {
	counters, others := 0, 0
	var firstOther *Column
	for _, c := range t.Columns {
		if c.Kind == Static && len(t.Clustering) == 0 {
			return Errorf(c.Pos, "static column %s is only allowed in a table with clustering columns", QuoteName(c.Name))
		}
		if c.Kind == Regular || c.Kind == Static {
			if c.Type.Kind == Native && c.Type.Name == "counter" {
				counters++
			} else {
				others++
				if firstOther == nil {
					firstOther = c
				}
			}
		}
	}
	if counters > 0 && others > 0 {
		return Errorf(firstOther.Pos, "cannot mix counter and non-counter columns in table %s", name)
	}
	return nil
}

// isCounterTable reports whether t holds counters.
func isCounterTable(t *Table) bool {
	for _, c := range t.Columns {
		if c.Type.Kind == Native && c.Type.Name == "counter" {
			return true
		}
	}
	return false
}

func checkCounterTTL(t *Table, props []*Property) error {
	if t.Options.DefaultTTL > 0 && isCounterTable(t) {
		for _, p := range props {
			if p.Name.Name == "default_time_to_live" {
				return Errorf(p.Pos, "cannot set default_time_to_live on a table with counters")
			}
		}
		return Errorf(t.Pos, "cannot set default_time_to_live on a table with counters")
	}
	return nil
}

// clusteringOrder applies WITH CLUSTERING ORDER BY. Tables may list a prefix of the
// clustering columns; views must list all of them.
func clusteringOrder(t *Table, order []ClusteringOrder, name QualifiedName, view bool) error {
	for i, o := range order {
		c := t.Column(o.Column.Name)
		if c == nil || c.Kind != Clustering {
			return Errorf(o.Column.Pos, "only clustering columns can be in CLUSTERING ORDER BY: %s is not one of %s", o.Column, name)
		}
		for _, prev := range order[:i] {
			if prev.Column.Name == o.Column.Name {
				return Errorf(o.Column.Pos, "duplicate column %s in CLUSTERING ORDER BY", o.Column)
			}
		}
		if c.Position != i {
			if c.Position > i {
				return Errorf(o.Column.Pos, "missing CLUSTERING ORDER for column %s", QuoteName(t.Clustering[i].Name))
			}
			return Errorf(o.Column.Pos, "the order of columns in CLUSTERING ORDER BY must be that of the clustering columns")
		}
		c.Order = Asc
		if o.Desc {
			c.Order = Desc
		}
	}
	if view && len(order) > 0 && len(order) != len(t.Clustering) {
		return Errorf(order[0].Column.Pos, "a materialized view's CLUSTERING ORDER BY must list every clustering column")
	}
	return nil
}

// compactStorage checks a COMPACT STORAGE table and adds the hidden columns Cassandra
// creates for it (as a 5.0 node shows them in system_schema.columns).
func compactStorage(t *Table, st *CreateTable) error {
	var regular []*Column
	for _, c := range t.Columns {
		if c.Kind == Regular || c.Kind == Static {
			if c.Type.MultiCell() {
				return Errorf(c.Pos, "non-frozen collections and user types are not supported with COMPACT STORAGE")
			}
			regular = append(regular, c)
		}
	}
	free := func(base string) string {
		name := base
		for i := 2; t.Column(name) != nil; i++ {
			name = base + strconv.Itoa(i)
		}
		return name
	}
	if len(t.Clustering) == 0 {
		// A "static" compact table: its columns are stored as static columns of a table
		// with a text clustering column and a blob value.
		if len(regular) == 0 {
			return Errorf(st.Name.Name.Pos, "a COMPACT STORAGE table needs a column that is not part of the PRIMARY KEY")
		}
		for _, c := range regular {
			c.Kind = Static
		}
		cl := &Column{Name: free("column1"), Type: Type{Kind: Native, Name: "text"}, Kind: Clustering, Position: 0, Pos: st.Pos}
		t.Columns = append(t.Columns, cl, &Column{Name: free("value"), Type: Type{Kind: Native, Name: "blob"}, Kind: Regular, Position: -1, Pos: st.Pos})
		t.Clustering = []*Column{cl}
		return nil
	}
	switch len(regular) {
	case 0:
		t.Columns = append(t.Columns, &Column{Name: free("value"), Type: Type{Kind: Native, Name: "empty"}, Kind: Regular, Position: -1, Pos: st.Pos})
	case 1:
	default:
		return Errorf(regular[1].Pos, "COMPACT STORAGE with clustering columns allows no more than one column outside the PRIMARY KEY")
	}
	return nil
}

// tableOptionNames are the WITH options of a 5.0 table; id is only valid at creation.
var tableOptionNames = map[string]bool{
	"additional_write_policy": true, "allow_auto_snapshot": true, "bloom_filter_fp_chance": true,
	"caching": true, "cdc": true, "comment": true, "compaction": true, "compression": true,
	"crc_check_chance": true, "default_time_to_live": true, "extensions": true,
	"gc_grace_seconds": true, "incremental_backups": true, "max_index_interval": true,
	"memtable": true, "memtable_flush_period_in_ms": true, "min_index_interval": true,
	"read_repair": true, "speculative_retry": true, "id": true,
}

// mapOptions are the options whose value is a map.
var mapOptions = map[string]bool{"caching": true, "compaction": true, "compression": true, "extensions": true}

// compactionStrategies are the compaction classes Cassandra 5.0 ships, by short name.
var compactionStrategies = map[string]bool{
	"SizeTieredCompactionStrategy": true, "LeveledCompactionStrategy": true,
	"TimeWindowCompactionStrategy": true, "UnifiedCompactionStrategy": true,
}

const compactionPackage = "org.apache.cassandra.db.compaction."

// maxTTL is Cassandra's limit on a TTL: 20 years in seconds.
const maxTTL = 630720000

// tableOptions applies WITH options over base and returns the result.
func tableOptions(base TableOptions, props []*Property, create, compact bool) (TableOptions, error) {
	o := base
	o.Raw = make(map[string]any, len(base.Raw)+len(props))
	for k, v := range base.Raw {
		o.Raw[k] = v
	}
	o.CompactStorage = base.CompactStorage || compact
	seen := map[string]bool{}
	for _, p := range props {
		name := p.Name.Name
		if !tableOptionNames[name] || (name == "id" && !create) {
			return o, Errorf(p.Name.Pos, "unknown table property %s", name)
		}
		if seen[name] {
			return o, Errorf(p.Name.Pos, "multiple definitions for property %s", name)
		}
		seen[name] = true
		if mapOptions[name] != p.IsMap {
			if p.IsMap {
				return o, Errorf(p.Pos, "invalid value for property %s: it must not be a map", name)
			}
			return o, Errorf(p.Pos, "invalid value for property %s: it must be a map", name)
		}
		if p.IsMap {
			m := p.MapValue()
			if name == "compaction" {
				class := m["class"]
				if class == "" {
					return o, Errorf(p.Pos, "missing sub-option 'class' for the compaction option")
				}
				short := strings.TrimPrefix(class, compactionPackage)
				switch {
				case compactionStrategies[short]:
					m["class"] = compactionPackage + short
				case strings.Contains(class, ".") && !strings.HasPrefix(class, "org.apache.cassandra."):
					// A strategy of its own on the node's classpath: kept as written.
				default:
					return o, Errorf(p.Pos, "unknown compaction strategy class %q", class)
				}
			}
			o.Raw[name] = m
			switch name {
			case "compaction":
				o.Compaction = m
			case "compression":
				o.Compression = m
			case "caching":
				o.Caching = m
			}
			continue
		}
		o.Raw[name] = p.Value
		switch name {
		case "default_time_to_live", "gc_grace_seconds":
			n, err := strconv.Atoi(p.Value)
			if p.Lit != TokInt || err != nil {
				return o, Errorf(p.Pos, "invalid integer value %s for %s", p.Value, name)
			}
			if n < 0 {
				return o, Errorf(p.Pos, "%s must be greater than or equal to 0 (got %d)", name, n)
			}
			if name == "default_time_to_live" {
				if n > maxTTL {
					return o, Errorf(p.Pos, "default_time_to_live must be less than or equal to %d (got %d)", maxTTL, n)
				}
				o.DefaultTTL = n
			} else {
				o.GCGraceSeconds = n
			}
		case "comment":
			o.Comment = p.Value
		}
	}
	return o, nil
}

func (s *Schema) alterTable(st *AlterTable) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		if st.IfExists {
			return nil
		}
		return err
	}
	t := ks.Tables[st.Name.Name.Name]
	if t == nil {
		if ks.Views[st.Name.Name.Name] != nil {
			return Errorf(st.Name.Name.Pos, "cannot use ALTER TABLE on materialized view %s: use ALTER MATERIALIZED VIEW", st.Name)
		}
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Name.Pos, "table %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
	}
	views := viewsOf(ks, t.Name)
	switch st.Action {
	case AlterAdd:
		next := t.clone()
		var added []*Column
		for _, c := range st.Add {
			if next.Column(c.Name.Name) != nil {
				if st.IfColumn {
					continue
				}
				return Errorf(c.Name.Pos, "column %s already exists in table %s", c.Name, st.Name)
			}
			if t.Options.CompactStorage {
				return Errorf(c.Name.Pos, "cannot add columns to COMPACT STORAGE table %s", st.Name)
			}
			typ, err := resolveType(ks, c.Type, c.TypePos, inTable)
			if err != nil {
				return err
			}
			if old, ok := t.Dropped[c.Name.Name]; ok && !old.Equal(typ) {
				return Errorf(c.TypePos, "cannot add column %s of type %s: a dropped column of that name had type %s", c.Name, typ, old)
			}
			kind := Regular
			if c.Static {
				kind = Static
			}
			isCounter := typ.Kind == Native && typ.Name == "counter"
			if isCounter != isCounterTable(t) && len(t.ColumnsOf(Regular))+len(t.ColumnsOf(Static)) > 0 {
				if isCounter {
					return Errorf(c.TypePos, "cannot add counter column %s to table %s, which has no counters", c.Name, st.Name)
				}
				return Errorf(c.TypePos, "cannot add non-counter column %s to counter table %s", c.Name, st.Name)
			}
			col := &Column{Name: c.Name.Name, Type: typ, Kind: kind, Position: -1, Pos: c.Name.Pos}
			next.Columns = append(next.Columns, col)
			added = append(added, col)
		}
		if err := checkColumns(next, st.Name); err != nil {
			return err
		}
		*t = *next
		for _, v := range views {
			if !v.IncludeAll {
				continue
			}
			for _, c := range added {
				if c.Kind == Regular {
					v.Table.Columns = append(v.Table.Columns, &Column{Name: c.Name, Type: c.Type, Kind: Regular, Position: -1, Pos: c.Pos})
				}
			}
		}
	case AlterDrop:
		var drop []*Column
		for _, id := range st.Drop {
			c := t.Column(id.Name)
			if c == nil {
				if st.IfColumn {
					continue
				}
				return Errorf(id.Pos, "column %s does not exist in table %s", id, st.Name)
			}
			if c.Kind == PartitionKey || c.Kind == Clustering {
				return Errorf(id.Pos, "cannot drop PRIMARY KEY column %s", id)
			}
			if idx := indexesOn(ks, t.Name, c.Name); len(idx) > 0 {
				return Errorf(id.Pos, "cannot drop column %s: secondary indexes depend on it (%s)", id, strings.Join(idx, ", "))
			}
			if len(views) > 0 {
				return Errorf(id.Pos, "cannot drop column %s of table %s, which has materialized views", id, st.Name)
			}
			drop = append(drop, c)
		}
		for _, c := range drop {
			if t.Dropped == nil {
				t.Dropped = map[string]Type{}
			}
			t.Dropped[c.Name] = c.Type
			t.removeColumn(c)
		}
	case AlterRename:
		next := t.clone()
		for _, r := range st.Renames {
			c := next.Column(r.From.Name)
			if c == nil {
				if st.IfColumn {
					continue
				}
				return Errorf(r.From.Pos, "column %s does not exist in table %s", r.From, st.Name)
			}
			if c.Kind != PartitionKey && c.Kind != Clustering {
				return Errorf(r.From.Pos, "cannot rename non PRIMARY KEY column %s", r.From)
			}
			if next.Column(r.To.Name) != nil {
				return Errorf(r.To.Pos, "cannot rename column %s to %s: table %s already has a column %s", r.From, r.To, st.Name, r.To)
			}
			if idx := indexesOn(ks, t.Name, c.Name); len(idx) > 0 {
				return Errorf(r.From.Pos, "cannot rename column %s: secondary indexes depend on it (%s)", r.From, strings.Join(idx, ", "))
			}
			if len(views) > 0 {
				return Errorf(r.From.Pos, "cannot rename column %s of table %s, which has materialized views", r.From, st.Name)
			}
			c.Name = r.To.Name
		}
		*t = *next
	case AlterWith:
		opts, err := tableOptions(t.Options, st.Properties, false, false)
		if err != nil {
			return err
		}
		next := *t
		next.Options = opts
		if err := checkCounterTTL(&next, st.Properties); err != nil {
			return err
		}
		t.Options = opts
	case AlterType:
		return Errorf(st.Column.Pos, "altering column types is no longer supported")
	case AlterMask:
		if t.Column(st.Column.Name) == nil && !st.IfColumn {
			return Errorf(st.Column.Pos, "column %s does not exist in table %s", st.Column, st.Name)
		}
	case AlterDropCompactStorage:
		if !t.Options.CompactStorage {
			return Errorf(st.Name.Name.Pos, "table %s does not use COMPACT STORAGE", st.Name)
		}
		t.Options.CompactStorage = false
	}
	return nil
}

// clone returns a deep copy of t.
func (t *Table) clone() *Table {
	n := *t
	n.Columns = make([]*Column, len(t.Columns))
	byOld := map[*Column]*Column{}
	for i, c := range t.Columns {
		cc := *c
		n.Columns[i] = &cc
		byOld[c] = &cc
	}
	n.PartitionKey = make([]*Column, len(t.PartitionKey))
	for i, c := range t.PartitionKey {
		n.PartitionKey[i] = byOld[c]
	}
	n.Clustering = make([]*Column, len(t.Clustering))
	for i, c := range t.Clustering {
		n.Clustering[i] = byOld[c]
	}
	n.Options = t.Options.clone()
	if t.Dropped != nil {
		n.Dropped = make(map[string]Type, len(t.Dropped))
		for k, v := range t.Dropped {
			n.Dropped[k] = v
		}
	}
	return &n
}

func (o TableOptions) clone() TableOptions {
	cp := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		n := make(map[string]string, len(m))
		for k, v := range m {
			n[k] = v
		}
		return n
	}
	n := o
	n.Compaction, n.Compression, n.Caching = cp(o.Compaction), cp(o.Compression), cp(o.Caching)
	if o.Raw != nil {
		n.Raw = make(map[string]any, len(o.Raw))
		for k, v := range o.Raw {
			if m, ok := v.(map[string]string); ok {
				v = cp(m)
			}
			n.Raw[k] = v
		}
	}
	return n
}

func (t *Table) removeColumn(c *Column) {
	out := t.Columns[:0]
	for _, x := range t.Columns {
		if x != c {
			out = append(out, x)
		}
	}
	t.Columns = out
}

// viewsOf returns the views of table in ks, sorted by name.
func viewsOf(ks *Keyspace, table string) []*View {
	var out []*View
	for _, v := range ks.Views {
		if v.BaseTable == table {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// indexesOn returns the names of the indexes of table whose target is column.
func indexesOn(ks *Keyspace, table, column string) []string {
	var out []string
	for _, ix := range ks.Indexes {
		if ix.Table == table && indexColumn(ix.Target) == column {
			out = append(out, ix.Name)
		}
	}
	sort.Strings(out)
	return out
}

// indexColumn returns the column of an index target: "v", "values(v)" and "full(v)" are v.
func indexColumn(target string) string {
	if i := strings.IndexByte(target, '('); i >= 0 && strings.HasSuffix(target, ")") {
		target = target[i+1 : len(target)-1]
	}
	if len(target) >= 2 && target[0] == '"' && target[len(target)-1] == '"' {
		return strings.ReplaceAll(target[1:len(target)-1], `""`, `"`)
	}
	return target
}

func (s *Schema) dropTable(st *DropTable) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		if st.IfExists {
			return nil
		}
		return err
	}
	name := st.Name.Name.Name
	if ks.Tables[name] == nil {
		if ks.Views[name] != nil {
			return Errorf(st.Name.Name.Pos, "%s is a materialized view: use DROP MATERIALIZED VIEW", st.Name)
		}
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Name.Pos, "table %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
	}
	if vs := viewsOf(ks, name); len(vs) > 0 {
		names := make([]string, len(vs))
		for i, v := range vs {
			names[i] = v.Name
		}
		return Errorf(st.Name.Name.Pos, "cannot drop table %s: materialized views depend on it (%s)", st.Name, strings.Join(names, ", "))
	}
	for n, ix := range ks.Indexes {
		if ix.Table == name {
			delete(ks.Indexes, n)
		}
	}
	delete(ks.Tables, name)
	return nil
}

// ---- user types ----

func (s *Schema) createType(st *CreateType) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		return err
	}
	name := st.Name.Name
	if ks.Types[name.Name] != nil {
		if st.IfNotExists {
			return nil
		}
		return Errorf(name.Pos, "user type %s.%s already exists", QuoteName(ks.Name), name)
	}
	ut := &UserType{Keyspace: ks.Name, Name: name.Name, Pos: st.Pos}
	for _, f := range st.Fields {
		for _, prev := range ut.Fields {
			if prev.Name == f.Name.Name {
				return Errorf(f.Name.Pos, "duplicate field %s in type %s", f.Name, name)
			}
		}
		if f.Type.Kind == UDT && !f.Type.Frozen && f.Type.Name == name.Name {
			return Errorf(f.TypePos, "a user type cannot contain non-frozen user types: write frozen<%s>", QuoteName(f.Type.Name))
		}
		typ, err := resolveType(ks, f.Type, f.TypePos, inUDT)
		if err != nil {
			return err
		}
		ut.Fields = append(ut.Fields, Field{Name: f.Name.Name, Type: typ})
	}
	ks.Types[name.Name] = ut
	return nil
}

func (s *Schema) alterType(st *AlterUserType) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		if st.IfExists {
			return nil
		}
		return err
	}
	ut := ks.Types[st.Name.Name.Name]
	if ut == nil {
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Name.Pos, "user type %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
	}
	field := func(name string) int {
		for i, f := range ut.Fields {
			if f.Name == name {
				return i
			}
		}
		return -1
	}
	switch st.Action {
	case AlterTypeAdd:
		f := st.Add
		if field(f.Name.Name) >= 0 {
			if st.IfField {
				return nil
			}
			return Errorf(f.Name.Pos, "field %s already exists in type %s", f.Name, st.Name)
		}
		typ, err := resolveType(ks, f.Type, f.TypePos, inUDT)
		if err != nil {
			return err
		}
		if usesType(typ, ks.Name, ut.Name) {
			return Errorf(f.TypePos, "type %s cannot refer to itself", st.Name)
		}
		ut.Fields = append(append([]Field(nil), ut.Fields...), Field{Name: f.Name.Name, Type: typ})
	case AlterTypeRename:
		fields := append([]Field(nil), ut.Fields...)
		for _, r := range st.Renames {
			i := -1
			for j, f := range fields {
				if f.Name == r.From.Name {
					i = j
				}
			}
			if i < 0 {
				if st.IfField {
					continue
				}
				return Errorf(r.From.Pos, "field %s does not exist in type %s", r.From, st.Name)
			}
			for _, f := range fields {
				if f.Name == r.To.Name {
					return Errorf(r.To.Pos, "field %s already exists in type %s", r.To, st.Name)
				}
			}
			fields[i].Name = r.To.Name
		}
		ut.Fields = fields
	case AlterTypeAlter:
		return Errorf(st.Field.Pos, "altering field types is no longer supported")
	}
	return nil
}

func (s *Schema) dropType(st *DropType) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		if st.IfExists {
			return nil
		}
		return err
	}
	name := st.Name.Name.Name
	if ks.Types[name] == nil {
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Name.Pos, "user type %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
	}
	var users []string
	for _, ut := range ks.Types {
		for _, f := range ut.Fields {
			if usesType(f.Type, ks.Name, name) {
				users = append(users, "type "+QuoteName(ut.Name))
				break
			}
		}
	}
	for _, t := range ks.Tables {
		for _, c := range t.Columns {
			if usesType(c.Type, ks.Name, name) {
				users = append(users, "table "+QuoteName(t.Name))
				break
			}
		}
	}
	if len(users) > 0 {
		sort.Strings(users)
		return Errorf(st.Name.Name.Pos, "cannot drop user type %s.%s: it is still used by %s", QuoteName(ks.Name), st.Name.Name, strings.Join(users, ", "))
	}
	delete(ks.Types, name)
	return nil
}

// ---- indexes ----

func (s *Schema) createIndex(st *CreateIndex) error {
	ks, t, err := s.findTable(st.Table)
	if err != nil {
		if ks2, _ := s.keyspaceOf(st.Table); ks2 != nil && ks2.Views[st.Table.Name.Name] != nil {
			return Errorf(st.Table.Name.Pos, "secondary indexes on materialized views are not supported")
		}
		return err
	}
	if len(st.Targets) == 0 {
		return Errorf(st.Table.Name.Pos, "an index needs a column to index")
	}
	if len(st.Targets) > 1 {
		return Errorf(st.Targets[1].Pos, "only CUSTOM indexes support multiple columns")
	}
	target := st.Targets[0]
	c := t.Column(target.Column.Name)
	if c == nil {
		return Errorf(target.Column.Pos, "column %s does not exist in table %s", target.Column, st.Table)
	}
	kind := target.Kind
	switch {
	case kind == "" && c.Type.IsCollection() && !c.Type.Frozen:
		kind = "values"
	case kind == "full" && !(c.Type.IsCollection() && c.Type.Frozen):
		return Errorf(target.Pos, "full() indexes can only be created on frozen collections")
	case (kind == "keys" || kind == "entries") && c.Type.Kind != Map:
		return Errorf(target.Pos, "cannot create an index on the %s of column %s, which is not a map", kind, target.Column)
	case kind == "values" && !c.Type.IsCollection():
		return Errorf(target.Pos, "cannot create an index on the values of column %s, which is not a collection", target.Column)
	}
	if (kind == "" || kind == "values") && c.Type.IsCollection() && c.Type.Frozen {
		return Errorf(target.Pos, "cannot create a values() index on frozen column %s: index it whole with full(%s)", target.Column, target.Column)
	}
	if c.Kind == PartitionKey && len(t.PartitionKey) == 1 {
		return Errorf(target.Column.Pos, "cannot create a secondary index on the only partition key column %s", target.Column)
	}
	if st.Custom && st.Using == "" {
		return Errorf(st.Table.Name.Pos, "a CUSTOM index needs USING 'class'")
	}
	targetText := QuoteName(c.Name)
	if kind != "" {
		targetText = kind + "(" + targetText + ")"
	}
	ix := &Index{Keyspace: ks.Name, Table: t.Name, Target: targetText, Options: map[string]string{}, Pos: st.Pos}
	if st.Using != "" {
		ix.Custom = true
		ix.Class = st.Using
		if isSAIClass(st.Using) {
			ix.Class = "sai"
		}
	}
	for _, p := range st.Properties {
		if p.Name.Name != "options" || !p.IsMap {
			return Errorf(p.Name.Pos, "unknown index property %s: indexes take WITH OPTIONS = {...}", p.Name)
		}
		if !ix.Custom {
			return Errorf(p.Name.Pos, "only CUSTOM indexes (USING 'class') take options")
		}
		for _, e := range p.Map {
			ix.Options[e.Key] = e.Value
		}
	}
	for _, other := range ks.Indexes {
		if other.Table == ix.Table && other.Target == ix.Target && other.Class == ix.Class && other.Custom == ix.Custom {
			if st.IfNotExists {
				return nil
			}
			return Errorf(st.Pos, "index on %s of table %s duplicates existing index %s", ix.Target, st.Table, other.Name)
		}
	}
	if st.Name.IsZero() {
		// Cassandra names it table_column_idx, then table_column_idx_1, _2, ... when taken.
		base := t.Name + "_" + nonWord(c.Name) + "_idx"
		ix.Name = base
		for i := 1; ks.Indexes[ix.Name] != nil; i++ {
			ix.Name = base + "_" + strconv.Itoa(i)
		}
	} else {
		ix.Name = st.Name.Name
		if ks.Indexes[ix.Name] != nil {
			if st.IfNotExists {
				return nil
			}
			return Errorf(st.Name.Pos, "index %s already exists in keyspace %s", st.Name, QuoteName(ks.Name))
		}
	}
	ks.Indexes[ix.Name] = ix
	return nil
}

// nonWord replaces the characters Cassandra strips from derived index names.
func nonWord(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isIdentByte(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isSAIClass(class string) bool {
	c := strings.ToLower(class)
	return c == "sai" || c == "storageattachedindex" || c == "org.apache.cassandra.index.sai.storageattachedindex"
}

// ---- materialized views ----

func (s *Schema) createView(st *CreateView) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		return err
	}
	if !st.Base.Keyspace.IsZero() && st.Base.Keyspace.Name != ks.Name {
		return Errorf(st.Base.Pos(), "a materialized view must be in the keyspace of its base table")
	}
	name := st.Name.Name
	if !validName(name.Name) {
		return Errorf(name.Pos, "invalid view name %s: use letters, digits and underscores only", name)
	}
	if ks.Tables[name.Name] != nil || ks.Views[name.Name] != nil {
		if st.IfNotExists {
			return nil
		}
		return Errorf(name.Pos, "table %s.%s already exists", QuoteName(ks.Name), name)
	}
	base := ks.Tables[st.Base.Name.Name]
	if base == nil {
		if ks.Views[st.Base.Name.Name] != nil {
			return Errorf(st.Base.Name.Pos, "materialized views cannot be created on other materialized views")
		}
		return Errorf(st.Base.Name.Pos, "table %s.%s does not exist", QuoteName(ks.Name), st.Base.Name)
	}
	if isCounterTable(base) {
		return Errorf(st.Base.Name.Pos, "materialized views are not supported on counter tables")
	}
	// The selected columns.
	var selected []*Column
	if st.Star {
		for _, c := range base.Columns {
			if c.Kind == Static {
				return Errorf(st.Pos, "cannot include static column %s in materialized view %s", QuoteName(c.Name), name)
			}
			selected = append(selected, c)
		}
	} else {
		for _, sel := range st.Selectors {
			if !sel.Alias.IsZero() {
				return Errorf(sel.Alias.Pos, "cannot use aliases when defining a materialized view")
			}
			if sel.Kind != SelColumn {
				return Errorf(sel.Pos, "a materialized view can only select columns")
			}
			c := base.Column(sel.Column.Name)
			if c == nil {
				return Errorf(sel.Column.Pos, "column %s does not exist in table %s", sel.Column, st.Base)
			}
			if c.Kind == Static {
				return Errorf(sel.Column.Pos, "cannot include static column %s in materialized view %s", sel.Column, name)
			}
			selected = append(selected, c)
		}
	}
	isSelected := func(n string) bool {
		for _, c := range selected {
			if c.Name == n {
				return true
			}
		}
		return false
	}
	notNull := map[string]bool{}
	for _, r := range st.Where {
		if r.Op == OpIsNotNull && r.Kind == RelColumn {
			notNull[r.Column().Name] = true
		}
	}
	v := &Table{Keyspace: ks.Name, Name: name.Name, Pos: st.Pos, Options: TableOptions{GCGraceSeconds: DefaultGCGraceSeconds}}
	inKey := map[string]bool{}
	nonKey := 0
	var missingNotNull []string
	addKey := func(ids []Ident, kind ColumnKind) error {
		for i, id := range ids {
			bc := base.Column(id.Name)
			if bc == nil || (!st.Star && !isSelected(id.Name) && bc.Kind != PartitionKey && bc.Kind != Clustering) {
				return Errorf(id.Pos, "unknown column %s in the PRIMARY KEY of materialized view %s", id, name)
			}
			if inKey[id.Name] {
				return Errorf(id.Pos, "duplicate column %s in the PRIMARY KEY of materialized view %s", id, name)
			}
			inKey[id.Name] = true
			if bc.Kind != PartitionKey && bc.Kind != Clustering {
				nonKey++
				if nonKey > 1 {
					return Errorf(id.Pos, "a materialized view's PRIMARY KEY can hold at most one column that is not in the base table's PRIMARY KEY")
				}
			}
			if bc.Type.MultiCell() {
				return Errorf(id.Pos, "non-frozen column %s cannot be in a materialized view's PRIMARY KEY", id)
			}
			if !notNull[id.Name] {
				missingNotNull = append(missingNotNull, QuoteName(id.Name))
			}
			c := &Column{Name: bc.Name, Type: bc.Type, Kind: kind, Position: i, Pos: id.Pos}
			if kind == Clustering && bc.Kind == Clustering {
				c.Order = bc.Order // a view keeps the base table's order unless told otherwise
			}
			v.Columns = append(v.Columns, c)
			if kind == PartitionKey {
				v.PartitionKey = append(v.PartitionKey, c)
			} else {
				v.Clustering = append(v.Clustering, c)
			}
		}
		return nil
	}
	if err := addKey(st.PartitionKey, PartitionKey); err != nil {
		return err
	}
	if err := addKey(st.Clustering, Clustering); err != nil {
		return err
	}
	var missing []string
	for _, c := range append(append([]*Column(nil), base.PartitionKey...), base.Clustering...) {
		if !inKey[c.Name] {
			missing = append(missing, QuoteName(c.Name))
		}
	}
	if len(missing) > 0 {
		return Errorf(st.KeyPos, "materialized view %s must have every PRIMARY KEY column of table %s in its PRIMARY KEY: missing %s", name, st.Base, strings.Join(missing, ", "))
	}
	if len(missingNotNull) > 0 {
		return Errorf(st.KeyPos, "PRIMARY KEY columns %s must be restricted with IS NOT NULL", strings.Join(missingNotNull, ", "))
	}
	for _, c := range selected {
		if !inKey[c.Name] {
			v.Columns = append(v.Columns, &Column{Name: c.Name, Type: c.Type, Kind: Regular, Position: -1, Pos: c.Pos})
		}
	}
	if err := clusteringOrder(v, st.ClusteringOrder, st.Name, true); err != nil {
		return err
	}
	opts, err := tableOptions(v.Options, st.Properties, true, false)
	if err != nil {
		return err
	}
	v.Options = opts
	where := make([]string, len(st.Where))
	for i, r := range st.Where {
		where[i] = r.Text
	}
	ks.Views[name.Name] = &View{
		Keyspace: ks.Name, Name: name.Name, BaseTable: base.Name, Table: v, Pos: st.Pos,
		IncludeAll: st.Star, Where: strings.Join(where, " AND "),
	}
	return nil
}

// ---- cloning ----

// Clone returns a deep copy of the schema.
func (s *Schema) Clone() *Schema {
	n := &Schema{Keyspaces: make(map[string]*Keyspace, len(s.Keyspaces)), Current: s.Current}
	for name, ks := range s.Keyspaces {
		k := *ks
		k.Replication = make(map[string]string, len(ks.Replication))
		for a, b := range ks.Replication {
			k.Replication[a] = b
		}
		k.Tables = make(map[string]*Table, len(ks.Tables))
		for a, t := range ks.Tables {
			k.Tables[a] = t.clone()
		}
		k.Types = make(map[string]*UserType, len(ks.Types))
		for a, ut := range ks.Types {
			u := *ut
			u.Fields = append([]Field(nil), ut.Fields...)
			k.Types[a] = &u
		}
		k.Indexes = make(map[string]*Index, len(ks.Indexes))
		for a, ix := range ks.Indexes {
			i := *ix
			i.Options = make(map[string]string, len(ix.Options))
			for x, y := range ix.Options {
				i.Options[x] = y
			}
			k.Indexes[a] = &i
		}
		k.Views = make(map[string]*View, len(ks.Views))
		for a, v := range ks.Views {
			vv := *v
			if v.Table != nil {
				vv.Table = v.Table.clone()
			}
			k.Views[a] = &vv
		}
		k.Functions = make(map[string]Pos, len(ks.Functions))
		for a, p := range ks.Functions {
			k.Functions[a] = p
		}
		k.Aggregates = make(map[string]Pos, len(ks.Aggregates))
		for a, p := range ks.Aggregates {
			k.Aggregates[a] = p
		}
		n.Keyspaces[name] = &k
	}
	return n
}
