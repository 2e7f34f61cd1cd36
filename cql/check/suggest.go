package check

import (
	"fmt"

	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/keylayout"
)

// wantsSuggestion reports whether a query is served badly enough that a table of its own
// is worth proposing: it needs or uses filtering, scans without an index serving it, or its
// clustering restrictions or ORDER BY do not fit the table.
func wantsSuggestion(t *cql.Table, res Result, asWritten *prepared, q *selectQuery) bool {
	if res.Access == SinglePartition && len(t.Clustering) == 0 {
		return false // a filter on a one-row partition costs nothing worth a table
	}
	switch {
	case res.Verdict == NeedsFiltering || res.Filters:
		return true
	case res.Verdict == Invalid:
		code := asWritten.rej.code
		return code == CodeClustering || code == CodeOrderBy
	case res.Access == Scan && !asWritten.usesIndex:
		for _, r := range q.where {
			if r.token {
				return false // a token range scan is deliberate: a full-table job
			}
		}
		return true
	}
	return false
}

// suggestion is a table built for one query and the query rewritten for it.
type suggestion struct {
	table *cql.Table
	query *selectQuery
	// where are the rewritten relations as text, in the order of the original WHERE.
	where []string
	// notes say what the design asks of the writers, as comment lines above CREATE TABLE.
	notes []string
	// nolint is why the bucket lint waits (no volume to size the table), or "".
	nolint string
}

// suggest designs the table that serves q from one partition, as keylayout lays it out
// (the table `cqlsize design` makes for q; sized by opts.Size when the volumes are known). It
// returns the CREATE TABLE statement and the query rewritten for it, or empty strings when
// no single-partition table can serve the query.
func suggest(schema *cql.Schema, t *cql.Table, q *selectQuery, stmt *cql.Select, query Query, opts Options) (table, text string, same bool) {
	if opts.Size != nil {
		if table, text, ok := sized(schema, t, stmt, query, opts.Size); ok {
			return table, text, false
		}
	}
	sg := layout(t, q, opts.Limits)
	if sg == nil {
		return "", "", false
	}
	// Bucketing may give back the table's own key (a query that left out the bucket of a
	// bucketed table): then the advice is the table itself, read one bucket at a time.
	if sameColumns(sg.table.PartitionKey, t.PartitionKey) && sameColumns(sg.table.Clustering, t.Clustering) && sameOrder(sg.table, t) {
		sg.query.table = t.Name
		pc := &prepareContext{table: t}
		if p := pc.prepare(sg.query, false); p.rej != nil || accessOf(t, sg.query).access != SinglePartition {
			return "", "", false
		}
		return "", rewriteQuery(stmt, &suggestion{table: &cql.Table{Keyspace: t.Keyspace, Name: t.Name}, where: sg.where}), true
	}
	// A name of its own: never one a table or view of the keyspace already has.
	base := sg.table.Name
	for i := 2; lookup(schema, t.Keyspace, sg.table.Name) != nil; i++ {
		sg.table.Name = fmt.Sprintf("%s_%d", base, i)
	}
	sg.query.table = sg.table.Name
	// Prove the design: the rewritten query must be accepted without ALLOW FILTERING and
	// read a single partition of the new table.
	pc := &prepareContext{table: sg.table}
	if p := pc.prepare(sg.query, false); p.rej != nil {
		return "", "", false
	}
	if a := accessOf(sg.table, sg.query); a.access != SinglePartition {
		return "", "", false
	}
	var b strings.Builder
	for _, n := range sg.notes {
		b.WriteString("-- " + n + "\n")
	}
	if sg.nolint != "" {
		b.WriteString("-- cqlsize:nolint BK101 " + sg.nolint + "\n")
	}
	b.WriteString(sg.table.CreateStatement(stmt.Table.Keyspace.Name != ""))
	return b.String(), rewriteQuery(stmt, sg), false
}

