package tombstone

import (
	"math"
	"sort"
	"time"
)

// Source is where a tombstone comes from.
type Source int

// Sources of tombstones, in report order.
const (
	RowTombstones      Source = iota // DELETE of a row
	RangeMarkers                     // the two bounds of each range deletion
	CellTombstones                   // DELETE of cells, SET c = null
	ElementTombstones                // removal of collection elements
	NullCells                        // nulls written by INSERT/UPDATE
	ExpiredCells                     // cells whose TTL passed
	ExpiredRows                      // rows whose TTL passed and that have no cell left to count
	ComplexDeletions                 // whole writes of non-frozen collections (not counted by reads)
	PartitionDeletions               // partition deletions (not counted by reads)
	numSources
)

var sourceNames = [...]string{
	"row tombstones", "range tombstone markers", "cell tombstones", "element tombstones",
	"null cells", "expired cells", "expired rows", "complex deletions", "partition deletions",
}

func (s Source) String() string {
	if s < 0 || s >= numSources {
		return "source"
	}
	return sourceNames[s]
}

// Counted reports whether reads count tombstones of this source toward the thresholds.
// Complex deletions and partition deletions shadow data but ReadCommand does not count them.
func (s Source) Counted() bool { return s != ComplexDeletions && s != PartitionDeletions }

// Count is a number of tombstones of one source.
type Count struct {
	Source   Source
	Readable float64 // in the partition and not yet purgeable: what a read can count
	OnDisk   float64 // in sstables, as sstablepartitions counts them, at the least
	PerRead  float64 // what the typical read counts (its worst page)
}

// Snapshot is the state of one partition at one age.
type Snapshot struct {
	Age      time.Duration // time since the partition's first write
	Written  float64       // rows written so far
	LiveRows float64       // rows a read can return
	Readable float64       // tombstones reads would count if they scanned the whole partition
	OnDisk   float64       // tombstones in sstables (sstablepartitions' count), at the least
	PerRead  float64       // tombstones the typical read counts (its worst page)
	ReadRows float64       // live rows the typical read returns
	Pages    int           // pages the typical read takes
	Sources  []Count       // the sources that contribute, in Source order
}

// Result is the tombstone estimate for one table.
type Result struct {
	Table string
	// BucketEnd is the partition when its bucket closes: the state of the current bucket at
	// its worst, and what the typical read sees. For an unbounded partition it is Steady.
	BucketEnd Snapshot
	// Steady is the partition once tombstone creation and purging balance (an unbounded
	// partition after gc_grace_seconds plus the TTL); a bucket that closes sooner never
	// gets there, and Steady is its BucketEnd.
	Steady Snapshot
	// Peak is the partition's worst read over its whole life, including reads of a bucket
	// after it closed, while its rows expire and before their tombstones become purgeable.
	Peak       Snapshot
	Thresholds Thresholds
	Findings   []Finding
}

// Verdict is the most severe finding's severity (OK when there is none over Info).
func (r Result) Verdict() Severity {
	v := OK
	for _, f := range r.Findings {
		if f.Severity > v {
			v = f.Severity
		}
	}
	return v
}

const day = 86400.0

// model is an Input in seconds and per-second rates.
type model struct {
	in        Input
	rate      float64 // rows per second
	bucket    float64 // seconds; +Inf when unbounded
	ttl       float64 // seconds; 0 = none
	gc        float64 // gc_grace_seconds
	linger    float64 // seconds past gc_grace before compaction drops a tombstone
	cells     float64 // live cells per row that expire with a TTL (regular cells written, neither null nor unset, + elements)
	nulls     float64 // null cells per row
	liveness  bool    // rows carry row liveness (INSERT)
	whole     float64 // complex deletions per row (collections written whole)
	page      float64
	limit     float64 // +Inf when no LIMIT
	fraction  float64
	deletes   []Delete
	bucketSet bool
}

