package disk

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/cqlsize/cqlsize/cql"
)

// The layout of a partition in a BIG "nb" Data.db (Cassandra 5.0, storage_compatibility_mode
// CASSANDRA_4), as sizing's byte model describes it element by element (sizing/model.go);
// here it is written out byte for byte so a compressor sees what Cassandra's sees:
//
//	partition   key (u16 length; a composite key as u16 length + bytes + 0 per component)
//	            + deletion time (int local deletion time, long timestamp: LIVE when not deleted)
//	            + static row when any partition has static data + rows + end-of-partition (1)
//	row         flags + [extended flags] + clustering + vint size + vint previous size + body
//	body        [liveness: timestamp, TTL, expiry] + [column subset] + cells in header order
//
// Timestamps, TTLs and expiry times are vints of their difference from the sstable's
// minimums, which after compaction come from its statistics: the minimum TTL is 0 as soon as
// any cell or row marker has no TTL (UnfilteredSerializer, Cell.Serializer,
// SerializationHeader, MetadataCollector).

// Row flags (UnfilteredSerializer).
const (
	flagEndOfPartition   = 0x01
	flagHasTimestamp     = 0x04
	flagHasTTL           = 0x08
	flagHasDeletion      = 0x10
	flagHasAllColumns    = 0x20
	flagHasComplexDelete = 0x40
	flagExtension        = 0x80
	extIsStatic          = 0x01
)

// Cell flags (Cell.Serializer).
const (
	cellDeleted    = 0x01
	cellExpiring   = 0x02
	cellEmpty      = 0x04
	cellRowTS      = 0x08
	cellRowTTL     = 0x10
	uuidEpochDelta = 0x01B21DD213814000 // 100 ns intervals from 1582-10-15 to 1970-01-01
)

// column is a regular or static column as the layout writes it.
type column struct {
	name    string
	typ     cql.Type
	multi   bool
	fixed   int // value length of a fixed-length type, -1 otherwise
	counter bool
}

type deletion struct{ ts, ldt int64 }

// cell is a simple cell or one element of a multi-cell column.
type cell struct {
	ts   int64
	ttl  int32
	ldt  int64 // expiry (expiring) or deletion (tombstone) time, seconds
	tomb bool
	// expiredTTL is the TTL of an expired cell written as a tombstone (Cell.Expired): the
	// statistics count it as the expiring cell it was.
	expiredTTL int32
	path       []byte
	value      []byte
}

func (c cell) expiring() bool { return !c.tomb && c.ttl > 0 }

// colData is a column of one row: a simple cell, or a multi-cell column's deletion and cells.
type colData struct {
	col    *column
	simple *cell
	del    *deletion
	cells  []cell
}

type liveness struct {
	present bool
	ts      int64
	ttl     int32
	ldt     int64
}

type row struct {
	static     bool
	clustering [][]byte
	marker     liveness
	del        *deletion // a row deletion
	cols       map[string]*colData
}

type partition struct {
	key    []byte
	static *row
	rows   []row
}

// stats are the sstable's minimums the deltas are written against.
type stats struct {
	minTS, minLDT int64
	minTTL        int64
	tsSet, ldtSet bool
}

func (s *stats) ts(v int64) {
	if !s.tsSet || v < s.minTS {
		s.minTS, s.tsSet = v, true
	}
}
func (s *stats) ldt(v int64) {
	if !s.ldtSet || v < s.minLDT {
		s.minLDT, s.ldtSet = v, true
	}
}
func (s *stats) ttl(v int64) {
	if v < s.minTTL {
		s.minTTL = v
	}
}

// layout holds what the serializer needs across partitions: the table's columns, the
// header's columns in Cassandra's order, and the encoding minimums.
type layout struct {
	t        *cql.Table
	cols     map[string]*column
	ck       []*column
	regular  []*column // header columns, simple ones first, each group by name
	static   []*column
	st       stats
	nodeUUID [8]byte // clock sequence and node of the list-element timeuuids
}