// sized asks the design engine (through opts.Size) for the table that serves the query,
// sized by the volumes: the table `cqlsize design` makes for the same access pattern. It
// proves the table as suggest does (the rewritten query reads one partition without ALLOW
// FILTERING), and gives up (ok false) when the engine cannot serve the query or the volumes
// do not cover its table; the caller then suggests the unsized table.
func sized(schema *cql.Schema, t *cql.Table, stmt *cql.Select, q Query, size Sizer) (table, text string, ok bool) {
	dt, query, notes, nolint, err := size(schema, q.Name, q.Rate, q.P99, q.Range, stmt)
	if err != nil || dt == nil {
		return "", "", false
	}
	nt := *dt
	base := nt.Name
	for i := 2; lookup(schema, t.Keyspace, nt.Name) != nil; i++ {
		nt.Name = fmt.Sprintf("%s_%d", base, i)
	}
	parsed, err := cql.Parse(q.Name, []byte(strings.Replace(query, cql.QuoteName(base)+" ", cql.QuoteName(nt.Name)+" ", 1)))
	sel, isSelect := parsed.(*cql.Select)
	if err != nil || !isSelect {
		return "", "", false
	}
	nq := fromAST(sel, nil)
	nq.table = nt.Name
	pc := &prepareContext{table: &nt}
	if p := pc.prepare(nq, false); p.rej != nil || accessOf(&nt, nq).access != SinglePartition {
		return "", "", false
	}
	var b strings.Builder
	for _, r := range notes {
		b.WriteString("-- " + r + "\n")
	}
	if nolint != "" {
		b.WriteString("-- cqlsize:nolint BK101 " + nolint + "\n")
	}
	b.WriteString(nt.CreateStatement(stmt.Table.Keyspace.Name != ""))
	text = sel.Text
	if stmt.Table.Keyspace.Name == "" {
		// The query as written names no keyspace: neither does its rewrite.
		text = strings.Replace(text, cql.QuoteName(nt.Keyspace)+"."+cql.QuoteName(nt.Name), cql.QuoteName(nt.Name), 1)
	}
	return b.String(), text, true
}

// sameOrder reports whether the clustering columns of a and b sort the same way.
func sameOrder(a, b *cql.Table) bool {
	for i := range a.Clustering {
		if i >= len(b.Clustering) || a.Clustering[i].Order != b.Clustering[i].Order {
			return false
		}
	}
	return len(a.Clustering) == len(b.Clustering)
}

// existingTable looks for another table or materialized view of the same keyspace that
// serves the query, as written but without ALLOW FILTERING, from one partition with no
// index: the query-first table may exist already. It returns it and the rewritten query.
func existingTable(schema *cql.Schema, t *cql.Table, q *selectQuery, stmt *cql.Select) (*cql.Table, string) {
	ks := schema.Keyspaces[t.Keyspace]
	if ks == nil {
		return nil, ""
	}
	var names []string
	for name := range ks.Tables {
		names = append(names, name)
	}
	for name := range ks.Views {
		names = append(names, name)
	}
	sort.Strings(names)
	nq := *q
	nq.allowFiltering = false
	for _, name := range names {
		c := lookup(schema, t.Keyspace, name)
		if c == nil || c == t || c.Name == t.Name || q.star && !hasColumnsOf(c, t) || !sameTypes(c, t, q) {
			continue
		}
		pc := &prepareContext{table: c, indexes: tableIndexes(schema, c), aggregates: userAggregates(schema, c)}
		p := pc.prepare(&nq, false)
		if p.rej != nil || p.usesIndex || accessOf(c, &nq).access != SinglePartition {
			continue
		}
		var where []string
		for _, r := range q.where {
			where = append(where, r.text)
		}
		return c, rewriteQuery(stmt, &suggestion{table: &cql.Table{Keyspace: c.Keyspace, Name: name}, where: where})
	}
	return nil, ""
}

// hasColumnsOf reports whether c has every column of t, with the same type, so that
// SELECT * reads the same values from both.
func hasColumnsOf(c, t *cql.Table) bool {
	for _, col := range t.Columns {
		if cc := c.Column(col.Name); cc == nil || cc.Type.String() != col.Type.String() {
			return false
		}
	}
	return true
}

// sameTypes reports whether every column q reads or restricts has the same type in c as
// in t (a column of another type with the same name is another column).
func sameTypes(c, t *cql.Table, q *selectQuery) bool {
	same := func(name string) bool {
		a, b := c.Column(name), t.Column(name)
		return a == nil || b == nil || a.Type.String() == b.Type.String()
	}
	for _, s := range q.sel {
		for _, name := range s.cols {
			if !same(name) {
				return false
			}
		}
	}
	for _, r := range q.where {
		for _, name := range r.cols {
			if !same(name) {
				return false
			}
		}
	}
	return true
}

