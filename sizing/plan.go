package sizing

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/bound"
	"github.com/cqlsize/cqlsize/workload"
)

// plan is a table and its workload resolved into what the byte model needs: each column's
// value sizes and null rates, the effective TTL, bucket and write spread, and the vint costs
// those imply.
type plan struct {
	table *cql.Table
	w     *workload.TableWorkload

	pk, ck  []keyCol
	regular []*colPlan // in the order Cassandra serializes them: simple by name, then complex by name
	static  []*colPlan

	ttl       time.Duration // effective TTL, 0 = none
	ttlFrom   string        // "workload", "table" or ""
	spread    time.Duration
	bucket    workload.Span
	bucketSrc string // "workload", "table (column month)" or ""
	horizon   time.Duration
	gcGrace   time.Duration
	avgRows   float64 // rows the average partition receives over its (average) life

	enc encoding

	assumptions []string
}

type keyCol struct {
	col *cql.Column
	raw float64 // serialized value bytes
}

// colPlan is one regular or static column.
type colPlan struct {
	col     *cql.Column
	missing float64 // fraction of writes that leave it without a value
	multi   bool    // non-frozen collection or UDT: one cell per element
	raw     float64 // simple column: value bytes; multi: bytes of all elements' raw values
	value   float64 // simple column: bytes the cell stores for the value (with its length prefix)

	elems     float64 // multi: elements (cells) per value
	path      float64 // multi: cell path bytes of one element (with length)
	elemValue float64 // multi: value bytes of one element cell (with length; 0 for a set)
	elemRaw   float64 // multi: raw bytes of one element (path + value payloads), for dataSize
}

// encoding is what the sstable's delta encoding costs, in bytes (averages over the spread).
type encoding struct {
	ts      float64 // a timestamp: vint(ts - sstable minimum)
	ldtTomb float64 // a tombstone's local deletion time
	ldtExp  float64 // an expiring cell's local deletion time (now + TTL)
	ttl     float64 // a TTL: vint(ttl - minimum TTL); 1 when every write uses the same TTL
}

// defaultSpread is the write spread when neither the workload nor TWCS says otherwise.
const defaultSpread = workload.Day

// defaultHorizon is how far an unbounded partition is projected.
const defaultHorizon = workload.Year

