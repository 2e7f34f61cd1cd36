package check

import (
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/bound"
)

// bucketize bounds a suggested table that is a time series, so that the advice passes the
// tool's own lint (BK101, which judges with the same rule, cql/bound): a partition keyed only
// by what the query looks up grows for as long as that key is written. It moves a bucket
// column the table already has (one the original design bucketed by, or a date) from the
// clustering key into the partition key, puts the time column first among the clustering
// columns the query does not restrict, and makes the rewritten query name the bucket. It
// invents no bucket width: without one to move, the table stays unbucketed with the volume
// that decides its bucket named (check --workload sizes it with the design engine). It
// returns false when it cannot make a table the rule accepts; the caller then suggests
// nothing rather than a table the next command rejects.
func bucketize(orig, nt *cql.Table, sg *suggestion, restStart int) bool {
	v := bound.Judge(nt)
	if !v.Unbounded() {
		return true
	}
	inQuery := map[string]int{} // column -> index in sg.query.where of its IN or range
	for i, r := range sg.query.where {
		if len(r.cols) == 1 && (r.op == opIN || r.op.isSlice()) {
			if _, seen := inQuery[r.cols[0]]; !seen {
				inQuery[r.cols[0]] = i
			}
		}
	}
	ordered := map[string]bool{}
	for _, o := range sg.query.orderBy {
		ordered[o.col] = true
	}
	col, ok := bucketCandidate(orig, nt, ordered)
	if !ok {
		return false
	}
	// series names what the table is clustered by, for the note: the time column that
	// leads the new clustering key when the old time column became the bucket.
	series := func(lead *cql.Column) string {
		if lead != nil {
			return lead.Name
		}
		return v.Time.Name
	}
	var note func(lead *cql.Column) string
	if col != nil {
		note = func(lead *cql.Column) string {
			n := fmt.Sprintf("a time series (clustered by %s): %s moves into the partition key as its time bucket, so a partition stops growing when its %s is over; "+
				"the query reads one %s per call: walk back %s by %s for older rows", series(lead), col.Name, col.Name, col.Name, col.Name, col.Name)
			if i, ok := inQuery[col.Name]; ok {
				n += fmt.Sprintf(" (%s becomes one query per %s)", sg.query.where[i].text, col.Name)
			}
			return n
		}
	}

	// The new key: the bucket (when there is one to move) joins the partition key; the time
	// column leads the clustering columns the query leaves free, so each partition (or
	// bucket) reads newest (or oldest) first.
	pk := append([]*cql.Column{}, nt.PartitionKey...)
	if col != nil {
		pk = append(pk, col)
	}
	var ck, rest []*cql.Column
	for i, c := range nt.Clustering {
		switch {
		case col != nil && c == col:
		case i < restStart:
			ck = append(ck, c)
		default:
			rest = append(rest, c)
		}
	}
	lead := v.Time
	if col != nil && lead == col { // the series' time was the bucket: the next time column leads
		lead = nil
		for _, c := range rest {
			if c.Type.Kind == cql.Native && (c.Type.Name == "timeuuid" || c.Type.Name == "timestamp") {
				lead = c
				break
			}
		}
	}
	for i, c := range rest {
		if c == lead {
			rest = append(append([]*cql.Column{c}, rest[:i]...), rest[i+1:]...)
			break
		}
	}
	setKey(nt, pk, append(ck, rest...))
	// A static column belonged to the original partition; the bucketed one is another.
	for _, c := range nt.Columns {
		if c.Kind == cql.Static {
			c.Kind = cql.Regular
		}
	}

	if col == nil {
		// No bucket the table already has: the width depends on the volumes, which a
		// check without them does not know. The table stays unbucketed; layout names the
		// volume that decides (the design engine's words) once the table has its name.
		sg.unsized = true
		return true
	}
	// The query names the bucket: = ? replaces a range or IN on it, or is added.
	rel := relation{cols: []string{col.Name}, op: opEQ, text: cql.QuoteName(col.Name) + " = ?", value: "?"}
	if i, ok := inQuery[col.Name]; ok {
		sg.query.where[i], sg.where[i] = rel, rel.text
	} else {
		sg.query.where = append(sg.query.where, rel)
		sg.where = append(sg.where, rel.text)
	}
	sg.notes = append(sg.notes, note(lead))
	return !bound.Judge(nt).Unbounded()
}

// bucketCandidate picks a clustering column of the suggested table that is a time bucket by
// the bound rule: one the original table had in its partition key (its own bucket), else
// the first bucket-like one (year before month before day: a day int after a month is a day
// of the month, no bucket on its own). An exact time (timestamp, timeuuid) is not a bucket
// here: as a partition key it would make a partition of every instant. ok is false when
// the first bucket-like column is one the query orders by: the query wants every bucket
// in order, which no bucketed table serves from one partition.
func bucketCandidate(orig, nt *cql.Table, ordered map[string]bool) (col *cql.Column, ok bool) {
	var first *cql.Column
	for _, c := range nt.Clustering {
		if c.Type.Kind == cql.Native && (c.Type.Name == "timestamp" || c.Type.Name == "timeuuid") {
			continue
		}
		if _, isBucket := bound.Bucket(&cql.Table{PartitionKey: []*cql.Column{c}}); !isBucket {
			continue
		}
		if oc := orig.Column(c.Name); oc != nil && oc.Kind == cql.PartitionKey && !ordered[c.Name] {
			return c, true
		}
		if first == nil {
			first = c
		}
	}
	if first != nil && ordered[first.Name] {
		return nil, false
	}
	return first, true
}

// setKey makes pk the partition key and ck the clustering key of t, in that order, with
// kinds and positions to match, and orders t.Columns key first.
func setKey(t *cql.Table, pk, ck []*cql.Column) {
	inKey := map[*cql.Column]bool{}
	for i, c := range pk {
		c.Kind, c.Position = cql.PartitionKey, i
		inKey[c] = true
	}
	for i, c := range ck {
		c.Kind, c.Position = cql.Clustering, i
		inKey[c] = true
	}
	cols := append(append([]*cql.Column{}, pk...), ck...)
	for _, c := range t.Columns {
		if !inKey[c] {
			cols = append(cols, c)
		}
	}
	t.PartitionKey, t.Clustering, t.Columns = pk, ck, cols
}
