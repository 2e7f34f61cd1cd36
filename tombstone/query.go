package tombstone

import (
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// ReadOf is the read a SELECT makes of one partition of tbl, as the model takes it: its
// time order, whether it reverses the clustering order, where its clustering range starts
// (one row, after a cursor, or at the head) and its LIMIT (or PER PARTITION LIMIT) when it
// is a literal. base supplies what a query does not say (PageSize, Fraction, and the
// Limit when the query's is a bind marker or absent). A nil query is the read of a whole
// partition in its clustering order.
func ReadOf(tbl *cql.Table, q *cql.Select, base Read) Read {
	rd := base
	rd.Order, rd.Reversed, rd.Slice = orderOf(tbl, q), reversed(tbl, q), FromStart
	if q == nil {
		return rd
	}
	if n, ok := literalInt(q.Limit); ok {
		rd.Limit = n
	} else if n, ok := literalInt(q.PerPartitionLimit); ok {
		rd.Limit = n
	}
	rd.Slice = sliceOf(tbl, q.Where, rd.Reversed)
	return rd
}

// orderOf says how a read meets rows by age: a table clustered first by a time-typed
// column, read in its declared order (or reversed by ORDER BY), is newest-first when that
// order is DESC; other tables interleave old and new rows.
func orderOf(tbl *cql.Table, q *cql.Select) Order {
	if len(tbl.Clustering) == 0 {
		return Unordered
	}
	first := tbl.Clustering[0]
	switch first.Type.Name {
	case "timeuuid", "timestamp", "date", "time":
	default:
		return Unordered
	}
	desc := first.Order == cql.Desc
	if reversed(tbl, q) {
		desc = !desc
	}
	if desc {
		return NewestFirst
	}
	return OldestFirst
}

// reversed reports whether the query's ORDER BY runs against the table's clustering order.
// Cassandra accepts only the declared order or its exact reverse, so the first ordering
// says which.
func reversed(tbl *cql.Table, q *cql.Select) bool {
	if q == nil || len(q.OrderBy) == 0 || q.OrderBy[0].ANN != nil {
		return false
	}
	for _, c := range tbl.Clustering {
		if strings.EqualFold(c.Name, q.OrderBy[0].Column.Name) {
			return q.OrderBy[0].Desc != (c.Order == cql.Desc)
		}
	}
	return false
}

// sliceOf reads the clustering restrictions of a WHERE clause: equality on every clustering
// column is one row; after an equality prefix, a bound on the side the read starts from is
// a cursor. Anything else (no restriction, only a far bound, IN, a token or index
// restriction) starts the read at the head of its range.
func sliceOf(tbl *cql.Table, where []*cql.Relation, rev bool) Slice {
	if len(tbl.Clustering) == 0 {
		return FromStart
	}
	eq := map[string]bool{}
	bounds := map[string][]cql.Operator{}
	for _, r := range where {
		switch r.Kind {
		case cql.RelColumn:
			name := strings.ToLower(r.Column().Name)
			switch {
			case r.Op == cql.OpEq:
				eq[name] = true
			case r.Op == cql.OpIn && r.InCount() == 1:
				eq[name] = true
			case r.Op.IsSlice():
				bounds[name] = append(bounds[name], r.Op)
			}
		case cql.RelTuple:
			// (a, b) > (?, ?) bounds from its first column, which must follow the prefix.
			if len(r.Columns) > 0 && r.Op.IsSlice() {
				name := strings.ToLower(r.Columns[0].Name)
				bounds[name] = append(bounds[name], r.Op)
			} else if len(r.Columns) > 0 && r.Op == cql.OpEq {
				for _, c := range r.Columns {
					eq[strings.ToLower(c.Name)] = true
				}
			}
		}
	}
	for _, c := range tbl.Clustering {
		name := strings.ToLower(c.Name)
		if eq[name] {
			continue
		}
		// The first column not fixed by equality: does a bound start the read?
		ascending := (c.Order == cql.Desc) == rev
		for _, op := range bounds[name] {
			lower := op == cql.OpGt || op == cql.OpGe
			if lower == ascending {
				return AfterCursor
			}
		}
		return FromStart
	}
	return Point
}

func literalInt(t *cql.Term) (int, bool) {
	if t == nil || t.Kind != cql.TermLiteral {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(t.Value))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
