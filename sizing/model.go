package sizing

import (
	"math"

	"github.com/cqlsize/cqlsize/workload"
)

// The byte model of a partition in a BIG "nb" sstable (Cassandra 5.0 with
// storage_compatibility_mode: CASSANDRA_4, the default). What each element costs, and where
// in apache/cassandra 5.0 it is written:
//
//	partition key        u16 length + key; a composite key is, per component,
//	                     u16 length + bytes + 1 end-of-component byte   (SortedTablePartitionWriter.start,
//	                                                                     CompositeType.build)
//	partition deletion   12: 8-byte timestamp + 4-byte local deletion time, live or not
//	                     (DeletionTime.LegacySerializer; "oa"/BTI would write 1 when live)
//	static row           flags + extended flags + vint size + vint previous size (0) + cells;
//	                     no row marker, so every static cell carries its timestamp
//	row                  flags (1) + clustering + vint size + vint previous-unfiltered size
//	                     + [row marker] + [column subset] + cells        (UnfilteredSerializer)
//	clustering           per 32 columns a vint header (1 byte when no value is null or empty),
//	                     then each value: fixed-length types as is, others vint length + bytes
//	                     (ClusteringPrefix.Serializer.serializeValuesWithoutSize)
//	row marker           INSERT only: vint timestamp delta; with a TTL also vint TTL delta and
//	                     vint local-deletion-time delta                  (UpdateStatement.addUpdateForKey)
//	column subset        nothing when the row has every column of the sstable's header;
//	                     else a vint bitmap of the missing ones (< 64 columns) (Columns.serializeSubset)
//	simple cell          flags (1) + [vint timestamp delta unless the row marker's]
//	                     + [vint ldt + vint TTL when expiring or deleted, unless the row's]
//	                     + [value: fixed, or vint length + bytes; nothing when empty] (Cell.Serializer)
//	complex column       [deletion: vint ts + vint ldt when the row has any] + vint cell count
//	                     + cells, each with a cell path (vint length + bytes): a list element's
//	                     16-byte timeuuid, a set element (value empty), a map key, a UDT field's
//	                     2-byte index                                    (UnfilteredSerializer.writeComplexColumn,
//	                                                                     CollectionType, UserType)
//	range marker         flags + kind + u16 size + clustering prefix + vint size + vint previous
//	                     size + deletion time (vint ts + vint ldt)       (ClusteringBoundOrBoundary.Serializer)
//	end of partition     1
//
// Timestamps, local deletion times and TTLs are deltas from the sstable's minimum
// (SerializationHeader.writeTimestamp and friends), which is why the write spread matters.
// An INSERT of a non-frozen collection first deletes the old one (a complex deletion at
// timestamp-1), so such rows carry a collection tombstone.
//
// What Cassandra reports as a partition's size is exactly these bytes: sstablepartitions prints
// the distance between partition starts in Data.db, and SortedTableWriter.endPartition feeds
// the same figure to the partition-size histogram. The row index of a partition over 64 KiB
// (column_index_size) lives in Index.db, not in Data.db, and is not counted.

// liveDeletionBytes is what a complex column without a deletion of its own costs in a row where
// another complex column has one: DeletionTime.LIVE written as deltas from the sstable's
// minimums. Long.MIN_VALUE - minTimestamp wraps to a 63-bit value (9 bytes), and
// (int)(Long.MAX_VALUE - minLocalDeletionTime) is negative, which writeUnsignedVInt32
// sign-extends to 9 bytes as well.
const liveDeletionBytes = 18

