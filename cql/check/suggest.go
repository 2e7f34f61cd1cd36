package check

import (
	"fmt"

	"github.com/cqlsize/cqlsize/design"
	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
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
	// unsized marks a time series left unbucketed for want of volumes.
	unsized bool
}

// suggest designs the table that serves q from one partition: its equality columns (and
// the elements of the collections it searches with CONTAINS) as the partition key; its IN,
// range and ORDER BY columns, then the rest of the original primary key (so rows stay
// distinct) as clustering columns; the other columns it reads as regular columns. It
// returns the CREATE TABLE statement and the query rewritten for it, or empty strings when
// no single-partition table can serve the query.
func suggest(schema *cql.Schema, t *cql.Table, q *selectQuery, stmt *cql.Select, query Query, opts Options) (table, text string, same bool) {
	if opts.Volumes != nil {
		if table, text, ok := sized(schema, t, stmt, query, opts.Volumes); ok {
			return table, text, false
		}
	}
	sg := layout(t, q)
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

// sized asks the design engine for the table that serves the query, sized by the volumes:
// the table `cqlsize design` makes for the same access pattern. It proves the table as
// suggest does (the rewritten query reads one partition without ALLOW FILTERING), and
// gives up (ok false) when the engine cannot serve the query or the volumes do not cover
// its table; the caller then suggests the unsized table.
func sized(schema *cql.Schema, t *cql.Table, stmt *cql.Select, q Query, vols *design.Volumes) (table, text string, ok bool) {
	d, err := design.Run(design.Input{Schema: schema, Queries: []design.Query{{Name: q.Name, Rate: q.Rate, P99: q.P99, Stmt: stmt}}, Volumes: vols})
	if err != nil || len(d.Tables) != 1 || len(d.Queries) != 1 {
		return "", "", false
	}
	dt := d.Tables[0]
	base := dt.Table.Name
	for i := 2; lookup(schema, t.Keyspace, dt.Table.Name) != nil; i++ {
		dt.Table.Name = fmt.Sprintf("%s_%d", base, i)
	}
	st, err := cql.Parse(q.Name, []byte(strings.Replace(d.Queries[0].Text, cql.QuoteName(base)+" ", cql.QuoteName(dt.Table.Name)+" ", 1)))
	sel, isSelect := st.(*cql.Select)
	if err != nil || !isSelect {
		return "", "", false
	}
	nq := fromAST(sel, nil)
	nq.table = dt.Table.Name
	pc := &prepareContext{table: dt.Table}
	if p := pc.prepare(nq, false); p.rej != nil || accessOf(dt.Table, nq).access != SinglePartition {
		return "", "", false
	}
	var b strings.Builder
	for _, r := range append(append([]string{}, dt.Reasons...), dt.Notes...) {
		b.WriteString("-- " + r + "\n")
	}
	if dt.NoLint != "" {
		b.WriteString("-- cqlsize:nolint BK101 " + dt.NoLint + "\n")
	}
	b.WriteString(dt.Table.CreateStatement(stmt.Table.Keyspace.Name != ""))
	text = sel.Text
	if stmt.Table.Keyspace.Name == "" {
		// The query as written names no keyspace: neither does its rewrite.
		text = strings.Replace(text, cql.QuoteName(dt.Table.Keyspace)+"."+cql.QuoteName(dt.Table.Name), cql.QuoteName(dt.Table.Name), 1)
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

// layout designs the key of the table that serves q, as the design engine does for one
// access pattern, on the checker's model of the query.
func layout(t *cql.Table, q *selectQuery) *suggestion {
	if q.distinct || len(q.groupBy) > 0 {
		return nil // grouping follows the primary key of the table as it is
	}
	ls := &layoutState{nt: &cql.Table{Keyspace: t.Keyspace, Options: cql.TableOptions{DefaultTTL: t.Options.DefaultTTL}}, used: map[string]bool{}}
	nt, used, addCol, moved := ls.nt, ls.used, ls.addCol, ls.moved
	nq := *q
	nq.where = nil
	nq.allowFiltering = false
	where, ins, ranges, ok := ls.relations(t, q, &nq)
	if !ok {
		return nil
	}
	if len(nt.PartitionKey) == 0 {
		return nil // nothing is known by equality: no partition key to look up
	}
	if len(ins) > 0 && len(q.orderBy) > 0 {
		return nil // IN before an ORDER BY column is not a clustering prefix Cassandra can order
	}
	orderOf := func(name string, def cql.Order) cql.Order {
		for _, o := range q.orderBy {
			if o.col == name {
				if o.desc {
					return cql.Desc
				}
				return cql.Asc
			}
		}
		return def
	}
	originalOrder := func(c *cql.Column) cql.Order {
		if c.Kind == cql.Clustering {
			return c.Order
		}
		return cql.Asc
	}
	for _, r := range ins {
		if c := t.Column(r.cols[0]); !used[c.Name] {
			addCol(c.Name, c.Type, cql.Clustering, originalOrder(c))
			moved(c)
		}
	}
	for _, r := range ranges {
		if c := t.Column(r.cols[0]); !used[c.Name] {
			if c.Type.MultiCell() {
				return nil
			}
			addCol(c.Name, c.Type, cql.Clustering, orderOf(c.Name, originalOrder(c)))
			moved(c)
			break // only one range can be a slice; others stay filters (and fail the proof)
		}
	}
	for _, o := range q.orderBy {
		if c := t.Column(o.col); c != nil && !used[c.Name] {
			addCol(c.Name, c.Type, cql.Clustering, orderOf(c.Name, cql.Asc))
			moved(c)
		}
	}
	restStart := len(nt.Clustering) // the clustering columns the query leaves free start here
	for _, c := range append(append([]*cql.Column{}, t.PartitionKey...), t.Clustering...) {
		if !used[c.Name] {
			addCol(c.Name, c.Type, cql.Clustering, originalOrder(c))
		}
	}
	// The columns the query reads become regular columns of the new table.
	wanted := map[string]bool{}
	for _, s := range q.sel {
		for _, c := range s.cols {
			wanted[c] = true
		}
	}
	for _, r := range q.where {
		if r.op == opContains || r.op == opContainsKey {
			continue // its element is a key column now; the collection is kept only if selected
		}
		for _, c := range r.cols {
			wanted[c] = true
		}
	}
	samePartition := sameColumns(nt.PartitionKey, t.PartitionKey)
	for _, c := range t.Columns {
		if used[c.Name] || !(q.star || wanted[c.Name]) {
			continue
		}
		kind := cql.Regular
		if c.Kind == cql.Static && samePartition {
			kind = cql.Static
		}
		addCol(c.Name, c.Type, kind, cql.Asc)
	}
	sg := &suggestion{table: nt, query: &nq, where: where, notes: ls.notes}
	if !bucketize(t, nt, sg, restStart) {
		return nil
	}
	var keyNames []string
	for _, c := range nt.PartitionKey {
		keyNames = append(keyNames, c.Name)
	}
	base := t.Name
	if i := strings.Index(base, "_by_"); i > 0 {
		base = base[:i] // posts_by_user read by tag is posts_by_tag, not posts_by_user_by_tag
	}
	nt.Name = base + "_by_" + strings.Join(keyNames, "_")
	nq.table = nt.Name
	if sg.unsized {
		if nolint, reason, ok := design.Unsized(nt, t.Name, keyNames[0]); ok {
			sg.nolint = nolint
			sg.notes = append(sg.notes, reason)
		}
	}
	return sg
}

// elementColumn names and types the key column holding one element of a collection
// searched with CONTAINS (values) or CONTAINS KEY (map keys).
func elementColumn(c *cql.Column, key bool) (string, cql.Type) {
	t := c.Type
	switch {
	case key && t.Kind == cql.Map && len(t.Params) == 2:
		return c.Name + "_key", t.Params[0]
	case !key && t.Kind == cql.Map && len(t.Params) == 2:
		return c.Name + "_value", t.Params[1]
	case !key && (t.Kind == cql.List || t.Kind == cql.Set) && len(t.Params) == 1:
		return c.Name + "_value", t.Params[0]
	}
	return "", cql.Type{}
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

// layoutState is the suggested table as layout builds it: its columns so far, the names
// used, and the notes for the writers.
type layoutState struct {
	nt    *cql.Table
	used  map[string]bool
	notes []string
}

func (ls *layoutState) addCol(name string, typ cql.Type, kind cql.ColumnKind, order cql.Order) {
	nt := ls.nt
	c := &cql.Column{Name: name, Type: typ, Kind: kind, Order: order, Position: -1}
	switch kind {
	case cql.PartitionKey:
		c.Position = len(nt.PartitionKey)
		nt.PartitionKey = append(nt.PartitionKey, c)
	case cql.Clustering:
		c.Position = len(nt.Clustering)
		nt.Clustering = append(nt.Clustering, c)
	}
	nt.Columns = append(nt.Columns, c)
	ls.used[name] = true
}

// moved notes an entity column that becomes a key column.
func (ls *layoutState) moved(c *cql.Column) {
	if c.Kind == cql.Regular || c.Kind == cql.Static {
		ls.notes = append(ls.notes, fmt.Sprintf("%s is a key column here: changing it means deleting the row and inserting it again", c.Name))
	}
}

// relations lays out the partition key from q's equality and CONTAINS relations and
// collects its IN and range relations, writing the rewritten relations into nq and where.
// ok is false for a relation no table key serves.
func (ls *layoutState) relations(t *cql.Table, q *selectQuery, nq *selectQuery) (where []string, ins, ranges []*relation, ok bool) {
	for i := range q.where {
		r := &q.where[i]
		if r.token || r.tuple || r.other != "" || r.op == opNEQ || r.op == opLike || r.op == opIsNotNull {
			return nil, nil, nil, false
		}
		c := t.Column(r.cols[0])
		if c == nil {
			return nil, nil, nil, false
		}
		switch {
		case r.mapKey:
			return nil, nil, nil, false // a map entry cannot become a key column without knowing the keys
		case r.op == opContains || r.op == opContainsKey:
			name, typ := elementColumn(c, r.op == opContainsKey)
			if name == "" || ls.used[name] {
				return nil, nil, nil, false
			}
			ls.addCol(name, typ, cql.PartitionKey, cql.Asc)
			ls.notes = append(ls.notes, fmt.Sprintf("one row per element of %s: write a row for each element, delete it when the element goes", c.Name))
			nr := *r
			nr.cols, nr.op = []string{name}, opEQ
			nq.where = append(nq.where, nr)
			where = append(where, cql.QuoteName(name)+" = "+valueText(r))
		case r.op == opEQ:
			if !ls.used[c.Name] {
				ls.addCol(c.Name, c.Type, cql.PartitionKey, cql.Asc)
				ls.moved(c)
			}
			nq.where = append(nq.where, *r)
			where = append(where, r.text)
		case r.op == opIN:
			ins = append(ins, r)
			nq.where = append(nq.where, *r)
			where = append(where, r.text)
		case r.op.isSlice():
			ranges = append(ranges, r)
			nq.where = append(nq.where, *r)
			where = append(where, r.text)
		}
	}
	return where, ins, ranges, true
}
