// Package keylayout lays out the key of the table that serves one access pattern from one
// partition: the columns a query knows by equality (and the element of the collection it
// searches with CONTAINS) as the partition key; its IN, range and ORDER BY columns, then
// the source table's own key columns (so rows stay distinct) as clustering columns; and,
// when the table would be a time series nothing bounds, a time bucket the source already
// has moved into the partition key.
//
// It is the one rule `cqlsize design` and `cqlsize check` lay out a query table by, so
// check's suggestion for a query is the table design makes for it without volumes (design
// with volumes sizes the same layout and may add a bucket and write shards). LIMIT and
// PER PARTITION LIMIT change no key column: a limited read takes the first rows of the
// partition in its clustering order.
//
// The package is pure: it imports only cql and cql/bound.
package keylayout

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/bound"
)

// Pattern is what one query asks of the table it reads.
type Pattern struct {
	// Source is the table the query reads (design's entity).
	Source *cql.Table
	// Eq are the columns known by equality (col = value), in the order of the WHERE clause.
	Eq []string
	// Contains is the collection the query searches with CONTAINS or CONTAINS KEY; nil for
	// none.
	Contains *Contains
	// In are the columns restricted by IN, in the order of the WHERE clause.
	In []string
	// Range is the column the query slices (<, <=, >, >=); "" for none.
	Range string
	// Order is the ORDER BY clause.
	Order []Order
	// Want are the columns the query reads; Star reads every column.
	Want []string
	Star bool
	// Sized says the caller sizes the table from its volumes and chooses the bucket and
	// shards itself: no bucket the source has is moved into the partition key.
	Sized bool
}

// Contains is a collection searched for one element.
type Contains struct {
	Column string
	Keys   bool // CONTAINS KEY: the element is a map key
}

// Order is one ORDER BY column.
type Order struct {
	Column string
	Desc   bool
}

// Element is the key column that holds one element of a searched collection: one row is
// written per element.
type Element struct {
	Name       string // tags -> tag; a map's keys -> col_key, its values -> col_value
	Type       cql.Type
	Collection *cql.Column
	Keys       bool
}

// Layout is the key of the table that serves a pattern.
type Layout struct {
	Source *cql.Table
	// PartitionKey are the equality columns, then the element column, then the Bucket.
	PartitionKey []*cql.Column
	// Clustering are the IN, range and ORDER BY columns, then the source's key columns;
	// with a Bucket, the time column leads the ones the query leaves free.
	Clustering []*cql.Column
	// Element is the column holding one element of the searched collection; nil for none.
	Element *Element
	// Bucket is a column of the source that is a time bucket (a day, a month) moved from
	// the clustering key into the partition key, so the partition stops growing when its
	// bucket is over; nil when none was moved. The query names it (bucket = ?): it replaces
	// an IN or range on it, or is added.
	Bucket *cql.Column
	// Lead is the time column the bucketed table is clustered by; nil without a Bucket.
	Lead *cql.Column
	// Moved are the source's regular and static columns that became key columns: changing
	// one means deleting the row and inserting it again.
	Moved []*cql.Column

	want map[string]bool
	star bool
}

// ElementOf names and types the key column holding one element of collection c: the
// singular of its name (hashtags -> hashtag; news -> news_value) for a set or list, col_key
// or col_value for a map's keys or values. ok is false when c is no collection CONTAINS
// (keys) can search.
func ElementOf(c *cql.Column, keys bool) (e Element, ok bool) {
	t := c.Type
	e = Element{Collection: c, Keys: keys}
	switch {
	case keys && t.Kind == cql.Map && len(t.Params) == 2:
		e.Type, e.Name = t.Params[0], c.Name+"_key"
	case !keys && t.Kind == cql.Map && len(t.Params) == 2:
		e.Type, e.Name = t.Params[1], c.Name+"_value"
	case !keys && (t.Kind == cql.List || t.Kind == cql.Set) && len(t.Params) == 1:
		e.Type, e.Name = t.Params[0], cql.Singular(c.Name)
		if e.Name == c.Name {
			e.Name += "_value"
		}
	default:
		return Element{}, false
	}
	e.Type = KeyType(e.Type)
	return e, true
}

// KeyType is a column's type as a key column: a collection or UDT is frozen there.
func KeyType(t cql.Type) cql.Type {
	if t.Kind != cql.Native && !t.Frozen {
		t.Frozen = true
	}
	return t
}

