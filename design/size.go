package design

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/severity"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/sizing/readcost"
	"github.com/cqlsize/cqlsize/workload"
)

// widths are the buckets tried, coarsest first: none, then the bucket package's calendar
// widths down to an hour, the finest bucket a reader walks back through sensibly.
var widths = []string{"", "year", "month", "iso-week", "day", "hour"}

// maxShards bounds write shards: a read of a sharded key visits every shard, and past a
// few thousand partitions a read is a scan (the sizing package's SZ102 stops at 10,000).
const maxShards = 4096

// facts are the volumes behind one table: how many keys its partitions spread over, how
// many rows it receives, for how long, and how unevenly.
type facts struct {
	keys    float64 // distinct partition keys, before bucket and shards
	rate    float64 // rows per second into the whole table
	life    time.Duration
	ttl     bool // life is a TTL (rows expire), not a retention
	skew    workload.Skew
	keyText string // "10M customer_id", for the reasons
}

// factsOf works out a shape's volumes from its entity's. A partition key column the
// workload gives no distinct count for is an error naming the field that decides it.
func factsOf(sh *shape, ev *Entity, file string) (facts, error) {
	var f facts
	at := func(path string) cql.Pos {
		p := ev.FieldPos(path)
		if !p.IsValid() {
			p = cql.Pos{File: file, Line: 1, Col: 1}
		}
		return p
	}
	if ev.Rows.IsZero() {
		return f, cql.Errorf(at(""), "workload: %s: rows: is needed (inserts per span of time for the whole table, such as 50k/day): it decides every partition's size", ev.Name)
	}
	f.rate, f.life, f.ttl = ev.Rows.PerSecond(), ev.life(), ev.TTL > 0
	if f.life <= 0 {
		return f, cql.Errorf(at(""), "workload: %s: retention: or ttl: is needed (how long rows are kept, such as 5y): it decides how large a partition grows", ev.Name)
	}
	total := f.rate * f.life.Seconds()
	if sh.elem != nil {
		it, ok := ev.Items[sh.elem.collection.Name]
		if !ok || it.Count <= 0 {
			return f, cql.Errorf(at(""), "workload: %s: items: %s: is needed (elements per row): one row is written per element", ev.Name, sh.elem.collection.Name)
		}
		f.rate *= it.Count
		total *= it.Count
	}
	identity := coversIdentity(sh)
	keys := 1.0
	var names []string
	for _, c := range sh.pk {
		src := c.Name
		if sh.elem != nil && c.Name == sh.elem.name {
			src = sh.elem.collection.Name
		}
		cv, ok := ev.Columns[src]
		switch {
		case ok && cv.Distinct > 0:
			keys *= cv.Distinct
			if cv.Skew.Kind == workload.Zipf && (f.skew.Kind != workload.Zipf || cv.Skew.S > f.skew.S) {
				f.skew = cv.Skew
			}
		case identity:
			keys = total
		default:
			return f, cql.Errorf(at("columns"), "workload: %s: columns: %s: {distinct: N} is needed: how many %s values there are decides how many rows one partition of %s holds", ev.Name, src, src, sh.entity.Name)
		}
		names = append(names, src)
	}
	if identity {
		// One entity row a partition, whatever its columns' skew: a hot game_id makes
		// many (game_id, player_id) keys, never a large one.
		keys = total
		f.skew = workload.Skew{}
	}
	// Whole keys, so the workload file states exactly what was sized.
	f.keys = math.Max(1, math.Round(math.Min(keys, total)))
	f.keyText = sizing.FormatCount(f.keys) + " " + joinNames(names)
	return f, nil
}

// coversIdentity reports whether the partition key holds the entity's whole primary key:
// then each partition holds one entity row.
func coversIdentity(sh *shape) bool {
	in := map[string]bool{}
	for _, c := range sh.pk {
		in[c.Name] = true
	}
	for _, c := range append(append([]*cql.Column{}, sh.entity.PartitionKey...), sh.entity.Clustering...) {
		if !in[c.Name] {
			return false
		}
	}
	return sh.elem == nil
}

