package cql

import (
	"fmt"
	"sort"
	"strings"
)

// CreateStatement renders t as CREATE TABLE IF NOT EXISTS (as the tool's own lint asks of a
// migration), with its clustering order, default TTL and compaction when it has them.
func (t *Table) CreateStatement(qualifiedName bool) string {
	var b strings.Builder
	name := QuoteName(t.Name)
	if qualifiedName && t.Keyspace != "" {
		name = QuoteName(t.Keyspace) + "." + name
	}
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", name)
	for _, c := range t.Columns {
		fmt.Fprintf(&b, "    %s %s", QuoteName(c.Name), c.Type)
		if c.Kind == Static {
			b.WriteString(" STATIC")
		}
		b.WriteString(",\n")
	}
	pk := make([]string, len(t.PartitionKey))
	for i, c := range t.PartitionKey {
		pk[i] = QuoteName(c.Name)
	}
	key := strings.Join(pk, ", ")
	if len(pk) > 1 || len(t.Clustering) > 0 {
		key = "(" + key + ")"
	}
	for _, c := range t.Clustering {
		key += ", " + QuoteName(c.Name)
	}
	fmt.Fprintf(&b, "    PRIMARY KEY (%s)\n)", key)
	var with []string
	desc := false
	var orders []string
	for _, c := range t.Clustering {
		desc = desc || c.Order == Desc
		orders = append(orders, QuoteName(c.Name)+" "+strings.ToUpper(c.Order.String()))
	}
	if desc {
		with = append(with, "CLUSTERING ORDER BY ("+strings.Join(orders, ", ")+")")
	}
	if t.Options.DefaultTTL > 0 {
		with = append(with, fmt.Sprintf("default_time_to_live = %d", t.Options.DefaultTTL))
	}
	if t.Options.GCGraceSeconds > 0 && t.Options.GCGraceSeconds != DefaultGCGraceSeconds {
		with = append(with, fmt.Sprintf("gc_grace_seconds = %d", t.Options.GCGraceSeconds))
	}
	if c := t.Options.Compaction; len(c) > 0 {
		keys := make([]string, 0, len(c))
		for k := range c {
			if k != "class" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		items := []string{"'class': '" + c["class"] + "'"}
		for _, k := range keys {
			v := c[k]
			if k != "compaction_window_size" {
				v = "'" + v + "'"
			}
			items = append(items, "'"+k+"': "+v)
		}
		with = append(with, "compaction = {"+strings.Join(items, ", ")+"}")
	}
	if len(with) > 0 {
		b.WriteString(" WITH " + strings.Join(with, "\n    AND "))
	}
	return b.String()
}

// Rewrite writes the SELECT again for another table: the same selection, the relations
// of where (as text, joined by AND), the same ORDER BY and limits. table is the name as the
// output should write it (qualified or not).
func (s *Select) Rewrite(table string, where []string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.JSON {
		b.WriteString("JSON ")
	}
	if s.Star {
		b.WriteString("*")
	} else {
		items := make([]string, len(s.Selectors))
		for i, sel := range s.Selectors {
			items[i] = sel.Text
		}
		b.WriteString(strings.Join(items, ", "))
	}
	b.WriteString(" FROM " + table)
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	if len(s.OrderBy) > 0 {
		items := make([]string, len(s.OrderBy))
		for i, o := range s.OrderBy {
			items[i] = o.Column.String()
			if o.Desc {
				items[i] += " DESC"
			}
		}
		b.WriteString(" ORDER BY " + strings.Join(items, ", "))
	}
	if s.PerPartitionLimit != nil {
		b.WriteString(" PER PARTITION LIMIT " + s.PerPartitionLimit.Text)
	}
	if s.Limit != nil {
		b.WriteString(" LIMIT " + s.Limit.Text)
	}
	return b.String()
}
