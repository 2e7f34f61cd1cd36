package lint

import (
	"regexp"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// bucketName matches partition key column names that hold a time bucket.
var bucketName = regexp.MustCompile(`(?i)(bucket|day|date|week|month|year|hour|minute|quarter|period|window|epoch|yyyy|yymm|ymd)`)

func isTimeType(t cql.Type) bool {
	return t.Kind == cql.Native && (t.Name == "timeuuid" || t.Name == "timestamp")
}

// bucketColumn returns the partition key column that bounds the partition in time, or nil.
func bucketColumn(t *cql.Table) *cql.Column {
	for _, c := range t.PartitionKey {
		if c.Type.Kind == cql.Native && c.Type.Name == "date" || bucketName.MatchString(c.Name) {
			return c
		}
	}
	return nil
}

// timeClustering returns the first clustering column of a time type, or nil.
func timeClustering(t *cql.Table) *cql.Column {
	for _, c := range t.Clustering {
		if isTimeType(c.Type) {
			return c
		}
	}
	return nil
}

func runUnbucketed(p *pass) {
	for _, st := range p.stmts {
		var t *cql.Table
		var pos cql.Pos
		switch s := st.s.(type) {
		case *cql.CreateTable:
			t, pos = tableFromCreate(s, st.keyspace), s.Pos
		case *cql.CreateView:
			// A view keyed by time without a bucket grows the same way.
			vt := &cql.Table{}
			base := p.table(s.Base, st.keyspace)
			if base == nil {
				continue
			}
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
		tc := timeClustering(t)
		if tc == nil || bucketColumn(t) != nil {
			continue
		}
		var pk []string
		for _, c := range t.PartitionKey {
			pk = append(pk, c.Name)
		}
		p.report(pos, "clustered by %s (%s) but the partition key (%s) has no time bucket: each partition grows without bound",
			tc.Name, tc.Type, strings.Join(pk, ", "))
	}
}