// layout lays out the table that serves q with keylayout, the rule the design engine lays
// out its tables by, and rewrites q for it: the table is the one `cqlsize design` makes
// for the query without volumes.
func layout(t *cql.Table, q *selectQuery, limits string) *suggestion {
	if q.distinct || len(q.groupBy) > 0 {
		return nil // grouping follows the primary key of the table as it is
	}
	p := keylayout.Pattern{Source: t, Star: q.star}
	var contains *relation
	for i := range q.where {
		r := &q.where[i]
		if r.token || r.tuple || r.mapKey || r.other != "" || t.Column(r.cols[0]) == nil {
			return nil // no table key serves it (a map entry cannot become a key column without knowing the keys)
		}
		switch {
		case r.op == opContains || r.op == opContainsKey:
			if p.Contains != nil {
				return nil // one row per pair of elements: no suggestion
			}
			p.Contains, contains = &keylayout.Contains{Column: r.cols[0], Keys: r.op == opContainsKey}, r
			continue // its element is a key column now; the collection is kept only if selected
		case r.op == opEQ:
			p.Eq = append(p.Eq, r.cols[0])
		case r.op == opIN:
			p.In = append(p.In, r.cols[0])
		case r.op.isSlice():
			if p.Range == "" {
				p.Range = r.cols[0] // one range is a slice; others stay filters (and fail the proof)
			}
		default:
			return nil // !=, LIKE, IS NOT NULL: no key serves them
		}
		p.Want = append(p.Want, r.cols...)
	}
	for _, s := range q.sel {
		p.Want = append(p.Want, s.cols...)
	}
	for _, o := range q.orderBy {
		p.Order = append(p.Order, keylayout.Order{Column: o.col, Desc: o.desc})
	}
	l, err := keylayout.Of(p)
	if err != nil {
		return nil
	}
	want := map[string]bool{}
	for _, c := range p.Want {
		want[c] = true
	}
	nt := l.Table(l.Name(), want, q.star)
	nq := *q
	nq.where = nil
	nq.allowFiltering = false
	nq.table = nt.Name
	sg := &suggestion{table: nt, query: &nq}
	for _, c := range l.Moved {
		sg.notes = append(sg.notes, fmt.Sprintf("%s is a key column here: changing it means deleting the row and inserting it again", c.Name))
	}
	var bucketed *relation // the IN or range on the bucket the rewritten query replaces
	for i := range q.where {
		r := q.where[i]
		switch {
		case r.op == opContains || r.op == opContainsKey:
			name := l.Element.Name
			sg.notes = append(sg.notes, fmt.Sprintf("one row per element of %s: write a row for each element, delete it when the element goes", contains.cols[0]))
			r.cols, r.op = []string{name}, opEQ
			r.text = cql.QuoteName(name) + " = " + valueText(contains)
		case l.Bucket != nil && r.cols[0] == l.Bucket.Name && (r.op == opIN || r.op.isSlice()):
			if bucketed != nil {
				continue
			}
			bucketed = &q.where[i]
			r = relation{cols: []string{l.Bucket.Name}, op: opEQ, text: cql.QuoteName(l.Bucket.Name) + " = ?", value: "?"}
		}
		nq.where = append(nq.where, r)
		sg.where = append(sg.where, r.text)
	}
	if l.Bucket != nil {
		note := l.BucketReason()
		if bucketed != nil {
			note += fmt.Sprintf(" (%s becomes one query per %s)", bucketed.text, l.Bucket.Name)
		} else {
			// The query names the bucket: = ? is added.
			r := relation{cols: []string{l.Bucket.Name}, op: opEQ, text: cql.QuoteName(l.Bucket.Name) + " = ?", value: "?"}
			nq.where = append(nq.where, r)
			sg.where = append(sg.where, r.text)
		}
		sg.notes = append(sg.notes, note)
	}
	if nolint, reason, ok := keylayout.Unsized(nt, t.Name, firstKey(l), limits); ok {
		sg.nolint = nolint
		sg.notes = append(sg.notes, reason)
	}
	return sg
}

// firstKey is the column the partition is looked up by: the searched collection, or the
// first equality column.
func firstKey(l *keylayout.Layout) string {
	if l.Element != nil {
		return l.Element.Collection.Name
	}
	return l.PartitionKey[0].Name
}

// valueText is the right side of a relation as written.
func valueText(r *relation) string { return r.value }

func sameColumns(a, b []*cql.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// rewriteQuery writes the SELECT again for the suggested table, as the design engine writes
// its rewritten queries.
func rewriteQuery(s *cql.Select, sg *suggestion) string {
	name := cql.QuoteName(sg.table.Name)
	if !s.Table.Keyspace.IsZero() {
		name = s.Table.Keyspace.String() + "." + name
	}
	return s.Rewrite(name, sg.where)
}
