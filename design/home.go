package design

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/keylayout"
)

// Every entity a design touches gets a home: a table that holds each of its rows exactly
// once, keyed by the entity's own primary key and holding every column. Query tables alone
// can lose rows (a rating without tags makes no row in a table keyed by tag), and the
// write plan marks the home as the source so that cql/denorm reads an entity back (Load,
// UpdateStored, DeleteByKey) from the write plan alone.

// keyColumns are the entity's primary key columns: partition key, then clustering.
func keyColumns(t *cql.Table) []*cql.Column {
	return append(append([]*cql.Column{}, t.PartitionKey...), t.Clustering...)
}

// homeKey reports whether a shape's key is exactly the entity's primary key: the same
// columns, however split between partition and clustering, and no fan-out.
func homeKey(sh *shape) bool {
	if sh.elem != nil {
		return false
	}
	key := map[string]bool{}
	for _, c := range keyColumns(sh.entity) {
		key[c.Name] = true
	}
	n := 0
	for _, c := range append(append([]*cql.Column{}, sh.pk...), sh.ck...) {
		if !key[c.Name] {
			return false
		}
		n++
	}
	return n == len(key)
}

// widenHomes gives every column of its entity to a table keyed by the entity's own key (a
// lookup by id that reads a few columns): it becomes the entity's home, where a second
// table with the same key would hold the same rows twice.
func widenHomes(groups []*group) {
	for _, g := range groups {
		if homeKey(g.sh) && !g.star {
			g.star, g.widened = true, true
		}
	}
}

// isHome reports whether a designed table is its entity's home: its primary key is the
// entity's, each column copied as it is (no bucket, shard or element), and it holds every
// column of the entity.
func isHome(t *Table) bool {
	key := map[string]bool{}
	for _, c := range keyColumns(t.Entity) {
		key[c.Name] = true
	}
	derived := map[string]string{}
	for _, d := range t.Derive {
		derived[d.Column] = d.Expr
	}
	tk := keyColumns(t.Table)
	if len(tk) != len(key) {
		return false
	}
	for _, c := range tk {
		if !key[c.Name] || derived[c.Name] != c.Name {
			return false
		}
	}
	for _, c := range t.Entity.Columns {
		if t.Table.Column(c.Name) == nil {
			return false
		}
	}
	return true
}

// addHomes marks each entity's home among the designed tables and designs one for every
// entity that has none: partitioned by the entity's whole primary key, one row a
// partition, so it never needs a bucket whatever the entity's own key clusters.
func addHomes(d *Design, in Input, taken map[string]bool) error {
	var entities []*cql.Table
	homed := map[*cql.Table]bool{}
	for _, t := range d.Tables {
		if !homed[t.Entity] && isHome(t) {
			t.Home, homed[t.Entity] = true, true
		}
		if !contains(entities, t.Entity) {
			entities = append(entities, t.Entity)
		}
	}
	for _, e := range entities {
		if homed[e] {
			continue
		}
		var eq []string
		for _, c := range keyColumns(e) {
			eq = append(eq, c.Name)
		}
		l, err := keylayout.Of(keylayout.Pattern{Source: e, Eq: eq, Star: true, Sized: true})
		if err != nil {
			return fmt.Errorf("home of %s: %w", e.QualifiedName(), err)
		}
		// No time column and no identity: one row a partition needs no bucket and no shard.
		sh := &shape{entity: e, layout: l, pk: l.PartitionKey, ck: l.Clustering}
		t, err := designTable(&group{sh: sh, want: map[string]bool{}, star: true}, in, taken)
		if err != nil {
			return err
		}
		if !isHome(t) {
			return fmt.Errorf("home of %s: the table designed for it, %s, is not keyed by the entity's primary key (%s): the write plan would drop rows", e.QualifiedName(), t.Table.Name, keyNames(keyColumns(e)))
		}
		t.Home = true
		t.Reasons = append([]string{fmt.Sprintf("the home of %s: every row once, keyed by its primary key (%s), which no query table is; the write plan marks it source: true, so a service reads a row back (Load), updates and deletes it from what is stored", e.Name, keyNames(keyColumns(e)))}, t.Reasons...)
		d.Tables = append(d.Tables, t)
	}
	return nil
}

func contains(list []*cql.Table, t *cql.Table) bool {
	for _, x := range list {
		if x == t {
			return true
		}
	}
	return false
}

// serves says what a table is for, as the reports and the migration print it: "serves q1,
// q2", then "the home of E: ..." when it is its entity's home.
func (t *Table) serves() string {
	var parts []string
	if len(t.Queries) > 0 {
		parts = append(parts, "serves "+strings.Join(t.Queries, ", "))
	}
	if t.Home {
		parts = append(parts, "the home of "+t.Entity.Name+": every row, by its primary key")
	}
	return strings.Join(parts, "; ")
}

// designGroup designs a group's table (designTable) and settles a widening: a widened
// table that is its entity's home says why it holds every column; one the volumes cut into
// buckets or shards is no home after all, so it is designed again with the columns its
// queries read, under the same name.
func designGroup(g *group, in Input, taken map[string]bool) (*Table, error) {
	t, err := designTable(g, in, taken)
	if err != nil || !g.widened {
		return t, err
	}
	if isHome(t) {
		t.Reasons = append(t.Reasons, fmt.Sprintf("holds every column of %s, not only the ones its queries read: keyed by the entity's primary key, it is the entity's home (every row once; the write plan's source), which saves a second copy of every row", t.Entity.Name))
		return t, nil
	}
	g.star, g.widened = false, false
	delete(taken, t.Entity.Keyspace+"."+t.Table.Name)
	return designTable(g, in, taken)
}

// upperFirst is s with its first letter in upper case, for a sentence that starts with it.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