func newPlan(tbl *cql.Table, w *workload.TableWorkload, schema *cql.Schema) (*plan, error) {
	if tbl == nil {
		return nil, fmt.Errorf("estimate: no table")
	}
	if w == nil {
		return nil, fmt.Errorf("estimate %s: no workload", tbl.QualifiedName())
	}
	if errs := w.Check(); len(errs) > 0 {
		return nil, errs
	}
	if err := w.ValidateFor(tbl); err != nil {
		return nil, err
	}
	p := &plan{table: tbl, w: w, horizon: w.Horizon}
	if isCounterTable(tbl) && w.Writes != workload.Update {
		// Counters are only ever written by UPDATE ... SET c = c + n: no row marker.
		c := w.Clone()
		c.Writes = workload.Update
		p.w, w = c, c
	}
	if p.horizon == 0 {
		p.horizon = defaultHorizon
	}
	p.gcGrace = secondsDuration(tbl.Options.GCGraceSeconds)
	if tbl.Options.GCGraceSeconds == 0 && tbl.Options.Raw["gc_grace_seconds"] == nil {
		p.gcGrace = cql.DefaultGCGraceSeconds * time.Second
	}
	vs := &valueSizer{avg: w.Avg, schema: schema, keyspace: tbl.Keyspace, assumptions: &p.assumptions, defaults: map[string]bool{}}

	// TTL: the workload's, else the table's default_time_to_live.
	switch {
	case w.TTL != nil:
		p.ttl, p.ttlFrom = *w.TTL, "workload"
	case tbl.Options.DefaultTTL > 0:
		p.ttl, p.ttlFrom = secondsDuration(tbl.Options.DefaultTTL), "table"
	}

	// Bucket: the workload's, else the one the partition key implies.
	if !w.Bucket.IsZero() {
		p.bucket, p.bucketSrc = w.Bucket, "workload"
	} else if w.NoBucket {
		// The workload says no column of the key is a bucket (bucket: none).
	} else if b, col, ok := TableBucket(tbl); ok {
		p.bucket, p.bucketSrc = b, "table (column "+col+")"
		if !w.WriteRate.IsZero() {
			p.assumptions = append(p.assumptions, fmt.Sprintf("bucket: %s, implied by partition key column %s", b, col))
		}
	} else if col := unknownWidthBucket(tbl); col != "" && !w.WriteRate.IsZero() {
		p.assumptions = append(p.assumptions, fmt.Sprintf("%s looks like a time bucket of unknown width: pass --bucket with the span it holds (--bucket day; bucket: day in a workload file); until then the partition is sized as unbucketed", col))
	}

	// Write spread: the workload's, else the TWCS window, else a day.
	p.spread = w.WriteSpread
	if p.spread == 0 {
		if win, ok := twcsWindow(tbl.Options); ok {
			p.spread = win
		} else {
			p.spread = defaultSpread
		}
	}

	_, bucketCol, _ := TableBucket(tbl)
	for _, c := range tbl.PartitionKey {
		avg := hint(w.Avg, c.Name)
		if avg < 0 && c.Name == bucketCol && !p.bucket.IsZero() && (c.Type.Name == "text" || c.Type.Name == "ascii") {
			// A text bucket column holds the bucket's label: 2026-11 for a month.
			avg = labelLength(p.bucket)
		}
		p.pk = append(p.pk, keyCol{c, vs.raw(c.Name, c.Type, avg)})
	}
	for _, c := range tbl.Clustering {
		p.ck = append(p.ck, keyCol{c, vs.raw(c.Name, c.Type, hint(w.Avg, c.Name))})
	}
	for _, c := range tbl.Columns {
		if c.Kind != cql.Regular && c.Kind != cql.Static {
			continue
		}
		cp := &colPlan{col: c, missing: w.NullFraction(c.Name), multi: c.Type.MultiCell()}
		sz := vs
		if cp.missing >= 1 {
			// A column no write gives a value (nulls: 1) never stores one: its size is never
			// used, so a default for it is no assumption of the estimate.
			quiet := *vs
			quiet.assumptions, quiet.defaults = new([]string), map[string]bool{}
			sz = &quiet
		}
		if cp.multi {
			sz.sizeMulti(cp, w)
		} else {
			// A frozen collection sized by items needs no avg: asking raw() first would
			// record a default it never uses as an assumption of the estimate.
			if it, ok := w.Items[c.Name]; ok && hint(w.Avg, c.Name) < 0 {
				cp.raw = frozenCollectionRaw(sz, c, it)
			} else {
				cp.raw = sz.raw(c.Name, c.Type, hint(w.Avg, c.Name))
			}
			cp.value = written(c.Type, cp.raw)
		}
		if c.Kind == cql.Static {
			p.static = append(p.static, cp)
		} else {
			p.regular = append(p.regular, cp)
		}
	}
	sortColumns(p.regular)
	sortColumns(p.static)
	if w.WriteRate.IsZero() {
		p.avgRows = w.RowsPerPartition
	} else {
		p.avgRows = w.WriteRate.Over(p.life(0))
	}
	p.enc = p.encodingCosts()
	return p, nil
}

func hint(m map[string]float64, col string) float64 {
	if v, ok := m[col]; ok {
		return v
	}
	return -1
}