func newModel(in Input) model {
	m := model{in: in, rate: in.Writes.RowsPerDay / day, gc: float64(in.Table.GCGraceSeconds)}
	m.bucket = math.Inf(1)
	if in.Writes.Bucket > 0 {
		m.bucket = in.Writes.Bucket.Seconds()
		m.bucketSet = true
	}
	ttl := in.Writes.TTLSeconds
	if ttl == 0 {
		ttl = in.Table.DefaultTTLSeconds
	}
	m.ttl = float64(ttl)
	m.linger = in.Table.Compaction.Linger().Seconds()
	m.nulls = in.Writes.NullFraction * float64(in.Table.RegularColumns)
	// Only the cells a write sets expire with its TTL: nulls are tombstones already, unset
	// columns write nothing.
	unset := in.Writes.UnsetFraction * float64(in.Table.RegularColumns)
	m.cells = math.Max(0, float64(in.Table.RegularColumns)-m.nulls-unset) + float64(in.Table.CollectionColumns)*in.Writes.ElementsPerCollection
	m.liveness = !in.Writes.ByUpdate
	if in.Writes.CollectionsWhole {
		m.whole = float64(in.Table.CollectionColumns)
	}
	m.page = float64(in.Read.PageSize)
	if m.page == 0 {
		m.page = DefaultPageSize
	}
	m.limit = math.Inf(1)
	if in.Read.Limit > 0 {
		m.limit = float64(in.Read.Limit)
	}
	m.fraction = in.Read.Fraction
	if m.fraction == 0 {
		m.fraction = 1
	}
	// Placements are kept as the read meets them: the findings read them too.
	m.in.Deletes = make([]Delete, len(in.Deletes))
	for i, d := range in.Deletes {
		d.At = d.At.in(in.Read)
		m.in.Deletes[i] = d
		if d.Rows == 0 {
			d.Rows = 1
		}
		if d.Cells == 0 {
			d.Cells = 1
		}
		m.deletes = append(m.deletes, d)
	}
	return m
}

// Estimate predicts the tombstones of one table's partitions and the findings they lead to.
// It returns a *FieldError for an input that makes no sense.
func Estimate(in Input) (Result, error) {
	if err := in.Validate(); err != nil {
		return Result{}, err
	}
	if in.Thresholds == (Thresholds{}) {
		in.Thresholds = DefaultThresholds
	}
	m := newModel(in)
	res := Result{Table: in.Table.Name, Thresholds: in.Thresholds}
	steady := m.ttl + m.gc + m.linger
	if steady < day {
		steady = day
	}
	if m.bucketSet {
		res.BucketEnd = m.at(m.bucket)
		res.Steady = res.BucketEnd
		if steady < m.bucket {
			res.Steady = m.at(steady)
		}
	} else {
		res.Steady = m.at(steady)
		res.BucketEnd = res.Steady
	}
	res.Peak = m.peak(steady)
	res.Findings = findings(m, res)
	return res, nil
}

// At is the state of one partition at the given age (time since its first write).
func At(in Input, age time.Duration) (Snapshot, error) {
	if err := in.Validate(); err != nil {
		return Snapshot{}, err
	}
	if age < 0 {
		return Snapshot{}, &FieldError{"age", "must not be negative"}
	}
	return newModel(in).at(age.Seconds()), nil
}

// peak finds the age with the worst typical read. Every count is piecewise linear in the
// age, with breaks where a window boundary (now - gc_grace, now - TTL, ...) crosses the
// start or the end of the writes, so the maximum is at one of those ages; a grid between
// them catches the read's own breaks (a LIMIT reached, a page filled).
func (m model) peak(steady float64) Snapshot {
	end := m.bucket
	if !m.bucketSet {
		end = steady
	}
	horizon := end + m.ttl // the last rows expire then; past it the partition has nothing live
	ages := make([]float64, 0, 64)
	for _, base := range []float64{0, end} {
		for _, off := range []float64{0, m.ttl, m.gc, m.gc + m.ttl, m.gc + m.linger, m.gc + m.linger + m.ttl} {
			for _, eps := range []float64{0, -1} {
				if a := base + off + eps; a > 0 && a <= horizon {
					ages = append(ages, a)
				}
			}
		}
	}
	for i := 1; i <= 32; i++ {
		ages = append(ages, horizon*float64(i)/32)
	}
	sort.Float64s(ages)
	var best Snapshot
	first := true
	for _, a := range ages {
		if a <= 0 {
			continue
		}
		s := m.at(a)
		if first || s.PerRead > best.PerRead+1e-9 {
			best, first = s, false
		}
	}
	return best
}

// interval is [lo, hi) in seconds of partition age.
type interval struct{ lo, hi float64 }

func (iv interval) len() float64 { return math.Max(0, iv.hi-iv.lo) }

func intersect(a, b interval) interval {
	return interval{math.Max(a.lo, b.lo), math.Min(a.hi, b.hi)}
}

