package lint

import (
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
	for _, st := range p.stmts {
		var t *cql.Table
		var pos cql.Pos
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
			base := p.table(s.Base, st.keyspace)
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
		if sized[join(t.Keyspace, t.Name)] {
			continue
		}
		if v := bound.Judge(t); v.Unbounded() {
			p.report(pos, "%s; each partition grows for as long as its key is written", v.Reason)
		}
	}
}
