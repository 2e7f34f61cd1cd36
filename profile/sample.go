package profile

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/tokenscan"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/sizing/disk"
	"github.com/cqlsize/cqlsize/workload"
)

// maxBuckets bounds the distinct time buckets counted per table.
const maxBuckets = 1 << 20

// colReader reads one column of the SELECT: its value (several for a tuple, which the driver
// hands over element by element), and its TTL and WRITETIME when Cassandra allows them.
type colReader struct {
	col    *cql.Column
	out    *Column
	vals   []*raw // one, or one per tuple element
	ttl    *raw
	wt     *raw
	elemWT *raw // a non-frozen collection's element write times (a list<bigint>)
	isMap  bool
	isColl bool
	udt    []string // field names of a non-frozen UDT

	size, items, itemSize, keySize acc
	fields                         map[string]*acc
	nulls, rows                    int
	withRow, apart                 int     // values whose elements were written with their row's other cells, or apart
	onlyApart                      int     // values none of whose elements was written with their row
	elemsWithRow, elemsApart       int     // elements written with their row, or apart from it
	times                          []int64 // the row just scanned's element write times (nil when not read)
}

// metaAllowed reports whether TTL() and WRITETIME() may be selected for c as one value:
// Cassandra refuses them on primary key columns, and gives a non-frozen collection's or
// UDT's element by element. A counter has both (its WRITETIME is its last update's, its TTL
// null), and its write times are what set its timestamps' bytes and its context's clock.
func metaAllowed(c *cql.Column) bool {
	if c.Kind == cql.PartitionKey || c.Kind == cql.Clustering {
		return false
	}
	return !c.Type.MultiCell()
}

type sampler struct {
	t       *cql.Table
	ks      *cql.Keyspace
	stmt    string
	cols    []*colReader
	dest    []any
	token   int64
	pkCount int

	// the partition being read
	cur      bool
	curToken int64
	curKey   []byte
	curRows  int
	curBytes int
	curMinWT int64
	curMaxWT int64

	rowsPer, partBytes, rowBytes, ttl, spread acc
	rowsList                                  []float64
	ttlCells, metaCells                       int64
	ttlSeen                                   map[int64]int64 // cells by the TTL they were written with, up to maxTTLs of them
	rateRows                                  float64
	rateSpan                                  float64
	firstWT, lastWT                           int64
	warn                                      map[string]int
	warnResponses                             int
	maxTomb                                   int
	nowMicros                                 int64
	// began is when the walk started (nowMicros), readMicros when the current row was read:
	// TTL() is the time left when the row is read, so the TTL a cell was written with is
	// that plus the age at the read, not at the start of a walk that can take minutes.
	began      time.Time
	readMicros int64

	hasStatic bool
	bucketCol int            // index in cols of the partition key column naming a time bucket, -1: none
	buckets   map[string]int // its distinct values seen (bounded by maxBuckets), numbered as seen
	keys      map[string]*keyRows
	// partBucket is the bucket of each partition of rowsList (-1: past maxBuckets).
	partBucket []int32
	curBucket  int32
	curKeyNB   string // the partition key without its bucket column
	diskCur    *disk.Partition
	diskParts  []disk.Partition
	diskBytes  int
}

