package profile

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing/disk"
)

// diskBudget bounds the value bytes kept to lay the sample out as Data.db: past it, later
// partitions are measured but not kept (a --full scan of a large table would not fit in
// memory otherwise). 64 MB holds thousands of chunks, far more than the ratio needs.
const diskBudget = 64 << 20

// diskRow turns the row just scanned into the sizing/disk form: clustering values, and one
// cell per column that has a value, with its write time and its original TTL (remaining TTL
// plus the time since the write, as Cassandra stored it). A non-frozen collection is written
// whole at the row's write time, each element at its own (WRITETIME gives them element by
// element); a non-frozen UDT, whose times cannot be read, takes the row's. The row's write
// time is its simple cells' latest, else the time most of its collection elements share.
func (sm *sampler) diskRow(static bool) (disk.Row, int) {
	r := disk.Row{Cells: map[string]disk.Cell{}}
	n := 0
	var rowTS int64
	for _, c := range sm.cols {
		if c.wt != nil && ((c.col.Kind == cql.Static) == static) {
			if w, ok := c.wt.int64(); ok {
				rowTS = max(rowTS, w)
			}
		}
	}
	if rowTS == 0 {
		rowTS = commonTime(sm.cols, static) // the write most of its collection elements share
	}
	if rowTS == 0 {
		rowTS = sm.curMaxWT // the partition's latest write seen so far, else now
	}
	if rowTS == 0 {
		rowTS = sm.nowMicros
	}
	for _, c := range sm.cols {
		switch {
		case c.col.Kind == cql.Clustering && !static:
			v := append([]byte(nil), c.vals[0].data...)
			r.Clustering = append(r.Clustering, v)
			n += len(v)
			continue
		case c.col.Kind == cql.Static && static, c.col.Kind == cql.Regular && !static:
		default:
			continue
		}
		v, null := c.value()
		if null {
			continue
		}
		cell := disk.Cell{Value: v, Timestamp: rowTS}
		if len(c.times) > 0 && !sameTimes(c.times, rowTS) {
			cell.ElementTimestamps = append([]int64(nil), c.times...)
			// No element written with the row: no write replaced the collection whole, so
			// it carries no collection tombstone.
			cell.Appended = !hasTime(c.times, rowTS)
		}
		if c.wt != nil {
			if w, ok := c.wt.int64(); ok {
				cell.Timestamp = w
			}
			if ttl, ok := c.ttl.int64(); ok && ttl > 0 {
				orig := ttl + (sm.readMicros-cell.Timestamp)/1e6
				cell.TTL = int32(min(orig, 1<<31-1))
			}
		}
		r.Cells[c.col.Name] = cell
		n += len(v)
	}
	if !static && len(r.Cells) == 0 {
		// A row with no value read back exists by its row marker (an INSERT of the key
		// alone); WRITETIME cannot read a marker, so it takes the nearest write time known.
		r.Marker = &disk.Cell{Timestamp: rowTS}
	}
	return r, n
}

// hasTime reports whether ts is one of times.
func hasTime(times []int64, ts int64) bool {
	for _, t := range times {
		if t == ts {
			return true
		}
	}
	return false
}

// sameTimes reports whether every time in times is ts.
func sameTimes(times []int64, ts int64) bool {
	for _, t := range times {
		if t != ts {
			return false
		}
	}
	return true
}

// value is the column's value as one serialized blob (a tuple rebuilt from its elements).
func (c *colReader) value() ([]byte, bool) {
	if len(c.vals) == 1 {
		if c.vals[0].null {
			return nil, true
		}
		return append([]byte(nil), c.vals[0].data...), false
	}
	null := true
	var b []byte
	for _, e := range c.vals {
		null = null && e.null
		l := len(e.data)
		if e.null {
			l = -1
		}
		b = binary.BigEndian.AppendUint32(b, uint32(int32(l)))
		b = append(b, e.data...)
	}
	return b, null
}

// keepForDisk adds the row just scanned to the partition kept for the disk prediction.
func (sm *sampler) keepForDisk(first, hasRow bool) {
	if sm.diskBytes > diskBudget {
		return
	}
	if first {
		var key [][]byte
		for _, c := range sm.cols[:sm.pkCount] {
			key = append(key, append([]byte(nil), c.vals[0].data...))
			sm.diskBytes += len(c.vals[0].data)
		}
		sm.diskCur = &disk.Partition{Key: key}
		if sm.hasStatic {
			st, n := sm.diskRow(true)
			if len(st.Cells) > 0 {
				sm.diskCur.Static = &st
				sm.diskBytes += n
			}
		}
	}
	if hasRow && sm.diskCur != nil {
		r, n := sm.diskRow(false)
		sm.diskCur.Rows = append(sm.diskCur.Rows, r)
		sm.diskBytes += n
	}
}

// predictDisk lays the kept partitions out with the table's compression and scales the
// result to the table's partition count.
func predictDisk(t *Table, parts []disk.Partition) Disk {
	if t.Schema == nil || len(parts) == 0 {
		return Disk{Note: "not predicted: no partition sampled"}
	}
	comp, err := disk.CompressionFromOptions(t.Schema.Options.Compression)
	if err != nil {
		return Disk{Note: fmt.Sprintf("not predicted: the table's compression options: %v", err)}
	}
	sampleRows := 0
	for _, q := range parts {
		sampleRows += len(q.Rows)
	}
	p, err := disk.Predict(t.Schema, withTombstones(t, parts), comp)
	if err != nil {
		return Disk{Note: "not predicted: " + err.Error()}
	}
	d := Disk{Predicted: true, Compressor: comp.Class, ChunkKB: comp.ChunkLengthKB, Ratio: p.Ratio,
		SamplePartitions: p.Partitions, UncompressedPerPartition: p.Uncompressed / float64(p.Partitions),
		PerPartition: p.Compressed / float64(p.Partitions)}
	if !comp.Enabled {
		d.ChunkKB = 0
	}
	if t.Partitions > 0 {
		// The sample's bytes scale with rows: under a Zipf fit the table's mean rows
		// (meanRows) is not the sample's, whose head is luck, so scale to the table's rows.
		// The sample's live rows: the tombstones withTombstones added scale with them.
		scale := t.Partitions
		meanRows := float64(sampleRows) / float64(p.Partitions)
		if t.MeanRows > 0 && meanRows > 0 && math.Abs(t.MeanRows/meanRows-1) > 1e-9 {
			scale = t.Partitions * t.MeanRows / meanRows
			d.Note = fmt.Sprintf("scaled to %.4g partitions of %.4g rows (the sample's partitions average %.4g rows)", t.Partitions, t.MeanRows, meanRows)
		}
		e := p.Scale(scale)
		d.Uncompressed, d.DataBytes, d.Total = e.Uncompressed, e.Components.Data, e.Total
		d.UncompressedPerPartition, d.PerPartition = e.Uncompressed/t.Partitions, e.Components.Data/t.Partitions
	}
	var unc, comp2 []float64
	for _, s := range p.PerPartition {
		unc = append(unc, float64(s.Uncompressed))
		comp2 = append(comp2, s.Compressed)
	}
	d.PartitionUncompressed, d.PartitionCompressed = Summarize(unc), Summarize(comp2)
	return d
}