// piece is a stretch of write times within which every density is uniform.
type piece struct {
	iv      interval
	written float64
	live    float64
	tomb    [numSources]float64 // readable tombstones lying among this stretch's rows
}

// at computes the snapshot at age t (seconds).
func (m model) at(t float64) Snapshot {
	if m.in.Table.ClusteringColumns == 0 {
		return m.atSingleRow(t)
	}
	w := math.Min(t, m.bucket)
	ts := m.deletions(t, w)
	pieces := m.pieces(t, w, &ts)
	written := m.rate * w
	// Scattered deletions and the rows they remove spread over the rows in proportion.
	for i := range pieces {
		share := 0.0
		if written > 0 {
			share = pieces[i].written / written
		}
		pieces[i].live = math.Max(0, pieces[i].live-ts.deletedRows*share)
		for s := range ts.scattered {
			pieces[i].tomb[s] += ts.scattered[s] * share
		}
	}
	if written == 0 {
		// Nothing written yet to scatter over: scattered tombstones lie among no rows.
		for s := range ts.scattered {
			ts.head[s] += ts.scattered[s]
		}
	}
	return m.snapshot(t, written, pieces, &ts)
}

// tombstones counts a partition's tombstones by source: readable (not yet past gc_grace),
// still on disk, and where the deletions lie among its rows.
type tombstones struct {
	readable, onDisk      [numSources]float64
	head, tail, scattered [numSources]float64
	deletedRows           float64 // rows removed by row and range deletes
}

// deletions counts the deletes of a partition of age t that took writes for w seconds:
// each happens while the partition takes writes, uniformly in time.
func (m model) deletions(t, w float64) tombstones {
	var ts tombstones
	writes := interval{0, w}
	lookback := func(d float64) interval { return intersect(writes, interval{t - d, math.Inf(1)}) }
	delWindow := lookback(m.gc)
	delDisk := lookback(m.gc + m.linger)
	for _, d := range m.deletes {
		perSec := d.PerDay / day
		var src Source
		per := 1.0
		switch d.Kind {
		case PartitionDelete:
			ts.readable[PartitionDeletions] += perSec * delWindow.len()
			continue // not counted by reads, not by sstablepartitions' tombstone count either
		case RowDelete:
			src = RowTombstones
			ts.deletedRows += perSec * writes.len()
		case RangeDelete:
			src, per = RangeMarkers, 2
			ts.deletedRows += perSec * writes.len() * d.Rows
		case CellDelete:
			src, per = CellTombstones, d.Cells
		case ElementDelete:
			src, per = ElementTombstones, d.Cells
		}
		n := perSec * delWindow.len() * per
		ts.readable[src] += n
		ts.onDisk[src] += perSec * delDisk.len() * per
		switch d.At {
		case Head:
			ts.head[src] += n
		case Tail:
			ts.tail[src] += n
		default:
			ts.scattered[src] += n
		}
	}
	return ts
}

// pieces splits the writes of a partition of age t (the first w seconds) at every boundary
// where a density changes, and counts each stretch's live rows and the tombstones that
// expiry and nulls leave among them.
func (m model) pieces(t, w float64, ts *tombstones) []piece {
	cuts := make([]float64, 2, 8)
	cuts[0], cuts[1] = 0, w
	for _, c := range []float64{t - m.ttl, t - m.gc, t - m.gc - m.ttl, t - m.gc - m.linger, t - m.gc - m.linger - m.ttl} {
		if c > 0 && c < w {
			cuts = append(cuts, c)
		}
	}
	sort.Float64s(cuts)
	pieces := make([]piece, 0, len(cuts))
	for i := 0; i+1 < len(cuts); i++ {
		iv := interval{cuts[i], cuts[i+1]}
		if iv.len() <= 0 {
			continue
		}
		p := piece{iv: iv, written: m.rate * iv.len()}
		p.live = p.written
		if m.ttl > 0 {
			m.expire(t, &p, ts)
		}
		recent := m.rate * intersect(iv, interval{t - m.gc, math.Inf(1)}).len()
		p.tomb[NullCells] += recent * m.nulls
		ts.onDisk[NullCells] += m.rate * intersect(iv, interval{t - m.gc - m.linger, math.Inf(1)}).len() * m.nulls
		ts.onDisk[ComplexDeletions] += m.rate * intersect(iv, interval{t - m.gc - m.linger, math.Inf(1)}).len() * m.whole
		ts.readable[ComplexDeletions] += recent * m.whole
		for s := range p.tomb {
			if s != int(RowTombstones) && s != int(RangeMarkers) && s != int(CellTombstones) && s != int(ElementTombstones) {
				ts.readable[s] += p.tomb[s]
			}
		}
		pieces = append(pieces, p)
	}
	return pieces
}

