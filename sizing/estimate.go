package sizing

import (
	"fmt"
	"math"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// Options tune an estimate.
type Options struct {
	Target Target      // limits to check (default cassandra-5.0)
	Schema *cql.Schema // resolves user-defined types; may be nil
	// GrowthPoints is how many points the growth series has (default 11: the start, every
	// tenth of the partition's life, and its end).
	GrowthPoints int
	// Now is when the writes happen, for limits that depend on the date (a TTL's expiry);
	// zero = time.Now().
	Now time.Time
}

// Estimate is the sizing of one table under its workload.
type Estimate struct {
	Table    string  // keyspace.table
	Pos      cql.Pos // the CREATE TABLE
	Target   Target
	Workload *workload.TableWorkload

	// Keys is the number of partition keys writes spread over (the workload's partitions; 1
	// when not declared). Slots is Keys times the write shards times the buckets retained
	// (TTL or horizon over the bucket width) for a bucketed table: the partitions there
	// would be if every key wrote into every bucket and shard. Partitions is how many of
	// them hold a row: a key receiving r rows a second fills a bucket of width w on one of
	// S shards with probability 1 - exp(-r·w/S) (writes arriving at random, a Poisson
	// process), summed over the keys' skew; an hour-bucketed key that writes twice a day
	// fills 2 hours in 24, not 24.
	Keys       float64
	Slots      float64
	Partitions float64

	Bucket       workload.Span // zero when no bucket bounds a partition
	BucketSource string        // "workload", "table (column month)" or ""
	Life         time.Duration // how long the largest partition keeps receiving writes
	TTL          time.Duration // effective TTL (0 = none)
	WriteSpread  time.Duration
	GCGrace      time.Duration

	// Typical is the median partition, P99 the one 1% of keys exceed, Largest the busiest
	// key's, each at the end of its life (its bucket, its TTL or the horizon).
	Typical, P99, Largest Partition
	Mean                  Partition // the average key's partition

	// TotalBytes is the data of all partitions on one replica (Data.db, uncompressed).
	TotalBytes float64

	// DeletedPartitionBytes is what a partition deleted whole still takes until its
	// tombstone is purged: its key, its deletion time, an empty static row when the table
	// has static data, and the end byte.
	DeletedPartitionBytes float64

	// Growth follows the typical and the largest partition across their life.
	Growth []GrowthPoint

	// Crossings says when a partition no bucket bounds crosses each limit (nil for a
	// bucketed table or one whose rows do not grow with time).
	Crossings []Crossing

	Encoding Encoding

	Findings []Finding
	// Verdict is the most severe of Findings (severity.OK when there is none), so a service
	// embedding sizing gates on one field instead of folding the findings itself.
	Verdict     Severity
	Assumptions []string // every default the estimate fell back on
}

// Partition is one partition's size.
type Partition struct {
	Rank     float64 // rank of its key by activity (1 = busiest)
	Activity float64 // how many times busier than the average key

	Rows  float64 // live rows
	Cells float64 // cells (collection elements and tombstone cells included), static row excluded

	// StoredValues is what the 100,000-values guideline (SZ001) counts: the values Cassandra
	// stores, as the byte model writes them. A value is a cell actually written: a regular
	// or static column's cell, one per collection element, and a null written as null (a
	// tombstone cell, which is stored and read); a column left unset (nulls_as: unset) writes
	// nothing and counts nothing. A row INSERT writes with no cell at all (a key-only table,
	// or every column unset) still stores its primary key liveness, a timestamp (and TTL)
	// where a cell would be: it counts as one value, so a key-only table of a million rows
	// has a million values, not zero. Key columns themselves are the row's address, not
	// values, as in the classic formula.
	StoredValues float64
	// ClassicValues is the classic formula's Nv = Nr(Nc-Npk-Ns)+Ns: every regular column of
	// every row, written or not, plus the static ones. Kept beside StoredValues for
	// reference: it overcounts sparse rows and counts 0 for a key-only table.
	ClassicValues float64
	Tombstones    Tombstones

	Bytes        float64 // what Cassandra 5.0 writes to Data.db (the model)
	ClassicBytes float64 // the classic formula's St
	Breakdown    Breakdown

	KeyBytes    float64 // the partition key as stored
	RowBytes    float64 // an average row
	LargestCell float64 // the largest value (a whole collection)
}

// Tombstones counts what a partition holds that is not live data, as sstablepartitions
// counts it after compaction, and what the byte figure (Partition.Bytes) carries: null
// tombstone cells and collection deletions for every row still stored, deleted rows and range
// markers for gc_grace_seconds. It is the byte model's count, checked against the node right
// after the writes. The tombstone package's on-disk count, which the estimate report gives
// as tombstones_on_disk, follows every tombstone through time instead: each stays
// gc_grace_seconds plus the compaction's linger after it is written (longer than here for
// deletes, shorter for nulls and collection deletions in an old partition).
type Tombstones struct {
	Rows         float64 // deleted rows
	RangeMarkers float64 // range tombstone bounds (two per range delete)
	Complex      float64 // collection deletions (every INSERT of a non-frozen collection writes one)
	Cells        float64 // cell tombstones: nulls written as null, cell and element deletes
	Expired      float64 // rows past their TTL, kept until gc_grace_seconds passes and compaction purges them
}

// Total is every tombstone a full scan of the partition meets.
func (t Tombstones) Total() float64 {
	return t.Rows + t.RangeMarkers + t.Complex + t.Cells + t.Expired
}

// Breakdown splits a partition's bytes by what they hold.
type Breakdown struct {
	Header  float64 // partition key and partition deletion time
	Static  float64 // the static row
	Rows    float64 // live rows
	Deleted float64 // deleted rows and range markers
	End     float64 // the end-of-partition byte
}

// GrowthPoint is the size of the typical and the largest partition at an age.
type GrowthPoint struct {
	Age           time.Duration
	Rows          float64 // typical partition
	Values        float64 // its stored values (Partition.StoredValues)
	Bytes         float64
	LargestRows   float64
	LargestValues float64
	LargestBytes  float64
}

// Crossing is when a partition crosses a limit: Typical and Largest are the ages at which the
// typical and the largest partition reach it, Never when they stay under for good (a TTL caps
// them) or within a century.
type Crossing struct {
	Limit                      Limit
	Typical, Largest           time.Duration
	TypicalNever, LargestNever bool
}

// Encoding reports what the sstable delta encoding costs under the workload's write spread.
type Encoding struct {
	Timestamp     float64 // bytes of a timestamp delta
	TombstoneLDT  float64 // bytes of a tombstone's local deletion time
	ExpiringLDT   float64 // bytes of an expiring cell's local deletion time
	TTL           float64 // bytes of a TTL delta
	RowBytes      float64 // an average live row
	RowTombstone  float64 // a deleted row
	RangeMarker   float64
	PartitionHead float64 // key + deletion time
	StaticRow     float64
}

// EstimateTable sizes tbl under w.
func EstimateTable(tbl *cql.Table, w *workload.TableWorkload, opt Options) (*Estimate, error) {
	p, err := newPlan(tbl, w, opt.Schema)
	if err != nil {
		return nil, err
	}
	if opt.Target == "" {
		opt.Target = Cassandra50
	}
	if opt.GrowthPoints <= 1 {
		opt.GrowthPoints = 11
	}
	sh := p.shape()
	est := &Estimate{
		Table: tbl.QualifiedName(), Pos: tbl.Pos, Target: opt.Target, Workload: w,
		Bucket: p.bucket, BucketSource: p.bucketSrc, TTL: p.ttl, WriteSpread: p.spread, GCGrace: p.gcGrace,
		Assumptions: p.assumptions,
		Encoding: Encoding{
			Timestamp: p.enc.ts, TombstoneLDT: p.enc.ldtTomb, ExpiringLDT: p.enc.ldtExp, TTL: p.enc.ttl,
			RowBytes: sh.row, RowTombstone: sh.tombRow, RangeMarker: sh.marker,
			PartitionHead: sh.header, StaticRow: sh.static,
		},
	}
	est.Keys = w.Partitions
	if est.Keys < 1 {
		est.Keys = 1
		if w.Skew.Kind == workload.Zipf {
			est.Assumptions = append(est.Assumptions, "skew: zipf needs partitions (how many keys share the writes); sized as uniform")
		}
	}
	skew := w.Skew
	if w.Partitions < 1 {
		skew = workload.Skew{MaxRate: w.Skew.MaxRate}
	}

	timeBased := !w.WriteRate.IsZero() || !p.bucket.IsZero()
	life := p.life(1)
	est.Life = life
	floor := p.oneRow(est.Keys, life)
	at := func(rank float64, age time.Duration) Partition {
		pt := p.partitionAt(sh, math.Max(p.activity(skew, est.Keys, rank), floor), age, life)
		pt.Rank = rank
		return pt
	}
	est.Largest = at(1, life)
	est.P99 = at(workload.Rank(est.Keys, 0.99), life)
	est.Typical = at(workload.Rank(est.Keys, 0.5), life)
	est.Mean = p.partitionAt(sh, skew.CappedMean(est.Keys, p.rateCap(skew))/p.shards(), p.life(0), p.life(0))
	if skew.Kind != workload.Zipf {
		est.P99.Rank, est.Typical.Rank, est.Largest.Rank = 0, 0, 0
	}

	// Totals. A partition exists only where a row was written: a key × shard × bucket slot
	// no row reached makes none, and the rows' bytes are what the keys received, wherever
	// they fell.
	slots, window := est.Keys*p.shards(), time.Duration(0)
	if !p.bucket.IsZero() {
		retained := p.horizon
		if p.ttl > 0 {
			retained = p.ttl + p.bucket.Avg // the oldest bucket is dropped only once its last write expires
		}
		slots *= math.Max(1, math.Ceil(retained.Seconds()/p.bucket.Avg.Seconds()))
		window = p.bucket.Avg
	} else if p.shards() > 1 {
		window = p.life(0) // a shard of a key that never receives a row over its life
	}
	est.Slots, est.Partitions = slots, slots
	if window > 0 && !w.WriteRate.IsZero() {
		est.Partitions = slots * occupied(skew, est.Keys, p.rateCap(skew), w.WriteRate.PerSecond()*window.Seconds()/p.shards())
	}
	live := 1.0
	for _, d := range w.Deletes {
		if d.Kind == workload.DeletePartition {
			live -= math.Min(1, d.Count(p.life(0)))
		}
	}
	live = math.Max(0, live)
	est.DeletedPartitionBytes = sh.header + sh.emptyStatic + 1
	// Every slot holding the mean partition, less the head of each slot left empty.
	empty := p.partitionAt(sh, 0, p.life(0), p.life(0)).Bytes
	est.TotalBytes = live*(slots*est.Mean.Bytes-(slots-est.Partitions)*empty) + (1-live)*est.Partitions*est.DeletedPartitionBytes

	if timeBased {
		est.Growth = p.growth(sh, skew, est.Keys, life, opt.GrowthPoints)
	}
	if p.bucket.IsZero() && !w.WriteRate.IsZero() {
		est.Crossings = p.crossings(sh, skew, est.Keys, opt.Target)
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	est.Findings = append(est.Findings, verdicts(est, opt.Target)...)
	est.Findings = append(est.Findings, ttlVerdict(est, opt.Target, opt.Now)...)
	est.Findings = append(est.Findings, recommendations(est, p, sh, skew)...)
	for _, f := range est.Findings {
		est.Verdict = max(est.Verdict, f.Severity)
	}
	return est, nil
}

// EstimateAll sizes every table the workload names, in the workload's order. It validates
// the workload against the schema first, so every problem is reported at once.
func EstimateAll(s *cql.Schema, w *workload.Workload, opt Options) ([]*Estimate, error) {
	if err := w.Validate(s); err != nil {
		return nil, err
	}
	if opt.Schema == nil {
		opt.Schema = s
	}
	out := make([]*Estimate, 0, len(w.Tables))
	for _, tw := range w.Tables {
		tbl, err := tw.Resolve(s)
		if err != nil {
			return nil, err
		}
		e, err := EstimateTable(tbl, tw, opt)
		if err != nil {
			return nil, fmt.Errorf("estimate %s: %w", tbl.QualifiedName(), err)
		}
		out = append(out, e)
	}
	return out, nil
}

// partitionAt sizes the partition of a key activity times busier than the average, at an age
// into a life of life.
func (p *plan) partitionAt(sh *shape, activity float64, age, life time.Duration) Partition {
	w := p.w
	out := Partition{Activity: activity, KeyBytes: sh.key, RowBytes: sh.row, LargestCell: sh.largestCell}
	frac := 1.0
	if life > 0 {
		frac = math.Min(1, age.Seconds()/life.Seconds())
	}

	// Rows written, and how many are still there.
	var written, expired float64
	if !w.WriteRate.IsZero() {
		r := w.WriteRate.PerSecond() * activity
		written = r * age.Seconds()
		if p.ttl > 0 && age > p.ttl {
			// Rows older than the TTL have expired; they stay (as tombstones, full size until
			// compaction rewrites them) for gc_grace_seconds more.
			expired = r * math.Min(age.Seconds()-p.ttl.Seconds(), p.gcGrace.Seconds())
			written = r * p.ttl.Seconds()
		}
	} else {
		written = w.RowsPerPartition * activity * frac
	}
	rows := written

	// Deletes: a rate applies over the age, a per-partition count over the life. Every delete
	// removes what it deletes; its tombstone stays until gc_grace_seconds have passed (and a
	// compaction purges it), so a steady rate keeps gc_grace_seconds' worth.
	count := func(d workload.Delete) (deletes, kept float64) {
		if !d.Rate.IsZero() {
			n := d.Rate.Over(age) * activity
			return n, math.Min(n, d.Rate.Over(p.gcGrace)*activity)
		}
		n := d.PerPartition * frac * activity
		return n, n
	}
	var rowTombs, markers, cellTombs, cellDelta float64
	for _, d := range w.Deletes {
		n, kept := count(d)
		switch d.Kind {
		case workload.DeleteRow:
			removed := math.Min(n, rows)
			rows -= removed
			rowTombs += math.Min(kept, removed)
		case workload.DeleteRange:
			rows -= math.Min(n*d.Rows, rows)
			markers += 2 * kept
		case workload.DeleteCell, workload.DeleteElement:
			kept = math.Min(kept, rows)
			cellTombs += kept
			cellDelta += kept * (sh.tombCell[d.Column] - sh.liveCell[d.Column])
		}
	}
	rows = math.Max(0, rows)
	stored := rows + expired // expired rows keep their bytes until compaction purges them
	// Rows measured expired (expired_rows) are sized as compaction rewrote them: their
	// liveness and a tombstone for each cell.
	gone := w.ExpiredRows * frac * activity

	out.Rows = rows
	out.Cells = stored * sh.rowCells
	out.StoredValues = stored * (sh.rowCells + sh.rowEmpty)
	if sh.static > 0 {
		out.StoredValues += sh.staticCells
	}
	out.Tombstones = Tombstones{
		Rows:         rowTombs,
		RangeMarkers: markers,
		Complex:      stored * sh.rowComplex,
		Cells:        stored*sh.rowNullTombs + cellTombs,
		Expired:      expired + gone,
	}
	out.Breakdown = Breakdown{
		Header:  sh.header,
		Static:  sh.static,
		Rows:    stored*sh.row + cellDelta,
		Deleted: rowTombs*sh.tombRow + markers*sh.marker + gone*sh.expiredRow,
		End:     1,
	}
	b := out.Breakdown
	out.Bytes = b.Header + b.Static + b.Rows + b.Deleted + b.End

	// The classic formula, on live rows.
	var pkRaw float64
	for _, k := range p.pk {
		pkRaw += k.raw
	}
	ns := float64(len(p.static))
	nv := rows*sh.rowValues + ns
	out.ClassicValues = nv
	out.ClassicBytes = pkRaw + sh.staticRaw + rows*(sh.rowRaw+sh.ckRaw) + nv*8
	return out
}

// rateCap is how many times busier than the average key a key may be under skew's
// max_rate (0: no cap, or no write rate to cap).
func (p *plan) rateCap(skew workload.Skew) float64 {
	if !(skew.MaxRate.PerSecond() > 0) || !(p.w.WriteRate.PerSecond() > 0) {
		return 0
	}
	return skew.MaxRate.PerSecond() / p.w.WriteRate.PerSecond()
}

// activity is how many times busier than the average key the key of rank k is, capped by
// skew's max_rate.
func (p *plan) activity(skew workload.Skew, keys, rank float64) float64 {
	return skew.Capped(keys, rank, p.rateCap(skew)) / p.shards()
}

// oneRow is the activity of a key that writes one row in its partition's life (0 when the
// workload declares a single key, or no rows). A partition exists only once a row is written
// to it: a key quieter than that (most keys of a sparse hour-bucketed table) writes a row in
// some of its buckets and none in the rest, and the partitions it has hold a row, not a
// fraction of one. The typical, p99 and largest partitions are sized no smaller.
func (p *plan) oneRow(keys float64, life time.Duration) float64 {
	if keys < 2 {
		return 0
	}
	written := p.w.RowsPerPartition
	if !p.w.WriteRate.IsZero() {
		secs := life.Seconds()
		if p.ttl > 0 {
			secs = math.Min(secs, p.ttl.Seconds())
		}
		written = p.w.WriteRate.PerSecond() * secs
	}
	if !(written > 0) {
		return 0
	}
	return 1 / written
}

// shards is how many partitions one key's writes spread over (1 without write shards).
func (p *plan) shards() float64 {
	return float64(max(1, p.w.Shards))
}

// growth samples the typical and the largest partition across their life.
func (p *plan) growth(sh *shape, skew workload.Skew, keys float64, life time.Duration, points int) []GrowthPoint {
	out := make([]GrowthPoint, points)
	floor := p.oneRow(keys, life)
	typ, top := math.Max(floor, p.activity(skew, keys, workload.Rank(keys, 0.5))), math.Max(floor, p.activity(skew, keys, 1))
	for i := range out {
		age := time.Duration(float64(life) * float64(i) / float64(points-1))
		t, l := p.partitionAt(sh, typ, age, life), p.partitionAt(sh, top, age, life)
		out[i] = GrowthPoint{Age: age, Rows: t.Rows, Values: t.StoredValues, Bytes: t.Bytes,
			LargestRows: l.Rows, LargestValues: l.StoredValues, LargestBytes: l.Bytes}
	}
	return out
}

// centuries bounds the search for a crossing.
const century = 100 * workload.Year

// crossings finds when an unbucketed partition crosses each limit, by bisection on its age
// (a partition only grows, or levels off under a TTL).
func (p *plan) crossings(sh *shape, skew workload.Skew, keys float64, target Target) []Crossing {
	typ, top := p.activity(skew, keys, workload.Rank(keys, 0.5)), p.activity(skew, keys, 1)
	when := func(activity float64, l Limit) (time.Duration, bool) {
		m := func(age time.Duration) float64 { return p.partitionAt(sh, activity, age, century).measure(l.Measure) }
		if m(century) < l.Value {
			return 0, true
		}
		lo, hi := time.Duration(0), century
		for hi-lo > time.Minute {
			mid := lo + (hi-lo)/2
			if m(mid) >= l.Value {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi, false
	}
	var out []Crossing
	for _, l := range Limits(target) {
		switch l.Measure {
		case Bytes, Values, Cells, Rows:
		default:
			continue // not a function of age
		}
		c := Crossing{Limit: l}
		c.Typical, c.TypicalNever = when(typ, l)
		c.Largest, c.LargestNever = when(top, l)
		out = append(out, c)
	}
	return out
}