// sizeMulti sizes a non-frozen collection or UDT: one cell per element.
func (vs *valueSizer) sizeMulti(cp *colPlan, w *workload.TableWorkload) {
	c, t := cp.col, cp.col.Type
	it, hasItems := w.Items[c.Name]
	if t.Kind == cql.UDT {
		ut := vs.userType(t)
		if ut == nil {
			vs.assume(c.Name, "user type %s is not in the schema; 4 fields of 16 bytes are assumed", t.Name)
			cp.elems, cp.path, cp.elemValue, cp.elemRaw = 4, 3, 17, 18
			cp.raw = 4 * 18
			return
		}
		// One cell per field, its path the field's index as a 2-byte short (3 bytes with its
		// length). Field sizes come from avg "column.field", else the field type.
		var vals, raws float64
		for _, f := range ut.Fields {
			v := vs.raw(c.Name+"."+f.Name, f.Type, hint(w.Avg, c.Name+"."+f.Name))
			vals += withLength(v)
			raws += v
		}
		cp.elems = float64(len(ut.Fields))
		cp.path = 3
		cp.raw = raws
		if cp.elems > 0 {
			cp.elemValue = vals / cp.elems
			cp.elemRaw = 2 + raws/cp.elems
		}
		if h := hint(w.Avg, c.Name); h >= 0 && cp.elems > 0 {
			// An avg for the whole UDT is the sum of its fields' values, spread evenly.
			per := h / cp.elems
			cp.elemValue, cp.elemRaw, cp.raw = withLength(per), 2+per, h
		}
		return
	}
	if !hasItems {
		it.Count = defaultElements
		vs.assume(c.Name, "no items given; a %s is assumed to hold %d elements", t, defaultElements)
	}
	cp.elems = it.Count
	switch t.Kind {
	case cql.List:
		e := vs.elementRaw(c.Name, t, 0, it.Size)
		cp.path, cp.elemValue, cp.elemRaw = 17, withLength(e), 16+e // a timeuuid path per element
		cp.raw = it.Count * e
	case cql.Set:
		e := vs.elementRaw(c.Name, t, 0, it.Size)
		cp.path, cp.elemValue, cp.elemRaw = withLength(e), 0, e // the element is the path; the value is empty
		cp.raw = it.Count * e
	case cql.Map:
		k := vs.elementRaw(c.Name, t, 0, it.KeySize)
		v := vs.elementRaw(c.Name, t, 1, it.Size)
		cp.path, cp.elemValue, cp.elemRaw = withLength(k), withLength(v), k+v
		cp.raw = it.Count * (k + v)
	}
}

// frozenCollectionRaw sizes a frozen collection from its items: a 4-byte count, then each
// element (and map key) with a 4-byte length.
func frozenCollectionRaw(vs *valueSizer, c *cql.Column, it workload.Items) float64 {
	t := c.Type
	switch t.Kind {
	case cql.Map:
		k := vs.elementRaw(c.Name, t, 0, it.KeySize)
		v := vs.elementRaw(c.Name, t, 1, it.Size)
		return 4 + it.Count*(8+k+v)
	default:
		return 4 + it.Count*(4+vs.elementRaw(c.Name, t, 0, it.Size))
	}
}

// sortColumns orders columns as Cassandra's Columns does: simple before complex, then by
// the bytes of the name. The order decides which bit of a row's missing-column bitmap is whose.
func sortColumns(cs []*colPlan) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].multi != cs[j].multi {
			return !cs[i].multi
		}
		return cs[i].col.Name < cs[j].col.Name
	})
}

// twcsWindow returns the TWCS window of a table using TimeWindowCompactionStrategy.
func twcsWindow(o cql.TableOptions) (time.Duration, bool) {
	if o.CompactionClass() != "TimeWindowCompactionStrategy" {
		return 0, false
	}
	size := 1
	if s := o.Compaction["compaction_window_size"]; s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			size = n
		}
	}
	unit := workload.Day
	switch strings.ToUpper(o.Compaction["compaction_window_unit"]) {
	case "MINUTES":
		unit = time.Minute
	case "HOURS":
		unit = time.Hour
	}
	return mulDuration(size, unit), true
}