// shape holds the per-row byte costs of a plan, worked out once.
type shape struct {
	key         float64 // partition key bytes, with its u16 length
	header      float64 // key + partition deletion
	static      float64 // static row bytes (0 when the table writes no static column)
	emptyStatic float64 // an empty static row: every partition carries one when any has static data
	staticCells float64
	staticRaw   float64 // classic: sum of static value sizes

	ck    float64 // clustering bytes of a row
	ckRaw float64 // classic: sum of clustering value sizes

	row          float64 // an average live row
	rowCells     float64 // cells of an average live row (null tombstones included)
	rowNullTombs float64 // null tombstone cells of an average row
	rowComplex   float64 // collection tombstones of an average row
	rowEmpty     float64 // chance a row is written with no cell: only its liveness (see Partition.StoredValues)
	rowRaw       float64 // classic: sum of regular value sizes
	rowValues    float64 // classic: regular columns (Nc - Npk - Ns)

	largestCell float64 // bytes of the largest value (a collection counts whole)

	tombRow    float64 // a row deleted by DELETE (its cells purged at compaction)
	expiredRow float64 // a row whose TTL has run out, as compaction rewrites it (expired_rows)
	marker     float64 // one range tombstone marker

	liveCell map[string]float64 // bytes of a live cell of a simple column (or of one element)
	tombCell map[string]float64 // bytes of that cell once deleted
}

func (p *plan) shape() *shape {
	s := &shape{liveCell: map[string]float64{}, tombCell: map[string]float64{}}
	p.shapeKeys(s)
	cs := &cellSizer{p: p, s: s, tombMode: p.w.NullsAs == workload.NullTombstone}
	if p.ttl > 0 {
		// Expiring-cell overhead when the cell cannot borrow the row marker's TTL.
		cs.cellTTL = p.enc.ldtExp + p.enc.ttl
	}
	update := p.w.Writes == workload.Update
	p.shapeStatic(s, cs, update)
	p.shapeRow(s, cs, update)
	p.shapeDeletions(s)
	return s
}

// shapeKeys sizes the partition key (and the partition header it starts) and a row's
// clustering.
func (p *plan) shapeKeys(s *shape) {
	if len(p.pk) == 1 {
		s.key = p.pk[0].raw
	} else {
		for _, k := range p.pk {
			s.key += 2 + k.raw + 1
		}
	}
	s.key += 2
	s.header = s.key + 12

	if n := len(p.ck); n > 0 {
		s.ck = math.Ceil(float64(n) / 32)
		for _, k := range p.ck {
			s.ck += written(k.col.Type, k.raw)
			s.ckRaw += k.raw
		}
	}
}

// cellSizer sizes the cells of a row or of the static row, recording each simple column's
// live and deleted cell sizes in s.
type cellSizer struct {
	p        *plan
	s        *shape
	cellTTL  float64 // expiring-cell overhead of a cell with its own timestamp (0 without a TTL)
	tombMode bool    // nulls are written as tombstones
}

// cost is the bytes of one live cell of cp and of the same cell deleted. A cell written with
// its row borrows the row marker's timestamp and TTL; an element written apart from its row
// (element_writes:) carries its own, as every cell of a row UPDATE writes does.
func (c *cellSizer) cost(cp *colPlan, ownTimestamp bool) (live, tomb float64) {
	e := c.p.enc
	live, tomb = 1, 1+e.ldtTomb
	if ownTimestamp {
		live += e.ts + c.cellTTL
		tomb += e.ts
	} else if cp.multi {
		apart := math.Min(1, c.p.w.ElementWrites[cp.col.Name])
		live += apart * (e.ts + c.cellTTL)
	}
	if cp.multi {
		live += cp.path + cp.elemValue
		tomb += cp.path
	} else {
		live += cp.value
	}
	return live, tomb
}

// deletions is the chance of a complex deletion in each collection column of cols, and
// the chance that the row has none: an INSERT deletes every collection it writes (null or
// not); otherwise a null collection is a deletion and an overwrite adds one.
func (c *cellSizer) deletions(cols []*colPlan, insert bool) (pDel map[*colPlan]float64, pNone float64) {
	pDel = map[*colPlan]float64{}
	pNone = 1.0
	for _, cp := range cols {
		if !cp.multi {
			continue
		}
		present := 1 - cp.missing
		var d float64
		switch {
		case insert && c.p.w.ElementWrites[cp.col.Name] >= 1:
			// An INSERT that leaves the collection to element updates writes nothing of it.
			d = present * c.p.overwriteShare(cp)
		case insert:
			d = present
			if c.tombMode {
				d = 1
			}
		default:
			if c.tombMode {
				d = cp.missing
			}
			d += present * c.p.overwriteShare(cp)
		}
		pDel[cp] = d
		pNone *= 1 - d
	}
	return pDel, pNone
}

