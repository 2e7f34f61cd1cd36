package liveschema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Diff lists how got (usually the cluster) differs from want (usually what the migration
// files produce), one line per difference, sorted. An empty result means the two agree on
// everything a query or a size depends on: keyspaces and their replication, tables, each
// column's kind, key position, clustering order and type, default_time_to_live,
// gc_grace_seconds, the compaction class, indexes (table, target, class), materialized
// views (base table and key), user types (fields in order) and function names.
//
// Spellings that Cassandra normalizes compare equal: varchar and text, 'sai' and
// StorageAttachedIndex, SimpleStrategy and org.apache.cassandra.locator.SimpleStrategy,
// an index on a collection column and on values(column), frozen<tuple<...>> and tuple<...>.
func Diff(want, got *cql.Schema) []string {
	d := &differ{}
	if want == nil {
		want = cql.NewSchema()
	}
	if got == nil {
		got = cql.NewSchema()
	}
	for _, name := range unionKeys(want.Keyspaces, got.Keyspaces) {
		w, g := want.Keyspaces[name], got.Keyspaces[name]
		where := "keyspace " + name
		switch {
		case g == nil:
			d.add(where, "in the migrations, not in the cluster")
		case w == nil:
			d.add(where, "in the cluster, not in the migrations")
		default:
			d.keyspace(where, w, g)
		}
	}
	sort.Strings(d.out)
	return d.out
}

type differ struct{ out []string }

func (d *differ) add(where, format string, args ...any) {
	d.out = append(d.out, where+": "+fmt.Sprintf(format, args...))
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func presence[V any](d *differ, where, what string, want, got map[string]V, both func(where string, w, g V)) {
	for _, name := range unionKeys(want, got) {
		w, inWant := want[name]
		g, inGot := got[name]
		at := where + ": " + what + " " + name
		switch {
		case !inGot:
			d.out = append(d.out, at+": in the migrations, not in the cluster")
		case !inWant:
			d.out = append(d.out, at+": in the cluster, not in the migrations")
		case both != nil:
			both(at, w, g)
		}
	}
}

func (d *differ) keyspace(where string, w, g *cql.Keyspace) {
	if a, b := replication(w.Replication), replication(g.Replication); a != b && len(w.Replication) > 0 {
		d.add(where, "replication: want %s, got %s", a, b)
	}
	if w.DurableWrites != g.DurableWrites {
		d.add(where, "durable_writes: want %t, got %t", w.DurableWrites, g.DurableWrites)
	}
	presence(d, where, "type", w.Types, g.Types, func(at string, w, g *cql.UserType) { d.userType(at, w, g) })
	presence(d, where, "table", w.Tables, g.Tables, func(at string, w, g *cql.Table) { d.table(at, w, g, false) })
	presence(d, where, "view", w.Views, g.Views, func(at string, w, g *cql.View) {
		if w.BaseTable != g.BaseTable {
			d.add(at, "base table: want %s, got %s", w.BaseTable, g.BaseTable)
		}
		if w.Table != nil && g.Table != nil {
			d.table(at, w.Table, g.Table, true)
		}
	})
	presence(d, where, "index", w.Indexes, g.Indexes, func(at string, wi, gi *cql.Index) {
		if wi.Table != gi.Table {
			d.add(at, "table: want %s, got %s", wi.Table, gi.Table)
		}
		if a, b := indexTarget(wi, w), indexTarget(gi, g); a != b {
			d.add(at, "target: want %s, got %s", a, b)
		}
		if a, b := indexClass(wi), indexClass(gi); a != b {
			d.add(at, "class: want %s, got %s", a, b)
		}
	})
	presence(d, where, "function", w.Functions, g.Functions, nil)
	presence(d, where, "aggregate", w.Aggregates, g.Aggregates, nil)
}

func (d *differ) userType(at string, w, g *cql.UserType) {
	a, b := fields(w.Fields), fields(g.Fields)
	if a != b {
		d.add(at, "fields: want (%s), got (%s)", a, b)
	}
}

func fields(fs []cql.Field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Name + " " + TypeString(f.Type)
	}
	return strings.Join(parts, ", ")
}

func (d *differ) table(at string, w, g *cql.Table, view bool) {
	wc, gc := columnMap(w), columnMap(g)
	presence(d, at, "column", wc, gc, func(at string, w, g *cql.Column) {
		if w.Kind != g.Kind {
			d.add(at, "kind: want %s, got %s", w.Kind, g.Kind)
			return
		}
		if (w.Kind == cql.PartitionKey || w.Kind == cql.Clustering) && w.Position != g.Position {
			d.add(at, "position in the %s key: want %d, got %d", keyName(w.Kind), w.Position, g.Position)
		}
		if w.Kind == cql.Clustering && w.Order != g.Order {
			d.add(at, "clustering order: want %s, got %s", w.Order, g.Order)
		}
		if a, b := TypeString(w.Type), TypeString(g.Type); a != b {
			d.add(at, "type: want %s, got %s", a, b)
		}
	})
	if view {
		// Views carry no TTL of their own and inherit the rest from the base table.
		return
	}
	if w.Options.DefaultTTL != g.Options.DefaultTTL {
		d.add(at, "default_time_to_live: want %d, got %d", w.Options.DefaultTTL, g.Options.DefaultTTL)
	}
	if a, b := gcGrace(w.Options), gcGrace(g.Options); a != b {
		d.add(at, "gc_grace_seconds: want %d, got %d", a, b)
	}
	if a, b := w.Options.CompactionClass(), g.Options.CompactionClass(); a != b {
		d.add(at, "compaction class: want %s, got %s", a, b)
	}
}

func keyName(k cql.ColumnKind) string {
	if k == cql.PartitionKey {
		return "partition"
	}
	return "clustering"
}

// gcGrace treats an unset (zero) value in a hand-built model as Cassandra's default.
func gcGrace(o cql.TableOptions) int {
	if o.GCGraceSeconds == 0 {
		if _, set := o.Raw["gc_grace_seconds"]; !set {
			return cql.DefaultGCGraceSeconds
		}
	}
	return o.GCGraceSeconds
}

func columnMap(t *cql.Table) map[string]*cql.Column {
	m := make(map[string]*cql.Column, len(t.Columns))
	for _, c := range t.Columns {
		m[c.Name] = c
	}
	return m
}

// replication renders a replication map through cql.ReplicationOf, the one reader of
// replication maps, so {'class': 'SimpleStrategy', 'replication_factor': 1} in a file equals
// what system_schema stores; a map it cannot read is shown as it is.
func replication(m map[string]string) string {
	r, err := cql.ReplicationOf(m)
	if err != nil {
		return fmt.Sprint(m)
	}
	return r.String()
}

func shortClass(c string) string {
	c = strings.Trim(c, "'")
	if i := strings.LastIndexByte(c, '.'); i >= 0 {
		return c[i+1:]
	}
	return c
}

func indexClass(ix *cql.Index) string {
	if !ix.Custom && ix.Class == "" {
		return "legacy secondary index"
	}
	if isSAI(ix.Class) {
		return "StorageAttachedIndex"
	}
	return shortClass(ix.Class)
}

// indexTarget renders an index target the way Cassandra stores it: an index declared on a
// non-frozen collection column indexes its values, and names are unquoted for comparison.
func indexTarget(ix *cql.Index, ks *cql.Keyspace) string {
	target := strings.TrimSpace(ix.Target)
	fn, col := "", target
	if open := strings.IndexByte(target, '('); open > 0 && strings.HasSuffix(target, ")") {
		fn, col = strings.ToLower(strings.TrimSpace(target[:open])), strings.TrimSpace(target[open+1:len(target)-1])
	}
	if len(col) >= 2 && col[0] == '"' && col[len(col)-1] == '"' {
		col = strings.ReplaceAll(col[1:len(col)-1], `""`, `"`)
	}
	if fn == "" {
		if t := ks.Tables[ix.Table]; t != nil {
			if c := t.Column(col); c != nil && c.Type.IsCollection() && !c.Type.Frozen {
				fn = "values"
			}
		}
	}
	if fn == "" {
		return col
	}
	return fn + "(" + col + ")"
}

// TypeString renders t in a canonical form for comparison: collection elements, tuple
// fields and vector elements are frozen implicitly, so frozen<> is only printed where it
// changes what is stored (a top-level list, set, map or user type). User types are printed
// without their keyspace (a type is only usable in its own keyspace).
func TypeString(t cql.Type) string {
	var b strings.Builder
	writeType(&b, t, true)
	return b.String()
}

func writeType(b *strings.Builder, t cql.Type, top bool) {
	frozen := top && t.Frozen && (t.Kind == cql.List || t.Kind == cql.Set || t.Kind == cql.Map || t.Kind == cql.UDT)
	if frozen {
		b.WriteString("frozen<")
	}
	switch t.Kind {
	case cql.Native:
		name := t.Name
		if n, ok := cql.CanonicalNative(name); ok {
			name = n
		}
		b.WriteString(name)
	case cql.UDT:
		b.WriteString(t.Name)
	case cql.List, cql.Set, cql.Map, cql.Tuple:
		b.WriteString([...]string{cql.List: "list", cql.Set: "set", cql.Map: "map", cql.Tuple: "tuple"}[t.Kind])
		b.WriteByte('<')
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			writeType(b, p, false)
		}
		b.WriteByte('>')
	case cql.Vector:
		b.WriteString("vector<")
		if len(t.Params) == 1 {
			writeType(b, t.Params[0], false)
		}
		fmt.Fprintf(b, ", %d>", t.Dim)
	}
	if frozen {
		b.WriteByte('>')
	}
}