// maxOptionSeconds is the largest gc_grace_seconds or default_time_to_live Cassandra
// stores: both options are Java ints. A schema file may say more; the estimate reads it as
// this rather than overflow time.Duration.
const maxOptionSeconds = math.MaxInt32

// secondsDuration is a table option in seconds as a duration, from 0 to maxOptionSeconds.
func secondsDuration(n int) time.Duration {
	return time.Duration(min(max(n, 0), maxOptionSeconds)) * time.Second
}

// mulDuration is n × unit, saturating at the longest time.Duration instead of wrapping
// (compaction_window_size is an arbitrary integer in a schema file).
func mulDuration(n int, unit time.Duration) time.Duration {
	if n <= 0 || unit <= 0 {
		return 0
	}
	if int64(n) > math.MaxInt64/int64(unit) {
		return math.MaxInt64
	}
	return time.Duration(n) * unit
}

// TableBucket returns the time bucket a table's partition key implies, read by the rule
// BK101 uses (cql/bound), so estimate and the lint agree on what a bucket is: a partition
// key column named for a span (day, month, hour_bucket, yyyymm, week_start, ...) or typed
// date. ok is false when there is none, and when the column is a bucket whose width the
// schema does not say (bucket int, ts_bucket, partition): see unknownWidthBucket.
func TableBucket(t *cql.Table) (w workload.Span, column string, ok bool) {
	b, found := bound.Bucket(t)
	if !found || b.Width == "" {
		return workload.Span{}, "", false
	}
	w, err := workload.ParseSpan(b.Width)
	if err != nil {
		return workload.Span{}, "", false
	}
	return w, b.Column, true
}

// unknownWidthBucket returns the partition key column that is a time bucket of a width the
// schema does not say (bucket int, ts_bucket, partition, slot), or "".
func unknownWidthBucket(t *cql.Table) string {
	if b, ok := bound.Bucket(t); ok && b.Width == "" {
		return b.Column
	}
	return ""
}

// hasTombstoneLDTs reports whether the table's sstables hold deletion times written at
// write time (null tombstones, deletes, the collection tombstone every INSERT of a
// non-frozen collection writes). Their local deletion time is "now", which then is the
// sstable's minimum, so an expiring cell's (now + TTL) is written as TTL + spread.
func (p *plan) hasTombstoneLDTs() bool {
	if p.w.ExpiredRows > 0 {
		return true // an expired cell becomes a tombstone deleted at its write time
	}
	if p.w.NullsAs == workload.NullTombstone {
		for _, c := range append(append([]*colPlan{}, p.regular...), p.static...) {
			if c.missing > 0 {
				return true
			}
		}
	}
	for _, d := range p.w.Deletes {
		if d.Count(p.life(1)) > 0 {
			return true
		}
	}
	for _, c := range p.regular {
		if c.multi && (p.w.Writes == workload.Insert && p.w.ElementWrites[c.col.Name] < 1 || len(p.w.Overwrites) > 0) && c.missing < 1 {
			return true
		}
	}
	for _, c := range p.static {
		if c.multi && c.missing < 1 {
			return true
		}
	}
	return false
}

