package lint

import (
	"strconv"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/bound"
)

// native reports whether c is of one of the named native types.
func native(c *cql.Column, names ...string) bool {
	if c.Type.Kind != cql.Native {
		return false
	}
	for _, n := range names {
		if c.Type.Name == n {
			return true
		}
	}
	return false
}

// eventTime returns the clustering column that holds event time by the shared rule (package
// bound: a timestamp, an event's timeuuid, a bigint named like a moment; not an entity's id
// timeuuid), or nil when the table is not ordered by time.
func eventTime(t *cql.Table) *cql.Column {
	if v := bound.Judge(t); v.TimeSeries {
		return v.Time
	}
	return nil
}

// runUnbucketed reports tables that the bound rule calls unbounded time series. It is a
// warning: the rule reads names and types, not how much is written. With a workload that
// sizes the table, it steps aside: the size lints (WL1xx) then say from the estimate whether
// the partitions cross a limit, which is the question BK101 only guesses at.
func runUnbucketed(p *pass) {
	sized := map[string]bool{}
	if w := p.in.Workload; w != nil {
		for _, ts := range w.Sizes {
			sized[ts.Table] = true
		}
	}
	ttl := writeTTLs(p.in.Writes, p.in.Keyspace)
	for _, st := range p.stmts {
		var t *cql.Table
		var pos cql.Pos
		var base *cql.Table // a view's base table: its writes' TTL expires the view's rows too
		switch s := st.s.(type) {
		case *cql.CreateTable:
			// Judge the table as the statements leave it (a later ALTER ... WITH
			// default_time_to_live bounds it), unless a later CREATE replaced it.
			t, pos = tableFromCreate(s, st.keyspace), s.Pos
			if last := p.tables[join(t.Keyspace, t.Name)]; last != nil && last.Pos == s.Pos {
				t = last
			}
		case *cql.CreateView:
			// A view keyed by time without a bucket grows the same way.
			base = p.table(s.Base, st.keyspace)
			if base == nil {
				continue
			}
			k, n := qualify(s.Name, st.keyspace)
			vt := &cql.Table{Keyspace: k, Name: n}
			for _, id := range s.PartitionKey {
				if c := base.Column(id.Name); c != nil {
					vt.PartitionKey = append(vt.PartitionKey, c)
				}
			}
			for _, id := range s.Clustering {
				if c := base.Column(id.Name); c != nil {
					vt.Clustering = append(vt.Clustering, c)
				}
			}
			t, pos = vt, s.Pos
		default:
			continue
		}
		if sized[join(t.Keyspace, t.Name)] || ttl.bounds(t.Keyspace, t.Name) || base != nil && ttl.bounds(base.Keyspace, base.Name) {
			continue
		}
		if v := bound.Judge(t); v.Unbounded() {
			p.report(pos, "%s; each partition grows for as long as its key is written", v.Reason)
		}
	}
}

// ttlWrites records which tables the application writes with USING TTL: keyspace.table,
// or a bare table name for a write that names no keyspace and has none to resolve it by.
type ttlWrites map[string]bool

// writeTTLs reads the TTL'd writes: an INSERT or UPDATE with USING TTL of a bind marker (the
// service binds a TTL) or of a literal above 0 (TTL 0 means none), alone or in a batch
// whose USING TTL applies to every statement in it.
func writeTTLs(writes []cql.Statement, ks string) ttlWrites {
	out := ttlWrites{}
	var visit func(st cql.Statement, batch bool)
	visit = func(st cql.Statement, batch bool) {
		switch s := st.(type) {
		case *cql.Insert:
			if batch || expires(s.Using.TTL) {
				out[join(qualify(s.Table, ks))] = true
			}
		case *cql.Update:
			if batch || expires(s.Using.TTL) {
				out[join(qualify(s.Table, ks))] = true
			}
		case *cql.Batch:
			for _, in := range s.Statements {
				visit(in, batch || expires(s.Using.TTL))
			}
		}
	}
	for _, st := range writes {
		visit(st, false)
	}
	return out
}

// expires reports whether a USING TTL term expires what it writes.
func expires(t *cql.Term) bool {
	if t == nil {
		return false
	}
	if t.IsMarker() {
		return true
	}
	n, err := strconv.Atoi(t.Value)
	return err == nil && n > 0
}

// bounds reports whether writes with a TTL go to the table.
func (w ttlWrites) bounds(ks, name string) bool {
	return w[join(ks, name)] || w[name]
}
