package design

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/keylayout"
)

// access is what one query asks of its entity: the columns it knows by equality (the
// partition key), the collection it searches, its IN and range columns and its order.
type access struct {
	q      Query
	entity *cql.Table
	eq     []*cql.Relation // col = value
	elem   *elemKey        // col CONTAINS value, or CONTAINS KEY
	ins    []*cql.Relation
	rng    []*cql.Relation // every slice relation, all on one column
	order  []cql.Ordering
	// want are the entity columns the query reads (star: every column).
	want []string
	star bool
}

// elemKey is the key column that holds one element of a searched collection.
type elemKey struct {
	rel        *cql.Relation
	collection *cql.Column
	name       string // the key column's name: hashtags -> hashtag
	typ        cql.Type
	keys       bool // CONTAINS KEY: the element is a map key
}

// analyze reads a query against the entities: which entity it reads and what it asks of it.
// A query on a table or column no entity has, or one no table can serve from one partition
// (an OR, a text match, two ranges), is an error at the query's position saying why.
func analyze(schema *cql.Schema, q Query) (*access, error) {
	s := q.Stmt
	fail := func(pos cql.Pos, format string, args ...any) error {
		return cql.Errorf(pos, "query %s: %s", q.Name, fmt.Sprintf(format, args...))
	}
	t, err := entityOf(schema, s)
	if err != nil {
		return nil, fail(s.Table.Pos(), "%v", err)
	}
	for _, c := range t.Columns {
		if c.Type.Kind == cql.Native && c.Type.Name == "counter" {
			// A counter cannot be copied to a second table: an increment is not idempotent
			// and takes no timestamp, so the write plan could not write it.
			return nil, fail(s.Table.Pos(), "entity %s has counter column %s: counters cannot be denormalized (an increment takes no timestamp and is not idempotent); keep counters in a table of their own keyed as they are read, and query it directly", t.Name, c.Name)
		}
	}
	a := &access{q: q, entity: t, star: s.Star}
	col := func(id cql.Ident) (*cql.Column, error) {
		c := t.Column(id.Name)
		if c == nil {
			return nil, fail(id.Pos, "entity %s has no column %s (it has %s)", t.Name, id.Name, columnList(t))
		}
		return c, nil
	}
	if s.Distinct || len(s.GroupBy) > 0 {
		return nil, fail(s.Pos, "DISTINCT and GROUP BY follow the key of a table that already exists: write the access pattern as the rows it reads")
	}
	for _, sel := range s.Selectors {
		for _, id := range sel.Columns() {
			if _, err := col(id); err != nil {
				return nil, err
			}
			a.want = append(a.want, id.Name)
		}
	}
	for _, r := range s.Where {
		if err := a.relation(r, col, fail); err != nil {
			return nil, err
		}
	}
	for _, o := range s.OrderBy {
		if o.ANN != nil {
			return nil, fail(o.Pos, "ORDER BY ... ANN OF is a vector search: a storage-attached index serves it, not a table key")
		}
		if _, err := col(o.Column); err != nil {
			return nil, err
		}
		a.order = append(a.order, o)
	}
	if len(a.eq) == 0 && a.elem == nil {
		return nil, fail(s.Pos, "no column is known by equality (col = ?) or CONTAINS: a table is read by its partition key, so the query must name one value of something")
	}
	if len(a.ins) > 0 && len(a.order) > 0 {
		return nil, fail(a.ins[0].Pos, "IN with ORDER BY: Cassandra orders only within one slice of the clustering key; read each value on its own")
	}
	if len(a.rng) > 0 {
		for _, o := range a.order {
			if o.Column.Name != a.rng[0].Column().Name {
				return nil, fail(o.Pos, "ranges on %s but ORDER BY %s: one table orders by the column it slices", a.rng[0].Column().Name, o.Column.Name)
			}
		}
	}
	return a, nil
}