// expire counts what the TTL does to the rows of p at age t: rows written before t - ttl
// have expired.
func (m model) expire(t float64, p *piece, ts *tombstones) {
	iv := p.iv
	exp := m.rate * intersect(iv, interval{math.Inf(-1), t - m.ttl}).len()
	p.live -= exp
	// An expired cell turns into a tombstone dated from its write, so reads stop
	// counting it gc_grace after the write; an expired row liveness is purgeable
	// gc_grace after the expiry. A row counts once only when no cell of it counts.
	cellsLive := m.rate * intersect(iv, interval{t - m.gc, t - m.ttl}).len()
	if m.cells > 0 {
		p.tomb[ExpiredCells] += cellsLive * m.cells
	}
	if m.liveness {
		rowsWindow := intersect(iv, interval{t - m.gc - m.ttl, t - m.ttl})
		if m.cells > 0 {
			rowsWindow = intersect(rowsWindow, interval{math.Inf(-1), t - m.gc})
		}
		p.tomb[ExpiredRows] += m.rate * rowsWindow.len()
		// On disk, sstablepartitions counts each expired row once (its cells share the
		// row's TTL), until compaction drops it gc_grace (+ linger) after the expiry.
		ts.onDisk[ExpiredRows] += m.rate * intersect(iv, interval{t - m.gc - m.linger - m.ttl, t - m.ttl}).len()
	} else {
		ts.onDisk[ExpiredCells] += m.rate * intersect(iv, interval{t - m.gc - m.linger, t - m.ttl}).len() * m.cells
	}
}

// snapshot totals the pieces and the typical read over them into the snapshot at age t.
func (m model) snapshot(t, written float64, pieces []piece, ts *tombstones) Snapshot {
	snap := Snapshot{Age: secs(t), Written: written}
	for _, p := range pieces {
		snap.LiveRows += p.live
	}
	var perRead [numSources]float64
	var readRows float64
	var pages int
	if m.in.Read.Slice == Point {
		perRead, readRows, pages = m.pointRead(pieces, ts)
	} else {
		perRead, readRows, pages = m.read(pieces, ts.head, ts.tail)
	}
	snap.ReadRows, snap.Pages = readRows, pages
	for s := Source(0); s < numSources; s++ {
		c := Count{Source: s, Readable: ts.readable[s], OnDisk: ts.onDisk[s], PerRead: perRead[s]}
		if !s.Counted() {
			c.PerRead = 0
		}
		if c.Readable == 0 && c.OnDisk == 0 && c.PerRead == 0 {
			continue
		}
		snap.Sources = append(snap.Sources, c)
		if s.Counted() {
			snap.Readable += c.Readable
			snap.PerRead += c.PerRead
			snap.OnDisk += c.OnDisk
		} else if s == ComplexDeletions {
			snap.OnDisk += c.OnDisk
		}
	}
	return snap
}

// segment is a stretch of the partition in read order.
type segment struct {
	written float64
	live    float64
	tomb    [numSources]float64
}

// read walks the partition the way the typical read does: from where it starts, over the
// tombstones at the head, through the rows in read order (tombstones spread evenly among
// each piece's live rows), to the tail, stopping when it has LIMIT live rows or at the end
// of its clustering range, in pages of PageSize live rows. It returns the tombstones of its
// worst page by source, the live rows it returns and its page count.
func (m model) read(pieces []piece, head, tail [numSources]float64) (worst [numSources]float64, rows float64, pages int) {
	pg := &pager{page: m.page, limit: m.limit, pending: true}
	for _, s := range m.segments(pieces, head, tail) {
		if pg.done {
			break
		}
		pg.walk(s)
	}
	if pg.curLive > pagerEps || sum(pg.cur) > pagerEps || pg.pending {
		pg.closePage()
	}
	return pg.worst, pg.delivered, pg.pages
}