func newSampler(ks *cql.Keyspace, t *cql.Table, now time.Time) *sampler {
	sm := &sampler{t: t, ks: ks, warn: map[string]int{}, nowMicros: now.UnixMicro(), bucketCol: -1, began: time.Now()}
	if _, col, ok := sizing.TableBucket(t); ok {
		for i, c := range t.PartitionKey {
			if c.Name == col {
				sm.bucketCol, sm.buckets, sm.keys = i, map[string]int{}, map[string]*keyRows{}
			}
		}
	}
	var pk []string
	for _, c := range t.PartitionKey {
		pk = append(pk, cql.QuoteName(c.Name))
	}
	sm.pkCount = len(t.PartitionKey)
	sel := []string{"token(" + strings.Join(pk, ", ") + ")"}
	sm.dest = []any{&sm.token}
	order := append(append([]*cql.Column{}, t.PartitionKey...), t.Clustering...)
	for _, c := range t.Columns {
		if c.Kind == cql.Static || c.Kind == cql.Regular {
			order = append(order, c)
		}
		if c.Kind == cql.Static {
			sm.hasStatic = true
		}
	}
	var meta []string
	for _, c := range order {
		r := &colReader{col: c, out: &Column{Name: c.Name, Type: c.Type.String(), Kind: kindName(c.Kind)}}
		r.isColl = c.Type.IsCollection()
		r.isMap = c.Type.Kind == cql.Map
		if c.Type.Kind == cql.UDT && !c.Type.Frozen {
			if ut := ks.Types[c.Type.Name]; ut != nil {
				for _, f := range ut.Fields {
					r.udt = append(r.udt, f.Name)
				}
				r.fields = map[string]*acc{}
			}
		}
		n := 1
		if c.Type.Kind == cql.Tuple {
			n = max(1, len(c.Type.Params))
		}
		for i := 0; i < n; i++ {
			v := &raw{}
			r.vals = append(r.vals, v)
			sm.dest = append(sm.dest, v)
		}
		sel = append(sel, cql.QuoteName(c.Name))
		if metaAllowed(c) {
			r.out.TTLRead = true
			r.ttl, r.wt = &raw{}, &raw{}
			meta = append(meta, "TTL("+cql.QuoteName(c.Name)+")", "WRITETIME("+cql.QuoteName(c.Name)+")")
		} else if c.Type.MultiCell() && c.Type.IsCollection() {
			// Cassandra 5.0 gives a non-frozen collection's write times element by element:
			// elements written apart from their row are element updates, not whole writes.
			r.elemWT = &raw{}
			meta = append(meta, "WRITETIME("+cql.QuoteName(c.Name)+")")
		}
		sm.cols = append(sm.cols, r)
	}
	for _, r := range sm.cols {
		if r.ttl != nil {
			sm.dest = append(sm.dest, r.ttl, r.wt)
		}
		if r.elemWT != nil {
			sm.dest = append(sm.dest, r.elemWT)
		}
	}
	sel = append(sel, meta...)
	tok := "token(" + strings.Join(pk, ", ") + ")"
	sm.stmt = fmt.Sprintf("SELECT %s FROM %s.%s WHERE %s > ? AND %s <= ?", strings.Join(sel, ", "),
		cql.QuoteName(t.Keyspace), cql.QuoteName(t.Name), tok, tok)
	return sm
}

func kindName(k cql.ColumnKind) string {
	switch k {
	case cql.PartitionKey:
		return "partition_key"
	case cql.Clustering:
		return "clustering"
	case cql.Static:
		return "static"
	}
	return "regular"
}

// profileTable walks the ring of one table. On an error it still returns what it read.
func profileTable(ctx context.Context, s *gocql.Session, o Options, t *cql.Table, b *tokenscan.Limiter) (*Table, error) {
	began := time.Now()
	ks := &cql.Keyspace{Types: map[string]*cql.UserType{}}
	if o.typesOf != nil {
		ks = o.typesOf
	}
	sm := newSampler(ks, t, o.Now())
	tp := &Table{Keyspace: t.Keyspace, Name: t.Name, Schema: t, Columns: []*Column{}}
	var cuts []slice
	quota := o.Sample
	if o.Full {
		// Equal slices rather than one: a range no replica can serve then costs its slice,
		// not the rest of the scan.
		cuts, quota = evenSlices(fullSlices), 0
	} else {
		k := min(max(1, o.Sample/10), 256)
		cuts = slices(k, o.Seed)
	}
	total := quota
	var err error
	tracer := &traceIDs{}
	walked, tracedParts := 0, 0
	failed, failedWidth := 0, 0.0
	var failedTime time.Duration
	var firstErr error
	// Each pass walks every slice not yet walked to its end, from where it stopped, with an
	// even share of the partitions still wanted: a slice that runs dry leaves its share to
	// the others, and a table smaller than the sample is read whole.
	left := cuts
walk:
	for len(left) > 0 {
		var next []slice
		for i, sl := range left {
			want := 0
			if quota > 0 {
				if tp.PartitionsSeen >= quota {
					break walk
				}
				want = (quota - tp.PartitionsSeen + len(left) - i - 1) / (len(left) - i)
			}
			var reached int64
			var tr gocql.Tracer
			if !o.NoTrace && tracing(walked, tracedParts) {
				tr = tracer
			}
			walked++
			sliceStart := time.Now()
			before := tp.PartitionsSeen
			reached, err = sm.walk(ctx, s, o, sl, want, b, tr, func() {
				tp.PartitionsSeen++
				if o.Progress != nil {
					o.Progress(t.Name, tp.PartitionsSeen, total)
				}
			})
			tp.RingFraction += width(sl.lo, reached)
			if tr != nil {
				tracedParts += tp.PartitionsSeen - before
			}
			if err != nil {
				if ctx.Err() != nil || tokenscan.Refused(err) {
					break walk
				}
				// A range no replica answered for (a node down, a timeout): skip the
				// slice, say so, and go on with the others.
				failed++
				failedWidth += width(reached, sl.hi)
				if firstErr == nil {
					firstErr = err
				}
				err = nil
				failedTime += time.Since(sliceStart)
				if failedTime > maxFailedTime {
					for _, rest := range left[i+1:] {
						failedWidth += width(rest.lo, rest.hi)
					}
					firstErr = fmt.Errorf("gave up after %d slices failed in %s: %w", failed, failedTime.Round(time.Second), firstErr)
					break walk
				}
				continue
			}
			if reached < sl.hi {
				next = append(next, slice{reached, sl.hi})
			}
		}
		left = next
	}
	if err == nil && failed > 0 {
		err = fmt.Errorf("%d slice(s) of the ring (%.3g%%) could not be read: %w", failed, 100*failedWidth, firstErr)
	}
	sm.finish(tp, o)
	if len(tracer.ids) > 0 {
		tctx, cancel := context.WithTimeout(ctx, o.Timeout)
		got, terr := readTraces(tctx, s, tracer.ids)
		cancel()
		tp.Tombstones.traced(got, tracedParts)
		switch {
		case terr != nil:
			tp.Tombstones.TraceProblem = terr.Error()
		case got.missing > 0:
			tp.Tombstones.TraceProblem = fmt.Sprintf("%d of %d traced requests not written to system_traces within 5 s", got.missing, len(tracer.ids))
		}
	}
	tp.Elapsed = Seconds(time.Since(began).Seconds())
	return tp, err
}

