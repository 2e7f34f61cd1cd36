package check

import "github.com/cqlsize/cqlsize/cql"

// Rejection says whether a 5.0 node refuses sel, a SELECT run against schema (its Current
// keyspace resolves unqualified names), and why: nil when the node runs it, else a
// *cql.Error at the clause at fault, in Cassandra's words. It is the verdict of CheckQuery
// without the cost and design findings, for callers that only need to know whether the
// statement will run: `migrate validate` on the SELECTs of a history, where a refused one
// would stop `up` half way.
func Rejection(schema *cql.Schema, sel *cql.Select) error {
	t, rej := resolveTable(schema, sel, Options{})
	if rej != nil {
		return cql.Errorf(rej.pos, "%s", rej.msg)
	}
	pc := &prepareContext{table: t, indexes: tableIndexes(schema, t), aggregates: userAggregates(schema, t)}
	p := pc.prepare(fromAST(sel, pc.aggregates), sel.AllowFiltering)
	if p.rej == nil {
		return nil
	}
	pos := p.rej.pos
	if !pos.IsValid() {
		pos = sel.Pos
	}
	return cql.Errorf(pos, "%s", p.rej.msg)
}
