package check

import (
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// fromAST builds the checker's model of a parsed SELECT. aggregates names the user-defined
// aggregates that may appear in the selection.
func fromAST(s *cql.Select, aggregates map[string]bool) *selectQuery {
	q := &selectQuery{
		keyspace:       s.Table.Keyspace.Name,
		table:          s.Table.Name.Name,
		tablePos:       s.Table.Pos(),
		distinct:       s.Distinct,
		json:           s.JSON,
		star:           s.Star,
		allowFiltering: s.AllowFiltering,
		pos:            s.Pos,
	}
	for _, sel := range s.Selectors {
		q.sel = append(q.sel, selectorsOf(sel, aggregates, true)...)
	}
	for _, r := range s.Where {
		q.where = append(q.where, relationOf(r))
	}
	for _, g := range s.GroupBy {
		gt := groupTerm{pos: g.Pos}
		if cols := g.Columns(); len(cols) > 0 {
			gt.col = cols[0].Name
		}
		if g.Kind != cql.SelColumn {
			gt.fn = funcName(g)
		}
		q.groupBy = append(q.groupBy, gt)
	}
	for _, o := range s.OrderBy {
		ord := ordering{col: o.Column.Name, desc: o.Desc, ann: o.ANN != nil, annLen: -1, pos: o.Pos}
		if o.ANN != nil && o.ANN.Kind == cql.TermList && !o.ANN.HasMarker() {
			ord.annLen = len(o.ANN.Items)
		}
		q.orderBy = append(q.orderBy, ord)
	}
	q.limit = limitOf(s.Limit)
	q.ppl = limitOf(s.PerPartitionLimit)
	return q
}

// selectorsOf flattens a selector: one entry for the item itself, plus one for each
// writetime()/ttl() nested inside it (Cassandra checks those wherever they are).
func selectorsOf(s *cql.Selector, aggregates map[string]bool, top bool) []selector {
	var out []selector
	if top {
		item := selector{pos: s.Pos}
		for _, c := range s.Columns() {
			item.cols = append(item.cols, c.Name)
		}
		if s.Kind != cql.SelColumn {
			item.fn = funcName(s)
		}
		item.aggregate = s.Kind == cql.SelCountStar || builtinAggregates[item.fn] || aggregates[item.fn]
		out = append(out, item)
	}
	if s.Kind == cql.SelWritetime && !top {
		w := selector{pos: s.Pos, fn: funcName(s)}
		for _, c := range s.Columns() {
			w.cols = append(w.cols, c.Name)
		}
		out = append(out, w)
	}
	for _, a := range s.Args {
		out = append(out, selectorsOf(a, aggregates, false)...)
	}
	return out
}

// funcName is the lower-case function name of a selector, without a keyspace.
func funcName(s *cql.Selector) string {
	switch s.Kind {
	case cql.SelCountStar:
		return "count"
	case cql.SelCast:
		return "cast"
	}
	f := strings.ToLower(s.Func)
	if i := strings.LastIndexByte(f, '.'); i >= 0 {
		f = f[i+1:]
	}
	return f
}

var operators = map[cql.Operator]op{
	cql.OpEq: opEQ, cql.OpNe: opNEQ, cql.OpLt: opLT, cql.OpLe: opLTE, cql.OpGt: opGT, cql.OpGe: opGTE,
	cql.OpIn: opIN, cql.OpContains: opContains, cql.OpContainsKey: opContainsKey,
	cql.OpLike: opLike, cql.OpIsNotNull: opIsNotNull,
}

func relationOf(r *cql.Relation) relation {
	rel := relation{pos: r.Pos, text: r.Text, op: operators[r.Op]}
	if r.Value != nil {
		rel.value = r.Value.Text
	}
	for _, c := range r.Columns {
		rel.cols = append(rel.cols, c.Name)
	}
	switch r.Kind {
	case cql.RelToken:
		rel.token = true
	case cql.RelTuple:
		rel.tuple = true
	case cql.RelElement:
		rel.mapKey = true
	case cql.RelCustom:
		rel.other = "a custom index expression expr(" + r.Index.String() + ", ...)"
	case cql.RelField:
		rel.other = "a restriction on a field of a user-defined type"
	}
	if r.Op == cql.OpIn {
		rel.inN = r.InCount()
		if rel.inN < 0 {
			rel.inN = unknownN
		}
	}
	return rel
}

func limitOf(t *cql.Term) *limitVal {
	if t == nil {
		return nil
	}
	if t.IsMarker() {
		return &limitVal{marker: true, pos: t.Pos}
	}
	n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(t.Text), " ", ""))
	if err != nil {
		return &limitVal{marker: true, pos: t.Pos} // not a plain integer: its value is not known here
	}
	return &limitVal{n: n, pos: t.Pos}
}