// walk reads slice sl from its start until want partitions are complete (0: all of it) and
// returns the last token it covered.
func (sm *sampler) walk(ctx context.Context, s *gocql.Session, o Options, sl slice, want int, b *tokenscan.Limiter, tr gocql.Tracer, done func()) (int64, error) {
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := s.Query(sm.stmt, sl.lo, sl.hi).WithContext(qctx).Consistency(o.Consistency).
		PageSize(o.PageSize).Idempotent(true)
	if tr != nil {
		q = q.Trace(tr)
	}
	iter := q.Iter()
	got := 0
	reached := sl.lo
	var lastWarn *string
	for {
		if err := b.Take(ctx, 1); err != nil {
			iter.Close()
			return reached, err
		}
		if !iter.Scan(sm.dest...) {
			break
		}
		// Warnings belong to a response: count each page's once.
		if ws := iter.Warnings(); len(ws) > 0 && &ws[0] != lastWarn {
			lastWarn = &ws[0]
			sm.warnings(ws)
		}
		if sm.cur && sm.token != sm.curToken || sm.cur && !bytes.Equal(sm.keyBytes(), sm.curKey) {
			sm.endPartition()
			done()
			got++
			reached = sm.curToken
			if want > 0 && got >= want {
				iter.Close()
				return reached, nil
			}
		}
		sm.row()
	}
	err := iter.Close()
	if err != nil {
		// The partition being read may be cut short: leave it out.
		sm.cur, sm.diskCur = false, nil
		return reached, err
	}
	if sm.cur {
		sm.endPartition()
		done()
	}
	sm.cur = false
	return sl.hi, nil
}

func (sm *sampler) keyBytes() []byte {
	var k []byte
	for _, r := range sm.cols[:sm.pkCount] {
		k = append(k, r.vals[0].data...)
		k = append(k, 0xff)
	}
	return k
}

// tombstoneWarning is Cassandra's warning for a read over tombstone_warn_threshold
// ("Read 3 live rows and 1500 tombstone cells for query ...").
var tombstoneWarning = regexp.MustCompile(`(\d+) tombstone`)

func (sm *sampler) warnings(ws []string) {
	if len(ws) == 0 {
		return
	}
	sm.warnResponses++
	for _, w := range ws {
		key := w
		if len(key) > 300 {
			key = key[:300] + "..."
		}
		sm.warn[key]++
		if m := tombstoneWarning.FindStringSubmatch(w); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > sm.maxTomb {
				sm.maxTomb = n
			}
		}
	}
}

