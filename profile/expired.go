package profile

import (
	"math"
	"time"

	"github.com/cqlsize/cqlsize/sizing/disk"
)

// ttlWritten reports whether most cells read carry a TTL: the table is written with one.
func ttlWritten(t *Table) bool { return t.TTL.N > 0 && t.TTLFraction > 0.5 }

// expiredRows is the rows past their TTL an average partition holds, when the table is
// written with a TTL and the traced reads passed tombstones: those are then taken for
// expired rows, whose cells a read counts as a tombstone each (ReadCommand counts every
// cell that is not live, and no row tombstone besides), so the tombstones per partition over
// the cells a live row holds. A read cannot tell an expired cell from a deleted row; a table
// written with a TTL rarely deletes too, and a delete's tombstone is then counted as a
// fraction of a row. 0 for a table written without a TTL: its tombstones are deletes.
func expiredRows(t *Table) float64 {
	if !ttlWritten(t) || t.Tombstones.PerPartition <= 0 {
		return 0
	}
	return t.Tombstones.PerPartition / cellsPerRow(t)
}

// expiredTTL is the TTL in seconds the expired rows were written with, when the write times
// show it is shorter than the table's; 0 otherwise. Rows that had the table's TTL were written
// at least that TTL before now, and so before the oldest live row by more than half the TTL
// when the oldest live row is younger than half of it: a gap a steady writer does not leave.
// Then the expired rows were written among the live ones with a TTL no longer than the oldest
// live row's age, which is taken for it. It sets the sstable's minimum TTL, which every live
// row's TTL is written as a delta from (3 bytes for a day, where one TTL costs 1).
func expiredTTL(t *Table, now time.Time) int64 {
	if t.Tombstones.ExpiredRows <= 0 || t.FirstWrite.IsZero() {
		return 0
	}
	age := now.Sub(t.FirstWrite).Seconds()
	if age <= 0 || age >= t.TTL.P50/2 {
		return 0
	}
	return int64(math.Max(1, math.Round(age)))
}

// cellsPerRow is the cells an average live row holds: a value for every regular column
// read non-null, an element for every collection element (each its own cell); at least one.
func cellsPerRow(t *Table) float64 {
	var n float64
	for _, c := range t.Columns {
		if c.Kind != "regular" {
			continue
		}
		cells := 1.0
		if c.Items != nil && c.Items.N > 0 && t.Schema != nil && t.Schema.Column(c.Name) != nil && t.Schema.Column(c.Name).Type.MultiCell() {
			cells = c.Items.Mean
		}
		n += (1 - c.NullFraction) * cells
	}
	return math.Max(1, n)
}

// withTombstones adds to the sampled partitions the rows a live-row sample cannot read:
// the tombstones the traced reads met, as many per live row as the table holds, each next to
// a live row of its partition, with its clustering and its write time. When a delete ran is
// not known: it comes after the write it deletes, so each delete is taken to run the
// sample's write span after its neighbour was written (the deletes as spread in time as the
// writes, after them); an expired row is written when its neighbour was. In a table written with a TTL
// each is an expired row (its liveness and a tombstone for each cell of its neighbour, as
// compaction rewrites it, written with expiredTTL's TTL when known); otherwise a deleted row. Their bytes change how Data.db compresses:
// a sample of live rows alone gives the ratio of the live rows only.
func withTombstones(t *Table, parts []disk.Partition) []disk.Partition {
	per := t.Tombstones.PerPartition
	if t.Tombstones.ExpiredRows > 0 {
		per = t.Tombstones.ExpiredRows
	}
	if per <= 0 || t.MeanRows <= 0 {
		return parts
	}
	rate := per / t.MeanRows
	span := writeSpan(parts)
	out := make([]disk.Partition, len(parts))
	acc := 0.0
	for i, p := range parts {
		q := p
		q.Rows = make([]disk.Row, 0, len(p.Rows)+int(rate*float64(len(p.Rows)))+1)
		for _, r := range p.Rows {
			q.Rows = append(q.Rows, r)
			for acc += rate; acc >= 1; acc-- {
				q.Rows = append(q.Rows, tombstoneNextTo(r, t.Tombstones.ExpiredRows > 0, t.Tombstones.ExpiredTTL, span))
			}
		}
		out[i] = q
	}
	return out
}

// tombstoneNextTo is the deleted or expired row written next to the live row r.
func tombstoneNextTo(r disk.Row, expired bool, expiredTTL, span int64) disk.Row {
	ts, ttl := int64(0), int32(0)
	if r.Marker != nil {
		ts, ttl = r.Marker.Timestamp, r.Marker.TTL
	}
	for _, c := range r.Cells {
		if ts == 0 || c.Timestamp < ts {
			ts, ttl = c.Timestamp, c.TTL
		}
	}
	if !expired {
		return disk.Row{Clustering: r.Clustering, Deleted: ts + span}
	}
	if expiredTTL > 0 {
		ttl = int32(expiredTTL)
	}
	out := disk.Row{Clustering: r.Clustering, Marker: &disk.Cell{Timestamp: ts, TTL: ttl}, Cells: map[string]disk.Cell{}}
	for name := range r.Cells {
		out.Cells[name] = disk.Cell{Expired: true, TTL: ttl, Timestamp: ts}
	}
	return out
}

// writeSpan is the span of the write times in the sampled partitions, in microseconds.
func writeSpan(parts []disk.Partition) int64 {
	var lo, hi int64
	see := func(ts int64) {
		if ts == 0 {
			return
		}
		if lo == 0 || ts < lo {
			lo = ts
		}
		hi = max(hi, ts)
	}
	for _, p := range parts {
		for _, r := range p.Rows {
			if r.Marker != nil {
				see(r.Marker.Timestamp)
			}
			for _, c := range r.Cells {
				see(c.Timestamp)
			}
		}
	}
	return hi - lo
}