// segments lays the pieces out in the read's order between the head and the tail, cut to
// the read's clustering range: it covers the first Fraction of the rows, and the tail only
// when it covers them all.
func (m model) segments(pieces []piece, head, tail [numSources]float64) []segment {
	segs := make([]segment, 0, len(pieces)+2)
	segs = append(segs, segment{tomb: head})
	switch m.in.Read.Order {
	case NewestFirst:
		for i := len(pieces) - 1; i >= 0; i-- {
			p := pieces[i]
			segs = append(segs, segment{written: p.written, live: p.live, tomb: p.tomb})
		}
	case OldestFirst:
		for _, p := range pieces {
			segs = append(segs, segment{written: p.written, live: p.live, tomb: p.tomb})
		}
	default:
		// Old and new rows are interleaved: one uniform stretch.
		var all segment
		for _, p := range pieces {
			all.written += p.written
			all.live += p.live
			for s := range p.tomb {
				all.tomb[s] += p.tomb[s]
			}
		}
		segs = append(segs, all)
	}
	if m.in.Read.Slice == AfterCursor {
		segs = afterCursor(segs)
	}
	if m.fraction >= 1 {
		return append(segs, segment{tomb: tail})
	}
	total := 0.0
	for _, s := range segs {
		total += s.written
	}
	budget := m.fraction * total
	var cut []segment
	for _, s := range segs {
		if s.written <= budget+1e-9 {
			cut = append(cut, s)
			budget -= s.written
			continue
		}
		if budget > 0 && s.written > 0 {
			f := budget / s.written
			part := segment{written: budget, live: s.live * f}
			for i := range s.tomb {
				part.tomb[i] = s.tomb[i] * f
			}
			cut = append(cut, part)
		}
		break
	}
	return cut
}

// afterCursor drops what a read that starts after its cursor never meets: the deletions at
// the head and every stretch before the first live row (rows expired or deleted before the
// cursor). A stretch that mixes live and dead rows stays whole: the cursor cannot skip
// the dead rows among the live ones.
func afterCursor(segs []segment) []segment {
	for i, s := range segs {
		if s.live > pagerEps {
			return segs[i:]
		}
	}
	return nil
}

// pointRead is the read of one row by its full primary key: it seeks the row and counts
// only the tombstones in it, whatever the rest of the partition holds. The typical such
// read asks for a live row, which carries its share of the null cells, cell and element
// tombstones (those deleted or expired rows hold are elsewhere); in a partition with no
// live row left it meets one dead row and its share of everything.
func (m model) pointRead(pieces []piece, ts *tombstones) (perRead [numSources]float64, rows float64, pages int) {
	var live, written, nulls float64
	for _, p := range pieces {
		live += p.live
		written += p.written
		if p.written > 0 {
			nulls += p.tomb[NullCells] * p.live / p.written
		}
	}
	if live >= 1 {
		perRead[NullCells] = nulls / live
		perRead[CellTombstones] = math.Min(ts.readable[CellTombstones]/live, float64(m.in.Table.RegularColumns))
		perRead[ElementTombstones] = ts.readable[ElementTombstones] / live
		return perRead, 1, 1
	}
	if written < 1 {
		written = 1
	}
	for s := Source(0); s < numSources; s++ {
		if s.Counted() {
			perRead[s] = ts.readable[s] / written
		}
	}
	return perRead, live, 1
}

const pagerEps = 1e-9

// pager pages through segments as the server does: pages of page live rows until limit.
type pager struct {
	page, limit float64
	worst, cur  [numSources]float64 // the worst page's tombstones, and the current page's
	curLive     float64
	delivered   float64
	pages       int
	// pending is a page the client will fetch: the previous page came back full, so the
	// server sent a paging state, even if nothing (or only tombstones) remains.
	pending bool
	done    bool
}

func (pg *pager) closePage() {
	pg.pages = addPages(pg.pages, 1)
	if sum(pg.cur) > sum(pg.worst)+pagerEps || pg.pages == 1 {
		pg.worst = pg.cur
	}
	pg.cur = [numSources]float64{}
	pg.curLive = 0
	pg.pending = false
}