func newLayout(t *cql.Table) (*layout, error) {
	if t == nil {
		return nil, fmt.Errorf("no table")
	}
	if len(t.PartitionKey) == 0 {
		return nil, fmt.Errorf("table %s has no partition key", t.QualifiedName())
	}
	l := &layout{t: t, cols: map[string]*column{}, st: stats{minTTL: math.MaxInt32}}
	copy(l.nodeUUID[:], []byte{0x9a, 0x3c, 0x42, 0x1e, 0x6b, 0x7f, 0x05, 0xd1})
	for _, c := range t.Columns {
		col := &column{name: c.Name, typ: c.Type, multi: c.Type.MultiCell(), fixed: fixedLength(c.Type), counter: c.Type.Kind == cql.Native && c.Type.Name == "counter"}
		l.cols[c.Name] = col
		if c.Kind == cql.Clustering {
			l.ck = append(l.ck, col)
		}
	}
	// Clustering columns in key order.
	l.ck = l.ck[:0]
	for _, c := range t.Clustering {
		l.ck = append(l.ck, l.cols[c.Name])
	}
	return l, nil
}

// fixedLength is a type's value length when every value has it (valueLengthIfFixed), else -1.
func fixedLength(t cql.Type) int {
	if n, ok := t.FixedSize(); ok {
		return n
	}
	if t.Kind == cql.Vector && len(t.Params) == 1 {
		if n, ok := t.Params[0].FixedSize(); ok && t.Dim > 0 {
			return n * t.Dim
		}
	}
	return -1
}

// convert checks a sampled partition against the table and turns it into cells as Cassandra
// stores them, noting the columns and minimums the sstable header will carry.
func (l *layout) convert(i int, p Partition, seenReg, seenStatic map[string]bool) (partition, error) {
	var out partition
	if len(p.Key) != len(l.t.PartitionKey) {
		return out, fmt.Errorf("partition %d: %d key components, table %s has %d", i, len(p.Key), l.t.QualifiedName(), len(l.t.PartitionKey))
	}
	if len(p.Key) == 1 {
		out.key = p.Key[0]
	} else {
		for _, k := range p.Key {
			out.key = binary.BigEndian.AppendUint16(out.key, uint16(len(k)))
			out.key = append(out.key, k...)
			out.key = append(out.key, 0)
		}
	}
	if len(out.key) > 0xFFFF {
		return out, fmt.Errorf("partition %d: key of %d bytes is over Cassandra's 65535", i, len(out.key))
	}
	if p.Static != nil {
		r, err := l.convertRow(*p.Static, true, seenStatic)
		if err != nil {
			return out, fmt.Errorf("partition %d static row: %w", i, err)
		}
		if len(r.cols) > 0 {
			out.static = &r
		}
	}
	for j, pr := range p.Rows {
		if len(pr.Clustering) != len(l.ck) {
			return out, fmt.Errorf("partition %d row %d: %d clustering values, table %s has %d clustering columns", i, j, len(pr.Clustering), l.t.QualifiedName(), len(l.ck))
		}
		r, err := l.convertRow(pr, false, seenReg)
		if err != nil {
			return out, fmt.Errorf("partition %d row %d: %w", i, j, err)
		}
		out.rows = append(out.rows, r)
	}
	return out, nil
}

