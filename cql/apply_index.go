package cql

import (
	"strconv"
	"strings"
)

func (s *Schema) createIndex(st *CreateIndex) error {
	ks, t, err := s.findTable(st.Table)
	if err != nil {
		if ks2, _ := s.keyspaceOf(st.Table); ks2 != nil && ks2.Views[st.Table.Name.Name] != nil {
			return Errorf(st.Table.Name.Pos, "secondary indexes on materialized views are not supported")
		}
		return err
	}
	if isCounterTable(t) {
		// The node refuses this before it looks at the target (even an index on a key
		// column): "Secondary indexes on counter tables aren't supported", SAI included.
		return Errorf(st.Table.Name.Pos, "secondary indexes on counter tables aren't supported (table %s has counter columns)", st.Table)
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
	if st.Using != "" && !isSAIClass(st.Using) && !strings.Contains(st.Using, ".") {
		// A name without a package is one of the node's own short names, and 5.0 has only
		// SAI's: any other is no class it can load.
		return Errorf(st.Pos, "Unable to find custom indexer class '%s'", st.Using)
	}
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

func (s *Schema) createView(st *CreateView) error {
	ks, base, err := s.viewBase(st)
	if ks == nil {
		return err // an error, or IF NOT EXISTS on an existing name
	}
	name := st.Name.Name
	selected, err := viewSelection(st, base)
	if err != nil {
		return err
	}
	v := &Table{Keyspace: ks.Name, Name: name.Name, Pos: st.Pos, Options: TableOptions{GCGraceSeconds: DefaultGCGraceSeconds}}
	key := &viewKey{st: st, base: base, v: v, selected: selected, notNull: map[string]bool{}, inKey: map[string]bool{}}
	for _, r := range st.Where {
		if r.Kind != RelColumn {
			continue
		}
		// Any restriction keeps a key column from being null (region = 'eu' as well as
		// IS NOT NULL); a column outside the base table's key takes IS NOT NULL only.
		key.notNull[r.Column().Name] = true
		if bc := base.Column(r.Column().Name); r.Op != OpIsNotNull && bc != nil && !isKey(bc) {
			return Errorf(r.Pos, "Non-primary key columns can only be restricted with 'IS NOT NULL'")
		}
	}
	if err := key.add(st.PartitionKey, PartitionKey); err != nil {
		return err
	}
	if err := key.add(st.Clustering, Clustering); err != nil {
		return err
	}
	if err := key.complete(); err != nil {
		return err
	}
	for _, c := range selected {
		if !key.inKey[c.Name] {
			v.Columns = append(v.Columns, &Column{Name: c.Name, Type: c.Type, Kind: Regular, Position: -1, Pos: c.Pos})
		}
	}
	if err := clusteringOrder(v, st.ClusteringOrder, st.Name, true); err != nil {
		return err
	}
	if err := checkViewOptions(st.Properties); err != nil {
		return err
	}
	opts, err := tableOptions(v.Options, st.Properties, true, false, s.Release)
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

// viewBase finds the keyspace and base table of a new view and checks its name. A nil
// keyspace with a nil error means the view exists and IF NOT EXISTS was given.
func (s *Schema) viewBase(st *CreateView) (*Keyspace, *Table, error) {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		return nil, nil, err
	}
	if !st.Base.Keyspace.IsZero() && st.Base.Keyspace.Name != ks.Name {
		return nil, nil, Errorf(st.Base.Pos(), "a materialized view must be in the keyspace of its base table")
	}
	name := st.Name.Name
	if !validName(name.Name) {
		return nil, nil, Errorf(name.Pos, "invalid view name %s: use letters, digits and underscores only", name)
	}
	if ks.Tables[name.Name] != nil || ks.Views[name.Name] != nil {
		if st.IfNotExists {
			return nil, nil, nil
		}
		return nil, nil, Errorf(name.Pos, "table %s.%s already exists", QuoteName(ks.Name), name)
	}
	base := ks.Tables[st.Base.Name.Name]
	if base == nil {
		if ks.Views[st.Base.Name.Name] != nil {
			return nil, nil, Errorf(st.Base.Name.Pos, "materialized views cannot be created on other materialized views")
		}
		return nil, nil, Errorf(st.Base.Name.Pos, "table %s.%s does not exist", QuoteName(ks.Name), st.Base.Name)
	}
	if isCounterTable(base) {
		return nil, nil, Errorf(st.Base.Name.Pos, "materialized views are not supported on counter tables")
	}
	return ks, base, nil
}

// viewSelection is the base table's columns a view selects: plain columns, no statics.
func viewSelection(st *CreateView, base *Table) ([]*Column, error) {
	name := st.Name.Name
	var selected []*Column
	if st.Star {
		for _, c := range base.Columns {
			if c.Kind == Static {
				return nil, Errorf(st.Pos, "cannot include static column %s in materialized view %s", QuoteName(c.Name), name)
			}
			selected = append(selected, c)
		}
		return selected, nil
	}
	for _, sel := range st.Selectors {
		if !sel.Alias.IsZero() {
			return nil, Errorf(sel.Alias.Pos, "cannot use aliases when defining a materialized view")
		}
		if sel.Kind != SelColumn {
			return nil, Errorf(sel.Pos, "a materialized view can only select columns")
		}
		c := base.Column(sel.Column.Name)
		if c == nil {
			return nil, Errorf(sel.Column.Pos, "column %s does not exist in table %s", sel.Column, st.Base)
		}
		if c.Kind == Static {
			return nil, Errorf(sel.Column.Pos, "cannot include static column %s in materialized view %s", sel.Column, name)
		}
		selected = append(selected, c)
	}
	return selected, nil
}

// viewKey builds a view's primary key from its statement, checking each column as 5.0 does.
type viewKey struct {
	st             *CreateView
	base, v        *Table
	selected       []*Column
	notNull        map[string]bool // columns the WHERE clause restricts with IS NOT NULL
	inKey          map[string]bool
	nonKey         int // key columns that are not in the base table's key
	missingNotNull []string
}

func (k *viewKey) isSelected(n string) bool {
	for _, c := range k.selected {
		if c.Name == n {
			return true
		}
	}
	return false
}

// add adds ids to the view's key as kind columns.
func (k *viewKey) add(ids []Ident, kind ColumnKind) error {
	name, v := k.st.Name.Name, k.v
	for i, id := range ids {
		bc := k.base.Column(id.Name)
		if bc == nil || (!k.st.Star && !k.isSelected(id.Name) && bc.Kind != PartitionKey && bc.Kind != Clustering) {
			return Errorf(id.Pos, "unknown column %s in the PRIMARY KEY of materialized view %s", id, name)
		}
		if k.inKey[id.Name] {
			return Errorf(id.Pos, "duplicate column %s in the PRIMARY KEY of materialized view %s", id, name)
		}
		k.inKey[id.Name] = true
		if bc.Kind != PartitionKey && bc.Kind != Clustering {
			k.nonKey++
			if k.nonKey > 1 {
				return Errorf(id.Pos, "a materialized view's PRIMARY KEY can hold at most one column that is not in the base table's PRIMARY KEY")
			}
		}
		if bc.Type.MultiCell() {
			return Errorf(id.Pos, "non-frozen column %s cannot be in a materialized view's PRIMARY KEY", id)
		}
		if !k.notNull[id.Name] {
			k.missingNotNull = append(k.missingNotNull, QuoteName(id.Name))
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

// complete checks the key holds every key column of the base table, each restricted with
// IS NOT NULL.
func (k *viewKey) complete() error {
	var missing []string
	for _, c := range append(append([]*Column(nil), k.base.PartitionKey...), k.base.Clustering...) {
		if !k.inKey[c.Name] {
			missing = append(missing, QuoteName(c.Name))
		}
	}
	if len(missing) > 0 {
		return Errorf(k.st.KeyPos, "materialized view %s must have every PRIMARY KEY column of table %s in its PRIMARY KEY: missing %s", k.st.Name.Name, k.st.Base, strings.Join(missing, ", "))
	}
	if len(k.missingNotNull) > 0 {
		return Errorf(k.st.KeyPos, "PRIMARY KEY columns %s must be restricted with IS NOT NULL", strings.Join(k.missingNotNull, ", "))
	}
	return nil
}
