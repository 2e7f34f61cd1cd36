package design

import (
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// FromWorkload reads the entity entries of a workload file (rows: 50k/day, retention:,
// ttl:, avg:, items:, columns:) as volumes. An entry that describes a query table's
// partitions instead (partitions:, write_rate:) is an error at its line: a design derives
// those.
func FromWorkload(w *workload.Workload) (*Volumes, error) {
	v := &Volumes{File: w.File}
	var errs []error
	for _, t := range w.Tables {
		if !t.IsEntity() {
			errs = append(errs, cql.Errorf(t.Pos, "workload: %s: not an entity entry: give rows: (inserts into the whole table per span of time, such as 50k/day), retention: or ttl:, and columns: with distinct counts", t.Name))
			continue
		}
		e := &Entity{Name: t.Name, Rows: t.TableRate, Retention: t.Retention, Avg: t.Avg, Items: t.Items,
			Columns: map[string]ColumnVolume{}, Pos: t.Pos, Fields: t.Fields}
		if t.TTL != nil {
			e.TTL = *t.TTL
		}
		for c, cv := range t.Columns {
			e.Columns[c] = ColumnVolume{Distinct: cv.Distinct, Skew: cv.Skew}
		}
		v.Entities = append(v.Entities, e)
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return v, nil
}