func (l *layout) convertRow(r Row, static bool, seen map[string]bool) (row, error) {
	out := row{static: static, clustering: r.Clustering, cols: map[string]*colData{}}
	counter := false
	var earliest *Cell
	names := make([]string, 0, len(r.Cells))
	for name := range r.Cells {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := r.Cells[name]
		col := l.cols[name]
		if col == nil {
			return out, fmt.Errorf("column %q is not in table %s", name, l.t.QualifiedName())
		}
		tc := l.t.Column(name)
		switch {
		case static && tc.Kind != cql.Static:
			return out, fmt.Errorf("column %q is not static", name)
		case !static && tc.Kind != cql.Regular:
			return out, fmt.Errorf("column %q is a %s column, not a regular one", name, tc.Kind)
		}
		if c.TTL < 0 {
			return out, fmt.Errorf("column %q: negative TTL %d", name, c.TTL)
		}
		counter = counter || col.counter
		cc := c
		if earliest == nil || c.Timestamp < earliest.Timestamp {
			earliest = &cc
		}
		d := &colData{col: col}
		ldt := c.Timestamp / 1e6
		if c.TTL > 0 {
			ldt += int64(c.TTL)
		}
		switch {
		case !col.multi:
			s := cell{ts: c.Timestamp, ttl: c.TTL, ldt: ldt, tomb: c.Null || c.Expired}
			if s.tomb {
				s.ttl, s.ldt = 0, c.Timestamp/1e6
				if c.Expired {
					s.expiredTTL = c.TTL
				}
			} else {
				s.value = c.Value
				if col.counter {
					s.value = counterContext(c.Value, c.Timestamp)
				}
			}
			d.simple = &s
		default:
			if !c.Appended || c.Null {
				d.del = &deletion{ts: c.Timestamp - 1, ldt: c.Timestamp / 1e6}
			}
			if !c.Null {
				els, err := decodeElements(col.typ, c.Value)
				if err != nil {
					return out, fmt.Errorf("column %q: %w", name, err)
				}
				own := len(c.ElementTimestamps) == len(els)
				for k, e := range els {
					s := cell{ts: c.Timestamp, ttl: c.TTL, ldt: ldt, path: e.path, value: e.value}
					if own {
						s.ts = c.ElementTimestamps[k]
						s.ldt = s.ts/1e6 + int64(c.TTL)
					}
					if col.typ.Kind == cql.List {
						s.path = l.listPath(s.ts, k)
					}
					d.cells = append(d.cells, s)
				}
			}
			if d.del == nil && len(d.cells) == 0 {
				continue // an appended empty collection writes nothing
			}
		}
		out.cols[name] = d
		seen[name] = true
	}
	if r.Deleted != 0 {
		if static || len(r.Cells) > 0 || r.Marker != nil {
			return out, fmt.Errorf("a deleted row holds no cell and no marker, and a static row cannot be deleted alone")
		}
		out.del = &deletion{ts: r.Deleted, ldt: r.Deleted / 1e6}
		return out, nil
	}
	if !static && !r.Update && !counter {
		switch {
		case r.Marker != nil:
			m := r.Marker
			out.marker = liveness{present: true, ts: m.Timestamp, ttl: m.TTL}
		case earliest != nil:
			out.marker = liveness{present: true, ts: earliest.Timestamp, ttl: earliest.TTL}
			if earliest.Null {
				out.marker.ttl = 0
			}
		default:
			return out, fmt.Errorf("row has no cells and no marker: give Row.Marker for a row written by INSERT with only its key")
		}
		if out.marker.ttl > 0 {
			out.marker.ldt = out.marker.ts/1e6 + int64(out.marker.ttl)
		}
	}
	return out, nil
}

// listPath is the timeuuid Cassandra gives a list element: its write time in 100 ns units
// from the UUID epoch (one tick apart per element), then a clock sequence and node.
func (l *layout) listPath(ts int64, k int) []byte {
	t := uint64(ts)*10 + uuidEpochDelta + uint64(k)
	b := make([]byte, 16)
	binary.BigEndian.PutUint32(b[0:], uint32(t))
	binary.BigEndian.PutUint16(b[4:], uint16(t>>32))
	binary.BigEndian.PutUint16(b[6:], uint16(t>>48)&0x0FFF|0x1000)
	copy(b[8:], l.nodeUUID[:])
	b[8] = b[8]&0x3F | 0x80
	return b
}

// counterContext is one replica's counter context for a counter's value: a header saying one
// global shard, then the shard's counter id, logical clock and count (CounterContext). The
// leader sets the clock to its wall clock in microseconds at millisecond resolution
// (FBUtilities.timestampMicros, CounterMutation.updateWithCurrentValue), a few milliseconds
// after the update's timestamp: the write time to the millisecond is the nearest value known.
func counterContext(v []byte, ts int64) []byte {
	b := make([]byte, 0, 36)
	b = append(b, 0x00, 0x01, 0x80, 0x00)
	b = append(b, 0x5e, 0x1f, 0x4a, 0x60, 0x2b, 0x9d, 0x4c, 0x11, 0x8e, 0x3f, 0x70, 0x0c, 0x42, 0x9a, 0xd1, 0x07)
	b = binary.BigEndian.AppendUint64(b, uint64(ts-ts%1000))
	var n uint64
	for _, x := range v {
		n = n<<8 | uint64(x)
	}
	return binary.BigEndian.AppendUint64(b, n)
}