// workloadFor is the workload `estimate` reads for one table: the entity's volumes spread
// over the table's keys.
func workloadFor(t *cql.Table, f facts, ev *Entity, sh *shape, width string, shards int) *workload.TableWorkload {
	tw := &workload.TableWorkload{
		Name: t.QualifiedName(), Partitions: f.keys, WriteRate: perKey(f.rate / f.keys),
		Skew: f.skew, NullsAs: workload.NullUnset, Fields: map[string]cql.Pos{},
	}
	if shards > 1 {
		tw.Shards = shards
	}
	if f.ttl {
		d := f.life
		tw.TTL = &d
	} else {
		tw.Horizon = f.life
	}
	if width != "" {
		tw.Bucket, _ = workload.ParseSpan(width)
	} else if _, _, implied := sizing.TableBucket(t); implied {
		tw.NoBucket = true // a key column named like a bucket (album_year) is none here
	}
	for col, v := range ev.Avg {
		if c := t.Column(col); c != nil {
			if _, fixed := c.Type.FixedSize(); !fixed && (!c.Type.MultiCell() || c.Type.Kind == cql.UDT) {
				setAvg(tw, col, v)
			}
		}
	}
	for col, it := range ev.Items {
		if c := t.Column(col); c != nil && c.Type.IsCollection() {
			if tw.Items == nil {
				tw.Items = map[string]workload.Items{}
			}
			tw.Items[col] = it
		}
	}
	if e := sh.elem; e != nil && ev.Items[e.collection.Name].Size > 0 {
		if c := t.Column(e.name); c != nil {
			if _, fixed := c.Type.FixedSize(); !fixed {
				setAvg(tw, e.name, ev.Items[e.collection.Name].Size)
			}
		}
	}
	return tw
}

// perKey is a rate per key in a unit that keeps the count readable in a workload file.
func perKey(perSecond float64) workload.Rate {
	for _, u := range []time.Duration{time.Second, time.Hour, workload.Day, workload.Year} {
		if n := perSecond * u.Seconds(); n >= 1 || u == workload.Year {
			return workload.Rate{Count: round4(n), Per: u}
		}
	}
	return workload.Rate{}
}

// round4 keeps four significant digits, so the workload file says what was sized.
func round4(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// candidate is one table tried: its bucket, shards, workload and estimate.
type candidate struct {
	width  string
	shards int
	table  *cql.Table
	derive []Derive
	work   *workload.TableWorkload
	est    *sizing.Estimate
	reads  []readcost.Cost // the read cost of each pattern the table serves
	tiered bool            // the table of a tiered design, sized as its default tier
}

func (c *candidate) fits() bool { return c.est.Verdict < severity.Warn }

// describe says what a candidate's partitions reach: "month: p99 2.68M values, 41 MB;
// largest ...".
func (c *candidate) describe() string {
	w := c.width
	if w == "" {
		w = "no bucket"
	} else {
		w = "by " + w
	}
	if c.shards > 1 {
		w += fmt.Sprintf(" × %d shards", c.shards)
	}
	e := c.est
	s := fmt.Sprintf("%s: p99 partition %s rows, %s values, %s; largest %s rows, %s values, %s",
		w, sizing.FormatCount(e.P99.Rows), sizing.FormatCount(e.P99.StoredValues), sizing.FormatBytes(e.P99.Bytes),
		sizing.FormatCount(e.Largest.Rows), sizing.FormatCount(e.Largest.StoredValues), sizing.FormatBytes(e.Largest.Bytes))
	if c.fits() {
		s += ": under " + sizing.LimitsText(e.Target, "and")
	} else {
		s += ": over the limits"
	}
	if len(c.reads) > 0 {
		s += "; " + readText(worst(c.reads))
	}
	return s
}

func setAvg(tw *workload.TableWorkload, col string, v float64) {
	if tw.Avg == nil {
		tw.Avg = map[string]float64{}
	}
	tw.Avg[col] = v
}

func joinNames(names []string) string { return strings.Join(names, ", ") }