// Of lays out the key that serves p from one partition. It is an error when no key does:
// nothing known by equality, IN with ORDER BY, an ORDER BY on another column than the
// range, a range on or equality with a whole non-frozen collection, a column the source
// does not have.
func Of(p Pattern) (*Layout, error) {
	t := p.Source
	if t == nil {
		return nil, fmt.Errorf("no source table")
	}
	col := func(name string) (*cql.Column, error) {
		if c := t.Column(name); c != nil {
			return c, nil
		}
		return nil, fmt.Errorf("%s has no column %s", t.Name, name)
	}
	if len(p.Eq) == 0 && p.Contains == nil {
		return nil, fmt.Errorf("no column is known by equality or CONTAINS: no partition key to look up")
	}
	if len(p.In) > 0 && len(p.Order) > 0 {
		return nil, fmt.Errorf("IN with ORDER BY: Cassandra orders only within one slice of the clustering key")
	}
	if p.Range != "" {
		for _, o := range p.Order {
			if o.Column != p.Range {
				return nil, fmt.Errorf("a range on %s but ORDER BY %s: a table orders by the column it slices", p.Range, o.Column)
			}
		}
	}
	l := &Layout{Source: t, want: map[string]bool{}, star: p.Star}
	for _, w := range p.Want {
		l.want[w] = true
	}
	used := map[string]bool{}
	add := func(list *[]*cql.Column, c *cql.Column, order cql.Order) {
		if used[c.Name] {
			return
		}
		used[c.Name] = true
		*list = append(*list, &cql.Column{Name: c.Name, Type: KeyType(c.Type), Order: order, Position: -1})
		if c.Kind == cql.Regular || c.Kind == cql.Static {
			l.Moved = append(l.Moved, c)
		}
	}
	for _, name := range p.Eq {
		c, err := col(name)
		if err != nil {
			return nil, err
		}
		if c.Type.MultiCell() {
			return nil, fmt.Errorf("%s is a non-frozen collection: a whole one cannot be a key", c.Name)
		}
		add(&l.PartitionKey, c, cql.Asc)
	}
	if p.Contains != nil {
		c, err := col(p.Contains.Column)
		if err != nil {
			return nil, err
		}
		e, ok := ElementOf(c, p.Contains.Keys)
		if !ok {
			return nil, fmt.Errorf("%s is %s, not a collection CONTAINS can search", c.Name, c.Type)
		}
		for t.Column(e.Name) != nil || used[e.Name] {
			e.Name += "_value"
		}
		used[e.Name] = true
		l.Element = &e
		l.PartitionKey = append(l.PartitionKey, &cql.Column{Name: e.Name, Type: e.Type, Position: -1})
	}
	orderOf := func(name string, def cql.Order) cql.Order {
		for _, o := range p.Order {
			if o.Column == name {
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
	for _, name := range p.In {
		c, err := col(name)
		if err != nil {
			return nil, err
		}
		add(&l.Clustering, c, own(c))
	}
	if p.Range != "" {
		c, err := col(p.Range)
		if err != nil {
			return nil, err
		}
		if c.Type.MultiCell() {
			return nil, fmt.Errorf("a range on %s, a non-frozen collection", c.Name)
		}
		add(&l.Clustering, c, orderOf(c.Name, own(c)))
	}
	for _, o := range p.Order {
		c, err := col(o.Column)
		if err != nil {
			return nil, err
		}
		add(&l.Clustering, c, orderOf(c.Name, cql.Asc))
	}
	restricted := len(l.Clustering) // the clustering columns the query leaves free start here
	// The source's own key makes the rows of one partition unique: one per source row.
	for _, c := range append(append([]*cql.Column{}, t.PartitionKey...), t.Clustering...) {
		add(&l.Clustering, c, own(c))
	}
	if !p.Sized {
		l.bucketize(p, restricted)
	}
	setKinds(l.PartitionKey, cql.PartitionKey)
	setKinds(l.Clustering, cql.Clustering)
	return l, nil
}

func setKinds(cols []*cql.Column, kind cql.ColumnKind) {
	for i, c := range cols {
		c.Kind, c.Position = kind, i
	}
}

// Name is the table's name: source_by_keys (posts_by_tag). A source already named for its
// key (posts_by_user) gives its base (posts_by_tag, not posts_by_user_by_tag).
func (l *Layout) Name() string {
	base := l.Source.Name
	if i := strings.Index(base, "_by_"); i > 0 {
		base = base[:i]
	}
	var keys []string
	for _, c := range l.PartitionKey {
		keys = append(keys, c.Name)
	}
	return base + "_by_" + strings.Join(keys, "_")
}

// Table is the table of the layout named name: the partition key, then extra partition key
// columns (a bucket or shard the caller sized), the clustering columns, then the source
// columns want names (every one for star) as regular columns. A collection is frozen there:
// it is written whole with each row, one cell, where a non-frozen one would first be
// deleted with a collection tombstone at every write. A static column stays static only
// when the partition key is the source's. The table keeps the source's default TTL, so
// its rows expire with the source's.
func (l *Layout) Table(name string, want map[string]bool, star bool, extra ...*cql.Column) *cql.Table {
	t := l.Source
	nt := &cql.Table{Keyspace: t.Keyspace, Name: name, Options: cql.TableOptions{DefaultTTL: t.Options.DefaultTTL}}
	var pk, ck []*cql.Column
	for _, c := range l.PartitionKey {
		nc := *c
		pk = append(pk, &nc)
	}
	for _, c := range extra {
		nc := *c
		pk = append(pk, &nc)
	}
	for _, c := range l.Clustering {
		nc := *c
		ck = append(ck, &nc)
	}
	setKinds(pk, cql.PartitionKey)
	setKinds(ck, cql.Clustering)
	nt.PartitionKey, nt.Clustering = pk, ck
	nt.Columns = append(append([]*cql.Column{}, pk...), ck...)
	samePartition := len(pk) == len(t.PartitionKey)
	for i := 0; samePartition && i < len(pk); i++ {
		samePartition = pk[i].Name == t.PartitionKey[i].Name
	}
	for _, c := range t.Columns {
		if nt.Column(c.Name) != nil || !(star || want[c.Name]) {
			continue
		}
		typ := c.Type
		if typ.IsCollection() && !typ.Frozen {
			typ = KeyType(typ)
		}
		kind := cql.Regular
		if c.Kind == cql.Static && samePartition {
			kind = cql.Static
		}
		nt.Columns = append(nt.Columns, &cql.Column{Name: c.Name, Type: typ, Kind: kind, Position: -1})
	}
	return nt
}

// bucketize lays out a time series nothing bounds (cql/bound's rule, the one BK101 judges
// by): the time column leads the clustering columns the query leaves free, so a partition
// reads newest (or oldest) first; and a clustering column that is a time bucket the source
// already has (one in its partition key, else the first bucket-like one: year before month
// before day) moves into the partition key, so the partition stops growing when its bucket
// is over. It invents no bucket width (that takes volumes), and moves no bucket the query
// orders by (it wants every bucket in order, which no bucketed table serves from one
// partition) or whose move would not bound the table.
func (l *Layout) bucketize(p Pattern, restricted int) {
	probe := func(pk, ck []*cql.Column) *cql.Table {
		nl := *l
		nl.PartitionKey, nl.Clustering = pk, ck
		return nl.Table("probe", l.want, l.star)
	}
	v := bound.Judge(probe(l.PartitionKey, l.Clustering))
	if !v.Unbounded() {
		return
	}
	ordered := map[string]bool{}
	for _, o := range p.Order {
		ordered[o.Column] = true
	}
	arrange := func(col *cql.Column) (pk, ck []*cql.Column, lead *cql.Column) {
		pk = append([]*cql.Column{}, l.PartitionKey...)
		if col != nil {
			pk = append(pk, col)
		}
		var rest []*cql.Column
		for i, c := range l.Clustering {
			switch {
			case c == col:
			case i < restricted:
				ck = append(ck, c)
			default:
				rest = append(rest, c)
			}
		}
		for _, c := range rest {
			if c.Name == v.Time.Name && c != col {
				lead = c
			}
		}
		if lead == nil && col != nil { // the series' time was the bucket: the next time column leads
			for _, c := range rest {
				if c.Type.Kind == cql.Native && (c.Type.Name == "timeuuid" || c.Type.Name == "timestamp") {
					lead = c
					break
				}
			}
		}
		for i, c := range rest {
			if c == lead {
				rest = append(append([]*cql.Column{c}, rest[:i]...), rest[i+1:]...)
				break
			}
		}
		return pk, append(ck, rest...), lead
	}
	if col := bucketCandidate(l.Source, l.Clustering, ordered); col != nil {
		if pk, ck, lead := arrange(col); !bound.Judge(probe(pk, ck)).Unbounded() {
			l.PartitionKey, l.Clustering, l.Bucket, l.Lead = pk, ck, col, lead
			if lead == nil {
				for _, c := range ck {
					if c.Name == v.Time.Name {
						l.Lead = c
					}
				}
			}
			return
		}
	}
	l.PartitionKey, l.Clustering, _ = arrange(nil)
}

// BucketReason says why the layout has its Bucket, and how the query reads it.
func (l *Layout) BucketReason() string {
	if l.Bucket == nil {
		return ""
	}
	series, b := l.Bucket.Name, l.Bucket.Name
	if l.Lead != nil {
		series = l.Lead.Name
	}
	return fmt.Sprintf("a time series (clustered by %s): %s moves into the partition key as its time bucket, so a partition stops growing when its %s is over; "+
		"the query reads one %s per call: walk back %s by %s for older rows", series, b, b, b, b, b)
}

// bucketCandidate picks a clustering column that is a time bucket by the bound rule: one
// the source has in its partition key (its own bucket), else the first bucket-like one. An
// exact time (timestamp, timeuuid) is no bucket here: as a partition key it would make a
// partition of every instant. It is nil when there is none, or when the first bucket-like
// column is one the query orders by.
func bucketCandidate(src *cql.Table, ck []*cql.Column, ordered map[string]bool) *cql.Column {
	var first *cql.Column
	for _, c := range ck {
		if c.Type.Kind == cql.Native && (c.Type.Name == "timestamp" || c.Type.Name == "timeuuid") {
			continue
		}
		if _, isBucket := bound.Bucket(&cql.Table{PartitionKey: []*cql.Column{c}}); !isBucket {
			continue
		}
		if oc := src.Column(c.Name); oc != nil && oc.Kind == cql.PartitionKey && !ordered[c.Name] {
			return c
		}
		if first == nil {
			first = c
		}
	}
	if first != nil && ordered[first.Name] {
		return nil
	}
	return first
}

// BucketColumn is the partition key column of a bucket width the caller sized, and the
// derive function that fills it: a day is a date, the other widths the bucket package's
// label as text. The name is the width's (day, month), with _bucket while the source has
// a column of that name.
func BucketColumn(width string, source *cql.Table) (name, fn string, typ cql.Type) {
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
	for source.Column(name) != nil {
		name += "_bucket"
	}
	return name, fn, typ
}

// ShardColumn is the name of the write-shard column of a table from source: shard, with
// _bucket while the source has a column of that name.
func ShardColumn(source *cql.Table) string {
	name := "shard"
	for source.Column(name) != nil {
		name += "_bucket"
	}
	return name
}

// Unsized says what a table laid out without volumes says when it is a time series nothing
// bounds: no bucket width is invented; the reason for the lint (BK101) to wait, and the
// volume that would decide the bucket. source names the table the rows come from, column
// the column the partition is looked up by, limits the target's partition limits as sizing
// words them (empty: "the partition limits"; this package sits below sizing). ok is false
// when the table is bounded as it is.
func Unsized(t *cql.Table, source, column, limits string) (nolint, reason string, ok bool) {
	if limits == "" {
		limits = "the partition limits"
	}
	v := bound.Judge(t)
	if !v.Unbounded() {
		return "", "", false
	}
	var keys []string
	for _, c := range t.PartitionKey {
		keys = append(keys, c.Name)
	}
	nolint = fmt.Sprintf("unsized: whether %s needs a time bucket, and which, depends on how many rows one (%s) receives over their retention", t.Name, strings.Join(keys, ", "))
	reason = fmt.Sprintf("%s is a time series (clustered by %s) with no volume to size it: no bucket width is invented. "+
		"The volume that decides it: %s rows per span of time (rows: N/day), how long they are kept (retention: or ttl:) and how many distinct %s there are (columns: {%s: {distinct: N}}); "+
		"give them in a workload file (--workload) to get the coarsest bucket that keeps a partition under %s",
		t.Name, v.Time.Name, source, column, column, limits)
	return nolint, reason, true
}