// collectStats gathers the minimums over every timestamp, deletion time and TTL, the way
// the sstable's statistics do (a cell or marker without TTL counts as TTL 0).
func (l *layout) collectStats(ps []partition) {
	addRow := func(r *row) {
		if r.marker.present {
			l.st.ts(r.marker.ts)
			l.st.ttl(int64(r.marker.ttl))
			if r.marker.ttl > 0 {
				l.st.ldt(r.marker.ldt)
			}
		}
		if r.del != nil {
			l.st.ts(r.del.ts)
			l.st.ldt(r.del.ldt)
		}
		for _, d := range r.cols {
			if d.del != nil {
				l.st.ts(d.del.ts)
				l.st.ldt(d.del.ldt)
			}
			cells := d.cells
			if d.simple != nil {
				cells = []cell{*d.simple}
			}
			for _, c := range cells {
				l.st.ts(c.ts)
				if c.expiredTTL > 0 {
					l.st.ttl(int64(c.expiredTTL))
					l.st.ldt(c.ldt + int64(c.expiredTTL))
					continue
				}
				l.st.ttl(int64(c.ttl))
				if c.tomb || c.ttl > 0 {
					l.st.ldt(c.ldt)
				}
			}
		}
	}
	for i := range ps {
		if ps[i].static != nil {
			addRow(ps[i].static)
		}
		for j := range ps[i].rows {
			addRow(&ps[i].rows[j])
		}
	}
	if l.st.minTTL == math.MaxInt32 {
		l.st.minTTL = 0
	}
	if !l.st.ldtSet {
		l.st.minLDT = math.MaxInt32
	}
}

// headerColumns orders the columns the sample wrote as Cassandra's Columns does: simple
// before complex, then by name.
func (l *layout) headerColumns(seen map[string]bool) []*column {
	var out []*column
	for name := range seen {
		out = append(out, l.cols[name])
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].multi != out[j].multi {
			return !out[i].multi
		}
		return out[i].name < out[j].name
	})
	return out
}

func (l *layout) writeTS(b []byte, ts int64) []byte {
	return appendVInt(b, uint64(ts-l.st.minTS))
}
func (l *layout) writeLDT(b []byte, ldt int64) []byte {
	// writeUnsignedVInt32 of an int: a negative difference is sign-extended to 9 bytes.
	return appendVInt(b, uint64(int64(int32(ldt-l.st.minLDT))))
}
func (l *layout) writeTTL(b []byte, ttl int32) []byte {
	return appendVInt(b, uint64(int64(int32(int64(ttl)-l.st.minTTL))))
}

// writeValue writes a value as its type does: as is when fixed-length, else vint length + bytes.
func writeValue(b []byte, fixed int, v []byte) []byte {
	if fixed < 0 {
		b = appendVInt(b, uint64(len(v)))
	}
	return append(b, v...)
}

// writePartition appends one partition and returns the buffer.
func (l *layout) writePartition(b []byte, p *partition) []byte {
	start := len(b)
	b = binary.BigEndian.AppendUint16(b, uint16(len(p.key)))
	b = append(b, p.key...)
	// LIVE deletion time: local deletion time Integer.MAX_VALUE, timestamp Long.MIN_VALUE.
	b = append(b, 0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0)
	if len(l.static) > 0 {
		sr := p.static
		if sr == nil {
			sr = &row{static: true}
		}
		b = l.writeRow(b, sr, 0)
	}
	prevStart := start
	for i := range p.rows {
		rs := len(b)
		b = l.writeRow(b, &p.rows[i], uint64(rs-prevStart))
		prevStart = rs
	}
	return append(b, flagEndOfPartition)
}