// cells is the expected bytes, cells, null tombstones and collection tombstones of a
// row's (or the static row's) columns.
func (c *cellSizer) cells(cols []*colPlan, ownTimestamp, insert bool) (bytes, cells, nullTombs, complexTombs float64) {
	e, s := c.p.enc, c.s
	pDel, pNone := c.deletions(cols, insert)
	pAnyDel := 1 - pNone
	for _, cp := range cols {
		live, tomb := c.cost(cp, ownTimestamp)
		s.liveCell[cp.col.Name], s.tombCell[cp.col.Name] = live, tomb
		present := 1 - cp.missing
		if !cp.multi {
			bytes += present * live
			cells += present
			if c.tombMode {
				bytes += cp.missing * tomb
				cells += cp.missing
				nullTombs += cp.missing
			}
			continue
		}
		d := pDel[cp]
		// The column is in the row when it has elements or a deletion.
		inRow := present
		if c.tombMode {
			inRow = 1
		}
		bytes += present * (vintOf(cp.elems) + cp.elems*live)
		if c.tombMode {
			bytes += cp.missing * 1 // vint(0): a null collection is a deletion with no cells
		}
		cells += present * cp.elems
		bytes += d * (e.ts + e.ldtTomb)
		complexTombs += d
		// A row with any complex deletion writes one for every complex column it has.
		if pAnyDel > 0 && d < inRow {
			otherDel := pAnyDel
			if d < 1 {
				otherDel = 1 - pNone/(1-d)
			}
			bytes += (inRow - d) * otherDel * liveDeletionBytes
		}
	}
	return bytes, cells, nullTombs, complexTombs
}

// shapeStatic sizes the static row, when the table writes any static column.
func (p *plan) shapeStatic(s *shape, cs *cellSizer, update bool) {
	if !writesAny(p.static) {
		return
	}
	body, cells, _, _ := cs.cells(p.static, true, !update)
	body += p.subsetBytes(p.static)
	size := body + 1 // previous-unfiltered size: 0
	s.static = 2 + vintOf(size) + size
	s.staticCells = cells
	// flags, extended flags, size, previous size (0), a bitmap saying every column is missing.
	s.emptyStatic = 2 + 1 + 1 + math.Ceil(float64(len(p.headerColumns(p.static)))/7)
	for _, cp := range p.static {
		s.staticRaw += cp.raw
	}
}

// shapeRow sizes an average live row, and what the classic formula counts of it.
func (p *plan) shapeRow(s *shape, cs *cellSizer, update bool) {
	e := p.enc
	body, cells, nullTombs, complexTombs := cs.cells(p.regular, update, !update)
	if !update {
		body += e.ts
		if p.ttl > 0 {
			body += e.ttl + e.ldtExp
		}
	}
	body += p.subsetBytes(p.regular)
	s.row = rowTotal(s.ck, body)
	s.rowCells, s.rowNullTombs, s.rowComplex = cells, nullTombs, complexTombs
	for _, cp := range p.regular {
		s.rowRaw += (1 - cp.missing) * cp.raw
		s.largestCell = math.Max(s.largestCell, cp.raw)
	}
	s.rowValues = float64(len(p.regular))
	// A row INSERT writes with no cell still stores its primary key liveness (the row
	// marker: a timestamp, and a TTL when expiring). Every regular column is then absent:
	// left unset, or none to write (a key-only table). A null written as null is a cell.
	if !update {
		s.rowEmpty = 1
		for _, cp := range p.regular {
			if cs.tombMode {
				s.rowEmpty = 0
				break
			}
			s.rowEmpty *= cp.missing
		}
	}
}