// row adds the row just scanned to the partition being read.
func (sm *sampler) row() {
	sm.readMicros = sm.nowMicros + time.Since(sm.began).Microseconds()
	first := !sm.cur
	if first {
		sm.cur = true
		sm.curToken = sm.token
		sm.curKey = sm.keyBytes()
		sm.curRows, sm.curBytes = 0, 0
		sm.curMinWT, sm.curMaxWT = 0, 0
		if sm.bucketCol >= 0 {
			sm.startBucketed()
		}
	}
	// A partition with only a static row (or nothing but its key) reads as one row with
	// null clustering columns: it holds no rows.
	hasRow := len(sm.t.Clustering) == 0 || !sm.cols[sm.pkCount].vals[0].null
	rowBytes := 0
	var rowWT int64
	for _, r := range sm.cols {
		c := r.col
		r.times = r.times[:0]
		perPartition := c.Kind == cql.PartitionKey || c.Kind == cql.Static
		if perPartition && !first {
			continue
		}
		if !perPartition && !hasRow {
			continue
		}
		n := r.observe()
		r.readTimes()
		if c.Kind != cql.PartitionKey && c.Kind != cql.Static {
			rowBytes += n
		}
		if perPartition {
			sm.curBytes += n
		}
		if r.wt != nil {
			if w, ok := r.wt.int64(); ok {
				rowWT = max(rowWT, w)
				sm.metaCells++
				if ttl, ok := r.ttl.int64(); ok && ttl > 0 {
					sm.ttlCells++
					written := float64(ttl) + float64(sm.readMicros-w)/1e6
					sm.ttl.add(written)
					sm.ttlWritten(written)
				}
			}
		}
	}
	lo, hi := sm.elementSpan()
	if rowWT == 0 {
		// No simple cell to read the row's write time from: the time most of its elements
		// share is the write that made the row (an INSERT writes them all at once).
		rowWT = commonTime(sm.cols, false)
	}
	if hasRow && rowWT != 0 {
		sm.elementTimes(rowWT)
	}
	sm.keepForDisk(first, hasRow)
	if lo != 0 {
		// Elements written apart from their row carry their own write times, which Cassandra
		// stores as deltas like any other: they span the partition's writes too.
		if sm.curMinWT == 0 || lo < sm.curMinWT {
			sm.curMinWT = lo
		}
		sm.curMaxWT = max(sm.curMaxWT, hi)
	}
	if hasRow {
		sm.curRows++
		sm.curBytes += rowBytes
		sm.rowBytes.add(float64(rowBytes))
	}
	if rowWT != 0 {
		if sm.curMinWT == 0 || rowWT < sm.curMinWT {
			sm.curMinWT = rowWT
		}
		sm.curMaxWT = max(sm.curMaxWT, rowWT)
	}
}

func (sm *sampler) endPartition() {
	sm.cur = false
	if sm.diskCur != nil {
		sm.diskParts = append(sm.diskParts, *sm.diskCur)
		sm.diskCur = nil
	}
	sm.rowsPer.add(float64(sm.curRows))
	sm.rowsList = append(sm.rowsList, float64(sm.curRows))
	if sm.bucketCol >= 0 {
		sm.endBucketed()
	}
	sm.partBytes.add(float64(sm.curBytes))
	if sm.curMaxWT != 0 {
		span := float64(sm.curMaxWT-sm.curMinWT) / 1e6
		sm.spread.add(span)
		if sm.curRows >= 2 && span > 0 {
			sm.rateRows += float64(sm.curRows - 1)
			sm.rateSpan += span
		}
		if sm.firstWT == 0 || sm.curMinWT < sm.firstWT {
			sm.firstWT = sm.curMinWT
		}
		sm.lastWT = max(sm.lastWT, sm.curMaxWT)
	}
}

