package design

import (
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Derive says how a column of a query table is written from an entity row, in cql/derive's
// expressions: created_at, month(created_at), shard(post_id, 8), each(hashtags).
type Derive struct {
	Column string
	Expr   string
}

// shape is the key of a query table before its bucket and shards are chosen: what every
// access pattern it serves asks of it.
type shape struct {
	entity *cql.Table
	pk     []*cql.Column // equality columns, then the element column
	ck     []*cql.Column // IN, range and ORDER BY columns, then the entity's own key columns
	elem   *elemKey
	// timeCol is the entity column a time bucket is cut from; nil when it has none.
	timeCol *cql.Column
	// identity is the entity column a write shard hashes: one that differs from row to row.
	identity *cql.Column
}

// shapeOf lays out the key that serves one access pattern from one partition.
func shapeOf(a *access) *shape {
	t := a.entity
	sh := &shape{entity: t, elem: a.elem}
	used := map[string]bool{}
	add := func(list *[]*cql.Column, c *cql.Column, order cql.Order) {
		if used[c.Name] {
			return
		}
		used[c.Name] = true
		*list = append(*list, &cql.Column{Name: c.Name, Type: keyType(c.Type), Order: order, Position: -1})
	}
	for _, r := range a.eq {
		add(&sh.pk, t.Column(r.Column().Name), cql.Asc)
	}
	if e := a.elem; e != nil {
		name := e.name
		for t.Column(name) != nil && name != e.collection.Name {
			name += "_value"
		}
		e.name = name
		used[name] = true
		sh.pk = append(sh.pk, &cql.Column{Name: name, Type: keyType(e.typ), Position: -1})
	}
	orderOf := func(name string, def cql.Order) cql.Order {
		for _, o := range a.order {
			if o.Column.Name == name {
				if o.Desc {
					return cql.Desc
				}
				return cql.Asc
			}
		}
		return def
	}
	own := func(c *cql.Column) cql.Order {
		if c.Kind == cql.Clustering {
			return c.Order
		}
		return cql.Asc
	}
	for _, r := range a.ins {
		c := t.Column(r.Column().Name)
		add(&sh.ck, c, own(c))
	}
	if len(a.rng) > 0 {
		c := t.Column(a.rng[0].Column().Name)
		add(&sh.ck, c, orderOf(c.Name, own(c)))
	}
	for _, o := range a.order {
		c := t.Column(o.Column.Name)
		add(&sh.ck, c, orderOf(c.Name, cql.Asc))
	}
	// The entity's own key makes the rows of one partition unique: one per entity row.
	for _, c := range append(append([]*cql.Column{}, t.PartitionKey...), t.Clustering...) {
		add(&sh.ck, c, own(c))
	}
	sh.timeCol = timeColumn(a)
	if len(t.PartitionKey) > 0 {
		sh.identity = t.PartitionKey[len(t.PartitionKey)-1]
		for _, c := range t.Clustering {
			sh.identity = c // the most specific key column differs most from row to row
		}
	}
	return sh
}

// keyType is a column's type as a key column: a collection or UDT is frozen there.
func keyType(t cql.Type) cql.Type {
	if t.Kind != cql.Native && !t.Frozen {
		t.Frozen = true
	}
	return t
}

// signature identifies tables that serve their patterns with the same key, so they merge.
// The clustering order is not part of it: Cassandra reads a partition in its clustering
// order or exactly reversed, so one table serves ORDER BY x DESC and ORDER BY x ASC.
func (sh *shape) signature() string {
	var b strings.Builder
	b.WriteString(sh.entity.QualifiedName() + "|")
	for _, c := range sh.pk {
		b.WriteString(c.Name + ",")
	}
	b.WriteString("|")
	for _, c := range sh.ck {
		b.WriteString(c.Name + ",")
	}
	return b.String()
}

// isTime reports whether a column holds an instant a bucket can be cut from.
func isTime(c *cql.Column) bool {
	return c != nil && c.Type.Kind == cql.Native && (c.Type.Name == "timestamp" || c.Type.Name == "timeuuid" || c.Type.Name == "date")
}

// timeColumn picks the entity column a time bucket is cut from: the column the query
// slices or orders by, when it is a time; else the entity's first time in its key, else
// its first time column. A query that slices or orders by another column (the top scores
// of a game) gets none: a time bucket would answer it bucket by bucket, the top of the
// newest day rather than of the game, while write shards merged in order keep its meaning.
func timeColumn(a *access) *cql.Column {
	t := a.entity
	if len(a.rng) > 0 {
		c := t.Column(a.rng[0].Column().Name)
		if !isTime(c) {
			return nil
		}
		return c
	}
	if len(a.order) > 0 {
		c := t.Column(a.order[0].Column.Name)
		if !isTime(c) {
			return nil
		}
		return c
	}
	for _, c := range append(append([]*cql.Column{}, t.PartitionKey...), t.Clustering...) {
		if isTime(c) {
			return c
		}
	}
	for _, c := range t.Columns {
		if isTime(c) {
			return c
		}
	}
	return nil
}

// bucketColumn is the partition key column of a bucket width, and the derive function that
// fills it: a day is a date, the other widths the bucket package's label as text.
func bucketColumn(width string, t *cql.Table) (name, fn string, typ cql.Type) {
	switch width {
	case "year":
		name, fn = "year", "year"
	case "month":
		name, fn = "month", "month"
	case "iso-week":
		name, fn = "week", "week"
	case "day":
		name, fn = "day", "day"
	default:
		name, fn = "hour", "hour"
	}
	typ = cql.Type{Kind: cql.Native, Name: "text"}
	if width == "day" {
		typ.Name = "date"
	}
	for t.Column(name) != nil {
		name += "_bucket"
	}
	return name, fn, typ
}

// build makes the table of a shape with a bucket (width "" for none) and shards (≤ 1 for
// none), holding the columns want names (all the entity's when star).
func (sh *shape) build(name string, width string, shards int, want map[string]bool, star bool, ttl int) (*cql.Table, []Derive) {
	t := sh.entity
	nt := &cql.Table{Keyspace: t.Keyspace, Name: name}
	var derive []Derive
	var pk, ck []*cql.Column
	for _, c := range sh.pk {
		nc := *c
		pk = append(pk, &nc)
		expr := c.Name
		if sh.elem != nil && c.Name == sh.elem.name {
			expr = "each(" + sh.elem.collection.Name + ")"
		}
		derive = append(derive, Derive{c.Name, expr})
	}
	if width != "" && sh.timeCol != nil {
		bn, fn, typ := bucketColumn(width, t)
		pk = append(pk, &cql.Column{Name: bn, Type: typ, Position: -1})
		derive = append(derive, Derive{bn, fn + "(" + sh.timeCol.Name + ")"})
	}
	if shards > 1 && sh.identity != nil {
		sn := "shard"
		for t.Column(sn) != nil {
			sn += "_bucket"
		}
		pk = append(pk, &cql.Column{Name: sn, Type: cql.Type{Kind: cql.Native, Name: "int"}, Position: -1})
		derive = append(derive, Derive{sn, "shard(" + sh.identity.Name + ", " + strconv.Itoa(shards) + ")"})
	}
	for _, c := range sh.ck {
		nc := *c
		ck = append(ck, &nc)
		derive = append(derive, Derive{c.Name, c.Name})
	}
	for i, c := range pk {
		c.Kind, c.Position = cql.PartitionKey, i
	}
	for i, c := range ck {
		c.Kind, c.Position = cql.Clustering, i
	}
	nt.PartitionKey, nt.Clustering = pk, ck
	nt.Columns = append(append([]*cql.Column{}, pk...), ck...)
	for _, c := range t.Columns {
		if nt.Column(c.Name) != nil || !(star || want[c.Name]) {
			continue
		}
		typ := c.Type
		if typ.IsCollection() && !typ.Frozen {
			// The write plan writes the collection whole with each row: frozen, it is one
			// cell; non-frozen, every write would first delete the old elements with a
			// collection tombstone.
			typ = keyType(typ)
		}
		nt.Columns = append(nt.Columns, &cql.Column{Name: c.Name, Type: typ, Kind: cql.Regular, Position: -1})
		derive = append(derive, Derive{c.Name, c.Name})
	}
	nt.Options.DefaultTTL = ttl
	return nt, derive
}