// walk reads through one segment.
func (pg *pager) walk(s segment) {
	const eps = pagerEps
	if s.live <= eps {
		for i := range pg.cur {
			pg.cur[i] += s.tomb[i]
		}
		return
	}
	left := s.live
	for left > eps {
		want := math.Min(pg.page-pg.curLive, pg.limit-pg.delivered)
		take := math.Min(want, left)
		for i := range pg.cur {
			pg.cur[i] += s.tomb[i] * take / s.live
		}
		pg.curLive += take
		pg.delivered += take
		left -= take
		if pg.delivered >= pg.limit-eps {
			pg.done = true
			return
		}
		if pg.curLive < pg.page-eps {
			continue
		}
		pg.closePage()
		pg.pending = true
		// Every further page that fits in this stretch is the same: take them at once.
		if full := math.Floor(math.Min(left, pg.limit-pg.delivered)/pg.page + eps); full >= 1 {
			var page [numSources]float64
			for i := range page {
				page[i] = s.tomb[i] * pg.page / s.live
			}
			if sum(page) > sum(pg.worst)+eps {
				pg.worst = page
			}
			pg.pages = addPages(pg.pages, full)
			pg.delivered += full * pg.page
			left -= full * pg.page
			if pg.delivered >= pg.limit-eps {
				// The read ends exactly at a page boundary, its LIMIT reached.
				pg.done = true
				pg.pending = false
				return
			}
		}
	}
}

// addPages adds full pages to a page count, saturating at the largest int: a partition of
// 10^20 rows read one row a page has more pages than an int counts.
func addPages(pages int, full float64) int {
	if full >= float64(math.MaxInt-pages) {
		return math.MaxInt
	}
	return pages + int(full)
}

func sum(a [numSources]float64) float64 {
	t := 0.0
	for i, v := range a {
		if Source(i).Counted() {
			t += v
		}
	}
	return t
}

// atSingleRow is at for a table without clustering columns: each write overwrites the one
// row, so only the last write's cells are there (a newer cell shadows an older tombstone),
// and a DELETE of the row is a partition deletion.
func (m model) atSingleRow(t float64) Snapshot {
	w := math.Min(t, m.bucket)
	snap := Snapshot{Age: secs(t), Pages: 1}
	var readable, onDisk [numSources]float64
	within := func(window float64) bool { return w > t-window }
	if m.rate > 0 && w > 0 {
		snap.Written = 1
		expired := m.ttl > 0 && w <= t-m.ttl
		if !expired {
			snap.LiveRows = 1
		}
		if within(m.gc) {
			readable[NullCells] = m.nulls
			readable[ComplexDeletions] = m.whole
		}
		if within(m.gc + m.linger) {
			onDisk[NullCells] = m.nulls
			onDisk[ComplexDeletions] = m.whole
		}
		if expired {
			switch {
			case m.cells > 0 && within(m.gc):
				readable[ExpiredCells] = m.cells
			case m.liveness && within(m.gc+m.ttl):
				readable[ExpiredRows] = 1
			}
			if m.liveness {
				if within(m.gc + m.linger + m.ttl) {
					onDisk[ExpiredRows] = 1
				}
			} else if within(m.gc + m.linger) {
				onDisk[ExpiredCells] = m.cells
			}
		}
	}
	writes := interval{0, w}
	window := func(d float64) float64 { return intersect(writes, interval{t - d, math.Inf(1)}).len() }
	for _, d := range m.deletes {
		perSec := d.PerDay / day
		switch d.Kind {
		case PartitionDelete, RowDelete:
			readable[PartitionDeletions] += perSec * window(m.gc)
		case CellDelete:
			limit := float64(m.in.Table.RegularColumns)
			readable[CellTombstones] += math.Min(limit, perSec*window(m.gc)*d.Cells)
			onDisk[CellTombstones] += math.Min(limit, perSec*window(m.gc+m.linger)*d.Cells)
		case ElementDelete:
			readable[ElementTombstones] += perSec * window(m.gc) * d.Cells
			onDisk[ElementTombstones] += perSec * window(m.gc+m.linger) * d.Cells
		}
	}
	snap.ReadRows = snap.LiveRows
	for s := Source(0); s < numSources; s++ {
		c := Count{Source: s, Readable: readable[s], OnDisk: onDisk[s]}
		if s.Counted() {
			c.PerRead = c.Readable
		}
		if c.Readable == 0 && c.OnDisk == 0 {
			continue
		}
		snap.Sources = append(snap.Sources, c)
		if s.Counted() {
			snap.Readable += c.Readable
			snap.PerRead += c.PerRead
		}
		if s != PartitionDeletions {
			snap.OnDisk += c.OnDisk
		}
	}
	return snap
}
