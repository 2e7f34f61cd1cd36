package design

import (
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/keylayout"
)

// Derive says how a column of a query table is written from an entity row, in cql/derive's
// expressions: created_at, month(created_at), shard(post_id, 8), each(hashtags).
type Derive struct {
	Column string
	Expr   string
}

// shape is the key of a query table before its bucket and shards are chosen: what every
// access pattern it serves asks of it, laid out by keylayout.
type shape struct {
	entity *cql.Table
	layout *keylayout.Layout
	pk     []*cql.Column // equality columns, then the element column (then a bucket moved)
	ck     []*cql.Column // IN, range and ORDER BY columns, then the entity's own key columns
	elem   *elemKey
	// timeCol is the entity column a time bucket is cut from; nil when it has none.
	timeCol *cql.Column
	// identity is the entity column a write shard hashes: one that differs from row to row.
	identity *cql.Column
}

// shapeOf lays out the key that serves one access pattern from one partition. sized says
// the volumes choose the bucket: no bucket the entity has is moved into the partition key.
func shapeOf(a *access, sized bool) (*shape, error) {
	t := a.entity
	p := keylayout.Pattern{Source: t, Want: a.want, Star: a.star, Sized: sized}
	for _, r := range a.eq {
		p.Eq = append(p.Eq, r.Column().Name)
	}
	if e := a.elem; e != nil {
		p.Contains = &keylayout.Contains{Column: e.collection.Name, Keys: e.keys}
	}
	for _, r := range a.ins {
		p.In = append(p.In, r.Column().Name)
	}
	if len(a.rng) > 0 {
		p.Range = a.rng[0].Column().Name
	}
	for _, o := range a.order {
		p.Order = append(p.Order, keylayout.Order{Column: o.Column.Name, Desc: o.Desc})
	}
	l, err := keylayout.Of(p)
	if err != nil {
		return nil, cql.Errorf(a.q.Stmt.Pos, "query %s: %v", a.q.Name, err)
	}
	sh := &shape{entity: t, layout: l, pk: l.PartitionKey, ck: l.Clustering, elem: a.elem}
	if e := a.elem; e != nil {
		e.name = l.Element.Name
	}
	sh.timeCol = timeColumn(a)
	if len(t.PartitionKey) > 0 {
		sh.identity = t.PartitionKey[len(t.PartitionKey)-1]
		for _, c := range t.Clustering {
			sh.identity = c // the most specific key column differs most from row to row
		}
	}
	return sh, nil
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

// bucketColumn is keylayout's column for a bucket of width cut from entity t.
func bucketColumn(width string, t *cql.Table) (name, fn string, typ cql.Type) {
	return keylayout.BucketColumn(width, t)
}

// build makes the table of a shape with a bucket (width "" for none) and shards (≤ 1 for
// none), holding the columns want names (all the entity's when star); ttl > 0 sets its
// default TTL (else it keeps the entity's).
func (sh *shape) build(name string, width string, shards int, want map[string]bool, star bool, ttl int) (*cql.Table, []Derive) {
	t := sh.entity
	var derive []Derive
	for _, c := range sh.pk {
		expr := c.Name
		if sh.elem != nil && c.Name == sh.elem.name {
			expr = "each(" + sh.elem.collection.Name + ")"
		}
		derive = append(derive, Derive{c.Name, expr})
	}
	var extra []*cql.Column
	if width != "" && sh.timeCol != nil {
		bn, fn, typ := bucketColumn(width, t)
		extra = append(extra, &cql.Column{Name: bn, Type: typ})
		derive = append(derive, Derive{bn, fn + "(" + sh.timeCol.Name + ")"})
	}
	if shards > 1 && sh.identity != nil {
		sn := keylayout.ShardColumn(t)
		extra = append(extra, &cql.Column{Name: sn, Type: cql.Type{Kind: cql.Native, Name: "int"}})
		derive = append(derive, Derive{sn, "shard(" + sh.identity.Name + ", " + strconv.Itoa(shards) + ")"})
	}
	l := *sh.layout
	l.PartitionKey, l.Clustering = sh.pk, sh.ck
	nt := l.Table(name, want, star, extra...)
	for _, c := range nt.Columns[len(sh.pk)+len(extra):] {
		derive = append(derive, Derive{c.Name, c.Name})
	}
	if ttl > 0 {
		nt.Options.DefaultTTL = ttl
	}
	return nt, derive
}
