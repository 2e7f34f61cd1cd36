package design

import (
	"fmt"
	"math"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/sizing/readcost"
	"github.com/cqlsize/cqlsize/tombstone"
	"github.com/cqlsize/cqlsize/workload"
)

// fewPartitions is how many partitions a typical read may visit before the design looks
// for tiers: the read-cost finding's threshold.
const fewPartitions = readcost.FewPartitions

// patternOf is the read-cost model's view of one access pattern on a table cut by width
// into buckets and spread over shards.
func patternOf(f facts, a *access, t *cql.Table, width string, shards int, movedBucket bool) readcost.Pattern {
	p := readcost.Pattern{Keys: f.keys, Rate: f.rate, Skew: f.skew, Retention: f.life, Shards: shards,
		Range: a.q.Range, ReadRate: a.q.Rate}
	if width != "" {
		p.Bucket = spanOf(width).Avg
	}
	rd := tombstone.ReadOf(t, a.q.Stmt, tombstone.Read{})
	p.Limit = rd.Limit
	if rd.Slice == tombstone.Point {
		p.Limit = 1 // one row by its primary key
	}
	if movedBucket && p.Range == 0 && p.Bucket > 0 {
		// The query names its bucket (= ?): one bucket a call.
		p.Range = p.Bucket
	}
	return p
}

// costs is the read cost of each of a group's access patterns on a candidate.
func (c *candidate) costs(g *group, f facts) error {
	c.reads = nil
	for _, a := range g.acc {
		rc, err := readcost.Of(patternOf(f, a, c.table, c.width, c.shards, false))
		if err != nil {
			return fmt.Errorf("query %s: %w", a.q.Name, err)
		}
		c.reads = append(c.reads, rc)
	}
	return nil
}

// typical is the partitions the typical read of the candidate's costliest pattern visits.
func (c *candidate) typical() float64 {
	var m float64
	for _, r := range c.reads {
		m = math.Max(m, r.Typical.Partitions)
	}
	return m
}

// worst is the read cost of the pattern whose typical read visits the most partitions.
func worst(reads []readcost.Cost) readcost.Cost {
	var w readcost.Cost
	for i, r := range reads {
		if i == 0 || r.Typical.Partitions > w.Typical.Partitions {
			w = r
		}
	}
	return w
}

// readText is "a typical read visits 3 partitions (p99 1, busiest 1)".
func readText(r readcost.Cost) string {
	s := fmt.Sprintf("a typical read visits %s (p99 %s, busiest %s)", partitionsText(r.Typical.Partitions),
		sizing.FormatCount(r.P99.Partitions), sizing.FormatCount(r.Busiest.Partitions))
	if e := r.Typical.EmptyShare(); r.Typical.Partitions > 1 && e >= 0.5 {
		s += fmt.Sprintf(", %.0f%% of them empty", 100*e)
	}
	return s
}

func partitionsText(n float64) string {
	if sizing.FormatCount(n) == "1" {
		return "1 partition"
	}
	return sizing.FormatCount(n) + " partitions"
}

// Tiers is how a table puts its keys on two schemes when no single one serves both the
// busiest key and the typical read: the keys above Threshold rows a second on the hot
// tier's finer bucket and shards, every other key on the default tier's coarse bucket. A
// key's tier is data: a row of the tier table, written when it is promoted; a key with no
// row is on the default tier.
type Tiers struct {
	Table       string // keyspace.table of the tier table
	CreateTable string // its CREATE TABLE (the layout cql/denorm's tiers read)
	Default     Tier
	Hot         Tier
	// Threshold is the rate (rows a second) above which a key's default-tier partition
	// would break the limits: the promotion threshold.
	Threshold float64
	HotKeys   float64 // how many keys are over it at the estimate's skew
	Keys      float64 // how many keys there are
	// HotLargest is the busiest key's partition on the hot tier (the table's Estimate is
	// the default tier's); EdgeRead the hot tier's read of a key just over the threshold.
	HotLargest sizing.Partition
	EdgeRead   readcost.Key
}

// Tier is one scheme: a bucket width (the bucket package's name) and write shards.
type Tier struct {
	Bucket string
	Shards int
}

func (t Tier) String() string {
	s := "by " + t.Bucket
	if t.Shards > 1 {
		s += fmt.Sprintf(" × %d shards", t.Shards)
	}
	return s
}