// encodingCosts works out the vint costs of timestamps, deletion times and TTLs. Cassandra
// writes each as a delta from the sstable's minimum (SerializationHeader, EncodingStats), so
// with writes spread uniformly over S seconds a timestamp delta is uniform over [0, S·10^6] µs.
func (p *plan) encodingCosts() encoding {
	s := p.spread.Seconds()
	e := encoding{
		ts:      expectedVIntSize(s * 1e6),
		ldtTomb: expectedVIntSize(s),
		ldtExp:  expectedVIntSize(s),
		ttl:     1,
	}
	if p.ttl > 0 && p.hasTombstoneLDTs() {
		ttl := p.ttl.Seconds()
		e.ldtExp = expectedVIntRange(ttl, ttl+s)
	}
	if p.ttl > 0 && p.hasCellsWithoutTTL() {
		// Compaction takes the minimum TTL from the sstables' StatsMetadata, which counts every
		// cell, tombstones (TTL 0) included (MetadataCollector.update). One tombstone cell makes
		// the minimum 0, and every TTL is then written whole.
		e.ttl = vintOf(p.ttl.Seconds())
	}
	if p.ttl > 0 && len(p.w.TTLMix) > 0 {
		e.ttl, e.ldtExp = p.ttlMixCosts(s)
	}
	if x := p.w.ExpiredTTL.Seconds(); p.ttl > 0 && p.w.ExpiredRows > 0 && x > 0 && x < p.ttl.Seconds() {
		// Expired rows written with a shorter TTL set the sstable's minimum TTL.
		e.ttl = vintOf(p.ttl.Seconds() - x)
	}
	return e
}

// ttlMixCosts is what a row's TTL and expiry time cost on average when rows are written with
// several TTLs (ttl_mix): each a delta from the sstable's smallest TTL (0 when some cell has
// none) and from its smallest expiry time (a tombstone's deletion time, else the soonest
// expiry), over writes spread across s seconds; a row without a TTL costs neither.
func (p *plan) ttlMixCosts(s float64) (ttl, ldt float64) {
	minTTL, minLDT := math.Inf(1), math.Inf(1)
	for d := range p.w.TTLMix {
		minTTL = math.Min(minTTL, d.Seconds())
		if d > 0 {
			minLDT = math.Min(minLDT, d.Seconds())
		}
	}
	if p.hasCellsWithoutTTL() {
		minTTL = 0
	}
	if p.hasTombstoneLDTs() {
		minLDT = 0
	}
	for d, share := range p.w.TTLMix {
		if d <= 0 {
			continue
		}
		ttl += share * vintOf(d.Seconds()-minTTL)
		ldt += share * expectedVIntRange(d.Seconds()-minLDT, d.Seconds()-minLDT+s)
	}
	return ttl, ldt
}

// hasCellsWithoutTTL reports whether the table's sstables hold cells with no TTL beside the
// expiring ones: tombstone cells (nulls written as null, cell and element deletes).
func (p *plan) hasCellsWithoutTTL() bool {
	if p.w.NullsAs == workload.NullTombstone {
		for _, c := range append(append([]*colPlan{}, p.regular...), p.static...) {
			if c.missing > 0 {
				return true
			}
		}
	}
	for _, d := range p.w.Deletes {
		if (d.Kind == workload.DeleteCell || d.Kind == workload.DeleteElement) && d.Count(p.life(1)) > 0 {
			return true
		}
	}
	return false
}

// life is how long a partition receives writes: the bucket (its longest instance when
// longest is set, else its average), else the horizon.
func (p *plan) life(longest float64) time.Duration {
	if !p.bucket.IsZero() {
		if longest > 0 {
			return p.bucket.Max
		}
		return p.bucket.Avg
	}
	return p.horizon
}

// isCounterTable reports whether the table holds counters.
func isCounterTable(t *cql.Table) bool {
	for _, c := range t.Columns {
		if c.Type.Kind == cql.Native && c.Type.Name == "counter" {
			return true
		}
	}
	return false
}

// labelLength is the length of the bucket package's label for a bucket of width w:
// 2026 (year), 2026-11 (month), 2026-W47 (iso-week), 2026-11-20 (day), 2026-11-20T06 (whole
// hours), 2026-11-20T06:15 (whole minutes), 2026-11-20T06:15:30.
func labelLength(w workload.Span) float64 {
	switch w.Name {
	case "year":
		return 4
	case "month":
		return 7
	case "iso-week":
		return 8
	case "day":
		return 10
	}
	switch {
	case w.Avg%time.Hour == 0:
		return 13
	case w.Avg%time.Minute == 0:
		return 16
	}
	return 19
}