// writeRow appends a row: flags, clustering, vint size of what follows (including the
// previous-size vint), the previous unfiltered's size, then the body.
func (l *layout) writeRow(b []byte, r *row, prev uint64) []byte {
	header := l.regular
	if r.static {
		header = l.static
	}
	flags := 0
	if r.static {
		flags |= flagExtension
	}
	if r.marker.present {
		flags |= flagHasTimestamp
		if r.marker.ttl > 0 {
			flags |= flagHasTTL
		}
	}
	if r.del != nil {
		flags |= flagHasDeletion
	}
	complexDel := false
	for _, d := range r.cols {
		if d.del != nil {
			complexDel = true
		}
	}
	if complexDel {
		flags |= flagHasComplexDelete
	}
	if len(r.cols) == len(header) {
		flags |= flagHasAllColumns
	}
	b = append(b, byte(flags))
	if r.static {
		b = append(b, extIsStatic)
	} else {
		b = l.writeClustering(b, r.clustering)
	}
	var body []byte
	if r.marker.present {
		body = l.writeTS(body, r.marker.ts)
		if r.marker.ttl > 0 {
			body = l.writeTTL(body, r.marker.ttl)
			body = l.writeLDT(body, r.marker.ldt)
		}
	}
	if r.del != nil {
		body = l.writeTS(body, r.del.ts)
		body = l.writeLDT(body, r.del.ldt)
	}
	if flags&flagHasAllColumns == 0 {
		body = writeSubset(body, r, header)
	}
	for _, c := range header {
		d := r.cols[c.name]
		if d == nil {
			continue
		}
		if !c.multi {
			body = l.writeCell(body, c, *d.simple, r.marker)
			continue
		}
		if complexDel {
			if d.del != nil {
				body = l.writeTS(body, d.del.ts)
				body = l.writeLDT(body, d.del.ldt)
			} else {
				// DeletionTime.LIVE against the minimums: Long.MIN_VALUE wraps, and
				// Long.MAX_VALUE narrowed to an int is negative: 9 bytes each.
				body = appendVInt(body, uint64(math.MinInt64-l.st.minTS))
				body = appendVInt(body, uint64(int64(int32(math.MaxInt64-l.st.minLDT))))
			}
		}
		body = appendVInt(body, uint64(len(d.cells)))
		for _, e := range d.cells {
			body = l.writeCell(body, c, e, r.marker)
		}
	}
	b = appendVInt(b, uint64(len(body)+vintSize(prev)))
	b = appendVInt(b, prev)
	return append(b, body...)
}

// writeCell appends a cell (Cell.Serializer): flags, timestamp and expiry unless the row's,
// the cell path of an element, then the value unless empty.
func (l *layout) writeCell(b []byte, c *column, e cell, marker liveness) []byte {
	useRowTS := marker.present && e.ts == marker.ts
	useRowTTL := e.expiring() && marker.present && marker.ttl > 0 && e.ttl == marker.ttl && e.ldt == marker.ldt
	flags := 0
	if len(e.value) == 0 {
		flags |= cellEmpty
	}
	if e.tomb {
		flags |= cellDeleted
	} else if e.expiring() {
		flags |= cellExpiring
	}
	if useRowTS {
		flags |= cellRowTS
	}
	if useRowTTL {
		flags |= cellRowTTL
	}
	b = append(b, byte(flags))
	if !useRowTS {
		b = l.writeTS(b, e.ts)
	}
	if (e.tomb || e.expiring()) && !useRowTTL {
		b = l.writeLDT(b, e.ldt)
	}
	if e.expiring() && !useRowTTL {
		b = l.writeTTL(b, e.ttl)
	}
	if c.multi {
		b = appendVInt(b, uint64(len(e.path)))
		b = append(b, e.path...)
		if len(e.value) > 0 {
			// A multi-cell column's cell values are written with the collection type, which
			// has no fixed length: always length-prefixed.
			b = writeValue(b, -1, e.value)
		}
		return b
	}
	if len(e.value) > 0 {
		b = writeValue(b, c.fixed, e.value)
	}
	return b
}

// writeClustering appends a row's clustering (ClusteringPrefix.Serializer): per 32 values a
// vint header of 2 bits a value (empty, null), then each non-empty value.
func (l *layout) writeClustering(b []byte, vals [][]byte) []byte {
	for off := 0; off < len(vals); off += 32 {
		end := off + 32
		if end > len(vals) {
			end = len(vals)
		}
		var h uint64
		for i := off; i < end; i++ {
			if len(vals[i]) == 0 {
				h |= 1 << (uint(i-off) * 2)
			}
		}
		b = appendVInt(b, h)
		for i := off; i < end; i++ {
			if len(vals[i]) > 0 {
				b = writeValue(b, l.ck[i].fixed, vals[i])
			}
		}
	}
	return b
}

// writeSubset appends which header columns a row lacks (Columns.serializeSubset): a bitmap
// of the missing ones under 64 columns; above, their count and the indexes of the smaller
// side.
func writeSubset(b []byte, r *row, header []*column) []byte {
	n := len(header)
	if n < 64 {
		var bits uint64
		for i, c := range header {
			if r.cols[c.name] == nil {
				bits |= 1 << uint(i)
			}
		}
		return appendVInt(b, bits)
	}
	missing := n - len(r.cols)
	b = appendVInt(b, uint64(missing))
	wantPresent := len(r.cols) < n/2
	for i, c := range header {
		present := r.cols[c.name] != nil
		if present == wantPresent {
			b = appendVInt(b, uint64(i))
		}
	}
	return b
}