// tiered is a candidate split into tiers: the default scheme, the hot one, and the threshold
// between them.
type tiered struct {
	def, hot  *candidate
	threshold float64 // rows a second
	hotKeys   float64
	reads     []readcost.Cost // each pattern's cost, each key on its own tier
	// edge is the hot tier's read for a key just over the threshold, of the pattern whose
	// typical read is costliest: the dearest read the tiers leave.
	edge readcost.Key
}

// tierFor works out the tiers of a table no single scheme serves: def holds every key up to
// the threshold, hot (the scheme that holds the busiest key) every key above. The
// threshold is the rate at which a key's def partition reaches the limits; the candidate is
// then sized again with every key capped at it (max_rate), and the cap lowered until that
// estimate fits, so the default tier's partitions are the sizing estimate's.
func tierFor(def, hot *candidate, g *group, f facts, try func(string, int, workload.Rate) (*candidate, error)) (*tiered, error) {
	p := readcost.Pattern{Keys: f.keys, Rate: f.rate, Skew: f.skew}
	top := p.KeyRate(1)
	over := sizing.OverLimits(def.est.Largest, def.est.Target)
	if !(over > 1) || !(top > 0) {
		return nil, nil
	}
	th := top / over
	var capped *candidate
	for range 20 {
		c, err := try(def.width, 0, perKeyRate(th))
		if err != nil {
			return nil, err
		}
		if c.fits() {
			capped = c
			break
		}
		th *= 0.9
	}
	if capped == nil {
		return nil, nil
	}
	th = capped.work.Skew.MaxRate.PerSecond() // the cap as written in the workload file
	tt := &tiered{def: capped, hot: hot, threshold: th, hotKeys: hotKeys(p, th)}
	for _, a := range g.acc {
		dp := patternOf(f, a, def.table, def.width, 0, false)
		hp := patternOf(f, a, hot.table, hot.width, hot.shards, false)
		at := func(rank float64) readcost.Key {
			if r := dp.KeyRate(rank); r > th {
				return hp.ForRate(rank, r)
			}
			return dp.At(rank)
		}
		rc := readcost.Cost{Typical: at(workload.Rank(f.keys, 0.5)), P99: at(workload.Rank(f.keys, 0.99)), Busiest: at(1)}
		rc.PartitionReads = a.q.Rate * rc.Typical.Partitions
		tt.reads = append(tt.reads, rc)
		if e := hp.ForRate(0, th); e.Partitions > tt.edge.Partitions {
			tt.edge = e
		}
	}
	return tt, nil
}

// hotKeys is how many keys receive more than th rows a second: the ranks whose rate is
// over it (the rate falls with the rank).
func hotKeys(p readcost.Pattern, th float64) float64 {
	if p.KeyRate(1) <= th {
		return 0
	}
	lo, hi := 1.0, p.Keys // KeyRate(lo) > th
	if p.KeyRate(hi) > th {
		return hi
	}
	for hi-lo > 1 {
		mid := math.Floor((lo + hi) / 2)
		if p.KeyRate(mid) > th {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// perKeyRate is a per-key cap in the unit perKey writes rates in, rounded down so the cap
// as written never exceeds the threshold found.
func perKeyRate(perSecond float64) workload.Rate {
	r := perKey(perSecond)
	if r.PerSecond() > perSecond {
		p := math.Pow(10, 3-math.Floor(math.Log10(r.Count)))
		r.Count = math.Floor(perSecond*r.Per.Seconds()*p) / p
	}
	return r
}

// tierTable is the tier table of a query table: its key columns (the partition key without
// the bucket and shard), the instant from which a tier holds, the tier's name, bucket
// width and shards, newest first.
func tierTable(t *cql.Table, bucketCol, shardCol string) (name, create string) {
	name = t.Name + "_tiers"
	var cols, keys []string
	for _, c := range t.PartitionKey {
		if c.Name == bucketCol || c.Name == shardCol {
			continue
		}
		cols = append(cols, cql.QuoteName(c.Name)+" "+c.Type.String())
		keys = append(keys, cql.QuoteName(c.Name))
	}
	q := cql.QuoteName(name)
	if t.Keyspace != "" {
		q = cql.QuoteName(t.Keyspace) + "." + q
		name = t.Keyspace + "." + name
	}
	create = fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (\n    %s,\n    since timestamp,\n    tier text,\n    bucket text,\n    shards int,\n    PRIMARY KEY ((%s), since)\n) WITH CLUSTERING ORDER BY (since DESC)",
		q, strings.Join(cols, ",\n    "), strings.Join(keys, ", "))
	return name, create
}