// observe measures the column's value in the row just scanned and returns its bytes.
func (r *colReader) observe() int {
	r.rows++
	v := r.vals[0]
	if len(r.vals) > 1 { // a tuple, element by element: each int32 length + bytes
		n, null := 0, true
		for _, e := range r.vals {
			n += 4 + len(e.data)
			null = null && e.null
		}
		if null {
			r.nulls++
			return 0
		}
		r.size.add(float64(n))
		return n
	}
	if v.null {
		r.nulls++
		return 0
	}
	n := len(v.data)
	switch {
	case r.isColl:
		c, err := decodeCollection(v.data, r.isMap)
		if err == nil {
			r.items.add(float64(c.count))
			elems := 0
			for i, l := range c.vals {
				r.itemSize.add(float64(l))
				elems += l
				if r.isMap {
					r.keySize.add(float64(c.keys[i]))
					elems += c.keys[i]
				}
			}
			if r.col.Type.MultiCell() {
				n = elems // stored as one cell per element: the header is not on disk
			}
		}
	case r.fields != nil:
		if fs, err := decodeFields(v.data); err == nil {
			n = 0
			for i, l := range fs {
				if i < len(r.udt) && l >= 0 {
					a := r.fields[r.udt[i]]
					if a == nil {
						a = &acc{}
						r.fields[r.udt[i]] = a
					}
					a.add(float64(l))
					n += l
				}
			}
		}
	}
	r.size.add(float64(n))
	return n
}

// finish turns the accumulators into the table's figures.
func (sm *sampler) finish(tp *Table, o Options) {
	tp.diskSample = sm.diskParts
	tp.types = o.typesOf
	tp.BucketsSeen = len(sm.buckets)
	if sm.bucketCol >= 0 {
		tp.keySample = sm.keySummary()
	}
	tp.RowsPerPartition = sm.rowsPer.dist()
	tp.PartitionBytes = sm.partBytes.dist()
	tp.RowBytes = sm.rowBytes.dist()
	for _, p := range sm.rowsList {
		tp.RowsSeen += int64(p)
	}
	tp.Skew = FitSkew(sm.rowsList, tp.RingFraction)
	tp.TTL = sm.ttl.dist()
	if sm.metaCells > 0 {
		tp.TTLFraction = float64(sm.ttlCells) / float64(sm.metaCells)
		tp.TTLs = ttlPopulations(sm.ttlSeen, sm.metaCells)
	}
	tp.WriteSpread = sm.spread.dist()
	var bucket workload.Span
	if w, _, ok := sizing.TableBucket(sm.t); ok {
		bucket = w
	}
	bulk := ""
	if sm.rateSpan > 0 {
		bulk = unmeasurableRate(float64(sm.lastWT-sm.firstWT)/1e6, len(sm.buckets), bucket)
	}
	switch {
	case bulk != "":
		tp.WriteRateSource = bulk
	case sm.rateSpan > 0:
		tp.WriteRate = sm.rateRows / sm.rateSpan
		tp.WriteRateSource = fmt.Sprintf("WRITETIME over %d partitions: rows after the first / the span of their write times", sm.spread.n)
	case tp.RowsSeen == 0:
		tp.WriteRateSource = "unknown: no rows were read"
	case sm.metaCells == 0:
		tp.WriteRateSource = "unknown: the table has no column WRITETIME can be read from"
	default:
		tp.WriteRateSource = "unknown: no sampled partition has rows written at two different times"
	}
	if sm.firstWT != 0 {
		tp.FirstWrite = time.UnixMicro(sm.firstWT).UTC()
		tp.LastWrite = time.UnixMicro(sm.lastWT).UTC()
	}
	tp.Tombstones.Warnings = []string{}
	for w := range sm.warn {
		tp.Tombstones.Warnings = append(tp.Tombstones.Warnings, w)
	}
	tp.Tombstones.WarnResponses = sm.warnResponses
	tp.Tombstones.Max = sm.maxTomb
	for _, r := range sm.cols {
		c := r.out
		if r.rows > 0 {
			c.NullFraction = float64(r.nulls) / float64(r.rows)
		}
		c.Rows = r.rows
		c.Size = r.size.dist()
		if n := r.withRow + r.apart; n > 0 {
			c.ElementsChecked, c.ElementsApart = n, float64(r.apart)/float64(n)
			c.ElementsOnlyApart = float64(r.onlyApart) / float64(n)
		}
		if n := r.elemsWithRow + r.elemsApart; n > 0 {
			c.ElementShareApart = float64(r.elemsApart) / float64(n)
		}
		if r.isColl {
			it, is := r.items.dist(), r.itemSize.dist()
			c.Items, c.ItemSize = &it, &is
			if r.isMap {
				k := r.keySize.dist()
				c.KeySize = &k
			}
		}
		if r.fields != nil {
			c.Fields = map[string]Dist{}
			for name, a := range r.fields {
				c.Fields[name] = a.dist()
			}
		}
		tp.Columns = append(tp.Columns, c)
	}
}