// relation files one WHERE relation, or says why no table serves it.
func (a *access) relation(r *cql.Relation, col func(cql.Ident) (*cql.Column, error), fail func(cql.Pos, string, ...any) error) error {
	switch r.Kind {
	case cql.RelToken:
		return fail(r.Pos, "%s: a token range is a scan of the whole table, not an access pattern", r.Text)
	case cql.RelTuple:
		return fail(r.Pos, "%s: a multi-column relation slices a table that exists; write one relation per column", r.Text)
	case cql.RelElement:
		return fail(r.Pos, "%s: a map entry cannot become a key column without knowing the keys; search its keys with CONTAINS KEY", r.Text)
	case cql.RelField:
		return fail(r.Pos, "%s: a field of a user-defined type is no key column; give the field a column of its own", r.Text)
	case cql.RelCustom:
		return fail(r.Pos, "%s: a custom index expression is a search, not a key lookup", r.Text)
	}
	c, err := col(r.Column())
	if err != nil {
		return err
	}
	switch r.Op {
	case cql.OpEq:
		if c.Type.MultiCell() {
			return fail(r.Pos, "%s: a whole non-frozen collection cannot be a key; search an element with CONTAINS", r.Text)
		}
		for _, e := range a.eq {
			if e.Column().Name == c.Name {
				return fail(r.Pos, "%s: %s is restricted twice", r.Text, c.Name)
			}
		}
		a.eq = append(a.eq, r)
	case cql.OpIn:
		a.ins = append(a.ins, r)
	case cql.OpLt, cql.OpLe, cql.OpGt, cql.OpGe:
		if len(a.rng) > 0 && a.rng[0].Column().Name != c.Name {
			return fail(r.Pos, "%s: ranges on %s and %s: a table slices one clustering column, so one of them must be filtered after the read", r.Text, a.rng[0].Column().Name, c.Name)
		}
		if c.Type.MultiCell() {
			return fail(r.Pos, "%s: a range on a collection", r.Text)
		}
		a.rng = append(a.rng, r)
	case cql.OpContains, cql.OpContainsKey:
		if a.elem != nil {
			return fail(r.Pos, "%s: CONTAINS on two collections would write one row per pair of elements; search one and filter the other", r.Text)
		}
		e, ok := elementOf(c, r.Op == cql.OpContainsKey)
		if !ok {
			return fail(r.Pos, "%s: %s is %s, not a collection CONTAINS can search", r.Text, c.Name, c.Type)
		}
		e.rel = r
		a.elem = e
	case cql.OpLike:
		return fail(r.Pos, "%s: LIKE is a text match (a full-text search): no table key serves it; use a storage-attached index, or a table keyed by the words", r.Text)
	case cql.OpNe:
		return fail(r.Pos, "%s: != matches every value but one: no partition key serves it", r.Text)
	case cql.OpIsNotNull:
		return fail(r.Pos, "%s: IS NOT NULL belongs to materialized views, not to access patterns", r.Text)
	default:
		return fail(r.Pos, "%s: operator %s is no access pattern a table serves", r.Text, r.Op)
	}
	return nil
}

// elementOf is the key column holding one element of a collection, as keylayout names it.
func elementOf(c *cql.Column, keys bool) (*elemKey, bool) {
	e, ok := keylayout.ElementOf(c, keys)
	if !ok {
		return nil, false
	}
	return &elemKey{collection: c, keys: keys, name: e.Name, typ: e.Type}, true
}

// entityOf finds the entity table a query reads.
func entityOf(schema *cql.Schema, s *cql.Select) (*cql.Table, error) {
	name := s.Table.Name.Name
	if ks := s.Table.Keyspace.Name; ks != "" {
		if t := schema.Table(ks, name); t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("no entity %s.%s in the schema", ks, name)
	}
	if schema.Current != "" {
		if t := schema.Table(schema.Current, name); t != nil {
			return t, nil
		}
	}
	var found *cql.Table
	for _, t := range schema.Tables() {
		if t.Name == name {
			if found != nil {
				return nil, fmt.Errorf("entity %s is in keyspaces %s and %s: qualify it", name, found.Keyspace, t.Keyspace)
			}
			found = t
		}
	}
	if found == nil {
		return nil, fmt.Errorf("no entity %s in the schema", name)
	}
	return found, nil
}

func columnList(t *cql.Table) string {
	var names []string
	for _, c := range t.Columns {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}
