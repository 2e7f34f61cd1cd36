package cql

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql/options"
)

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
	opts, err := tableOptions(TableOptions{GCGraceSeconds: DefaultGCGraceSeconds}, st.Properties, true, st.CompactStorage, s.Release)
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

// tableOptions applies WITH options over base and returns the result, after checking them
// as 5.0 does (package options), so a statement the node would refuse changes nothing.
func tableOptions(base TableOptions, props []*Property, create, compact bool, rel options.Release) (TableOptions, error) {
	o := base
	o.Raw = make(map[string]any, len(base.Raw)+len(props))
	for k, v := range base.Raw {
		o.Raw[k] = v
	}
	o.CompactStorage = base.CompactStorage || compact
	if err := options.CheckTableOn(optionsOf(props), create, rel); err != nil {
		return o, optionError(props, err)
	}
	for _, p := range props {
		name := p.Name.Name
		if p.IsMap {
			m := p.MapValue()
			o.Raw[name] = m
			switch name {
			case "compaction":
				m["class"] = options.CompactionClass(m["class"])
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
		case "default_time_to_live":
			n, _ := strconv.Atoi(p.Value)
			o.DefaultTTL = n
		case "gc_grace_seconds":
			n, _ := strconv.Atoi(p.Value)
			o.GCGraceSeconds = n
		case "comment":
			o.Comment = p.Value
		}
	}
	return o, nil
}

// optionsOf is the WITH options as package options checks them.
func optionsOf(props []*Property) []options.Option {
	out := make([]options.Option, len(props))
	for i, p := range props {
		o := options.Option{Name: p.Name.Name, Value: p.Value, IsMap: p.IsMap}
		for _, e := range p.Map {
			o.Map = append(o.Map, options.Entry{Key: e.Key, Value: e.Value})
		}
		out[i] = o
	}
	return out
}

// optionError is an option refusal at the file:line:col of the part it names: the option's
// name, its value, or a sub-option's key or value (the map when the sub-option is absent).
func optionError(props []*Property, err *options.Error) *Error {
	p := props[err.Option]
	pos := p.Pos
	switch err.Part {
	case options.Name:
		pos = p.Name.Pos
	case options.Key:
		for _, e := range p.Map {
			if e.Key == err.Key {
				if e.KeyPos.IsValid() {
					pos = e.KeyPos
				}
				break
			}
		}
	case options.EntryValue:
		var last *MapEntry
		for i := range p.Map {
			if p.Map[i].Key == err.Key {
				last = &p.Map[i]
			}
		}
		if last != nil && last.ValuePos.IsValid() {
			pos = last.ValuePos
		}
	}
	return Errorf(pos, "%s", err.Msg)
}

// checkViewOptions refuses what a materialized view may not set (options.CheckView).
func checkViewOptions(props []*Property) error {
	if err := options.CheckView(optionsOf(props)); err != nil {
		return optionError(props, err)
	}
	return nil
}

func (s *Schema) alterTable(st *AlterTable) error {
	ks, err := s.keyspaceIfExists(st.Name, st.IfExists)
	if ks == nil {
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
	switch st.Action {
	case AlterAdd:
		return addColumns(ks, t, st)
	case AlterDrop:
		return dropColumns(ks, t, st)
	case AlterRename:
		return renameColumns(ks, t, st)
	case AlterWith:
		opts, err := tableOptions(t.Options, st.Properties, false, false, s.Release)
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

// addColumns is ALTER TABLE ADD: each new column checked against the table (and a dropped
// column of the same name), then added to the table and to its SELECT * views.
func addColumns(ks *Keyspace, t *Table, st *AlterTable) error {
	next := t.clone()
	var added []*Column
	for _, c := range st.Add {
		if next.Column(c.Name.Name) != nil {
			if st.IfColumn {
				continue
			}
			return Errorf(c.Name.Pos, "column %s already exists in table %s", c.Name, st.Name)
		}
		col, err := newColumn(ks, t, st, c)
		if err != nil {
			return err
		}
		next.Columns = append(next.Columns, col)
		added = append(added, col)
	}
	if err := checkColumns(next, st.Name); err != nil {
		return err
	}
	*t = *next
	for _, v := range viewsOf(ks, t.Name) {
		if !v.IncludeAll {
			continue
		}
		for _, c := range added {
			if c.Kind == Regular {
				v.Table.Columns = append(v.Table.Columns, &Column{Name: c.Name, Type: c.Type, Kind: Regular, Position: -1, Pos: c.Pos})
			}
		}
	}
	return nil
}

// newColumn is the column ALTER TABLE ADD declares, or why t cannot take it.
func newColumn(ks *Keyspace, t *Table, st *AlterTable, c *ColumnDef) (*Column, error) {
	if t.Options.CompactStorage {
		return nil, Errorf(c.Name.Pos, "cannot add columns to COMPACT STORAGE table %s", st.Name)
	}
	typ, err := resolveType(ks, c.Type, c.TypePos, inTable)
	if err != nil {
		return nil, err
	}
	if old, ok := t.Dropped[c.Name.Name]; ok && !old.Equal(typ) {
		return nil, Errorf(c.TypePos, "cannot add column %s of type %s: a dropped column of that name had type %s", c.Name, typ, old)
	}
	kind := Regular
	if c.Static {
		kind = Static
	}
	isCounter := typ.Kind == Native && typ.Name == "counter"
	if isCounter != isCounterTable(t) && len(t.ColumnsOf(Regular))+len(t.ColumnsOf(Static)) > 0 {
		if isCounter {
			return nil, Errorf(c.TypePos, "cannot add counter column %s to table %s, which has no counters", c.Name, st.Name)
		}
		return nil, Errorf(c.TypePos, "cannot add non-counter column %s to counter table %s", c.Name, st.Name)
	}
	return &Column{Name: c.Name.Name, Type: typ, Kind: kind, Position: -1, Pos: c.Name.Pos}, nil
}

// dropColumns is ALTER TABLE DROP: only regular and static columns no index or view
// depends on; the table remembers each dropped column's type.
func dropColumns(ks *Keyspace, t *Table, st *AlterTable) error {
	views := viewsOf(ks, t.Name)
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
	return nil
}

// renameColumns is ALTER TABLE RENAME: only primary key columns no index or view depends on.
func renameColumns(ks *Keyspace, t *Table, st *AlterTable) error {
	views := viewsOf(ks, t.Name)
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
	ks, err := s.keyspaceIfExists(st.Name, st.IfExists)
	if ks == nil {
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