// shapeDeletions sizes a deleted row and a range tombstone marker.
func (p *plan) shapeDeletions(s *shape) {
	e := p.enc
	// A deleted row: its deletion time, and a bitmap saying every column is missing.
	tomb := e.ts + e.ldtTomb
	if n := len(p.headerColumns(p.regular)); n > 0 {
		if n < 64 {
			tomb += math.Ceil(float64(n) / 7)
		} else {
			tomb += vintOf(float64(n))
		}
	}
	s.tombRow = rowTotal(s.ck, tomb)

	// An expired row: compaction keeps its primary key liveness (timestamp, TTL, expiry) and
	// turns each cell into a tombstone (flags and a deletion time, the write time; the row's
	// timestamp), dropping the value (Cell.purge). Its TTL and expiry are the sstable's
	// minimums (the soonest to expire), 1 byte each over a write spread within seconds; the
	// compaction that converts the cells takes its minimum deletion time from the expiring
	// cells it reads, so a tombstone's deletion time (TTL earlier) is a negative delta: 9 bytes.
	expired := e.ts + 1 + e.ldtTomb + s.rowCells*(1+9) + p.subsetBytes(p.regular)
	s.expiredRow = rowTotal(s.ck, expired)

	// A range tombstone marker bounding the first clustering column.
	if len(p.ck) > 0 {
		bound := 1 + written(p.ck[0].col.Type, p.ck[0].raw)
		mbody := e.ts + e.ldtTomb
		mbody += vintOf(s.row) // previous-unfiltered size: a row's
		s.marker = 1 + 1 + 2 + bound + vintOf(mbody) + mbody
	}
}

// rowTotal is a row's size from its clustering and body bytes: flags, clustering, the vint row
// size, and the body after the vint size of the previous row (taken to be this row's size).
func rowTotal(ck, body float64) float64 {
	total := 1 + ck + 2 + body + 1
	for i := 0; i < 3; i++ { // settle the two vints on the size they describe
		size := body + vintOf(total)
		total = 1 + ck + vintOf(size) + size
	}
	return total
}

// writesAny reports whether any of cols is ever written.
func writesAny(cols []*colPlan) bool {
	for _, c := range cols {
		if c.missing < 1 {
			return true
		}
	}
	return false
}

// headerColumns are the columns an sstable's header lists: the ones written at least once
// (a null bound in a write is a tombstone cell, which is written).
func (p *plan) headerColumns(cols []*colPlan) []*colPlan {
	var out []*colPlan
	for _, c := range cols {
		if c.missing < 1 || p.w.NullsAs == workload.NullTombstone {
			out = append(out, c)
		}
	}
	return out
}

// subsetBytes is the expected size of a row's column-subset bitmap. Only a column left unset
// is missing from a row; a null bound in a write is a tombstone cell, which is present.
func (p *plan) subsetBytes(cols []*colPlan) float64 {
	hdr := p.headerColumns(cols)
	if p.w.NullsAs == workload.NullTombstone {
		// Every header column is present in every row: HAS_ALL_COLUMNS, no bitmap.
		return 0
	}
	n := len(hdr)
	if n == 0 {
		return 0
	}
	if n >= 64 {
		// Large subsets: vint(missing count), then the indexes of the smaller side.
		var missing float64
		for _, c := range hdr {
			missing += c.missing
		}
		if missing == 0 {
			return 0
		}
		smaller := math.Min(missing, float64(n)-missing)
		return vintOf(missing) + smaller*vintOf(float64(n)/2)
	}
	// Bitmap of missing columns, bit i for the i-th header column: its vint size is set by
	// the highest missing column. P(highest = h) = q_h · Π_{j>h}(1-q_j).
	var e float64
	above := 1.0
	for h := n - 1; h >= 0; h-- {
		q := hdr[h].missing
		e += above * q * math.Ceil(float64(h+1)/7)
		above *= 1 - q
	}
	return e
}

// overwriteShare is the fraction of rows whose collection cp was replaced whole at least once
// (each replacement leaves a collection tombstone in the row): the overwrites a partition
// receives over its life, spread over its rows.
func (p *plan) overwriteShare(cp *colPlan) float64 {
	r, ok := p.w.Overwrites[cp.col.Name]
	if !ok || r.IsZero() || p.avgRows <= 0 {
		return 0
	}
	return math.Min(1, r.Over(p.life(0))/p.avgRows)
}
