package design

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/bound"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// choose picks the coarsest bucket whose p99 and largest partition (the Zipf head) stay
// under the target's partition limits (sizing.LimitsText) over the life of the rows, no bucket when none is needed,
// and write shards under the finest bucket when no bucket holds the busiest key.
func choose(t *Table, g *group, name string, ev *Entity, in Input) error {
	sh := g.sh
	f, err := factsOf(sh, ev, in.Volumes.File)
	if err != nil {
		return err
	}
	ttl := 0
	if f.ttl {
		ttl = int(f.life / time.Second)
	}
	try := func(width string, shards int, capRate workload.Rate) (*candidate, error) {
		tbl, derive := sh.build(name, width, shards, g.want, g.star, ttl)
		if ttl > 0 && isSeries(tbl, width) {
			tbl.Options.Compaction = sizing.TWCSWindowFor(spanOf(width), f.life).Compaction()
		}
		work := workloadFor(tbl, f, ev, sh, width, shards)
		if !capRate.IsZero() {
			work.Skew.MaxRate = capRate
		}
		est, err := sizing.EstimateTable(tbl, work, sizing.Options{Target: in.Target, Schema: in.Schema})
		if err != nil {
			return nil, fmt.Errorf("size %s: %w", tbl.Name, err)
		}
		c := &candidate{width: width, shards: shards, table: tbl, derive: derive, work: work, est: est}
		if err := c.costs(g, f); err != nil {
			return nil, err
		}
		return c, nil
	}
	t.Reasons = append(t.Reasons, fmt.Sprintf("%s rows kept (%s for a %s of %s) over %s keys: %s a key on average, skew %s",
		sizing.FormatCount(f.rate*f.life.Seconds()), rateText(f.rate), lifeWord(f), workload.FormatDuration(f.life),
		f.keyText, rowsText(f.rate*f.life.Seconds()/f.keys), f.skew))
	var last *candidate
	var over []*candidate // bucketed candidates over the limits, coarsest first
	for _, w := range widths {
		if w != "" && (sh.timeCol == nil || spanOf(w).Avg > f.life) {
			continue // no time to cut, or a bucket longer than the rows live
		}
		c, err := try(w, 0, workload.Rate{})
		if err != nil {
			return err
		}
		t.Reasons = append(t.Reasons, c.describe())
		last = c
		if c.fits() {
			// The coarsest bucket that fits is also the one whose reads walk the fewest
			// buckets; when even its typical read is a scatter, the coarser buckets may
			// serve the typical key if the hot ones go finer.
			return settleOrTier(t, g, name, sh, c, over, f, try)
		}
		if w != "" {
			over = append(over, c)
		}
	}
	// No bucket holds the busiest key: spread every key over write shards under the finest
	// bucket, as many as the head needs, with room for shards filling unevenly.
	r := sizing.OverLimits(last.est.Largest, in.Target)
	n := int(math.Ceil(r * 1.25))
	for ; n <= maxShards; n = int(math.Ceil(float64(n) * 1.5)) {
		c, err := try(last.width, n, workload.Rate{})
		if err != nil {
			return err
		}
		if c.fits() {
			if last.width == "" {
				t.Reasons = append(t.Reasons, fmt.Sprintf("no time bucket serves this pattern (the entity has no time column, or the pattern slices or orders by another column, which buckets would answer bucket by bucket), so every key is spread over write shards: %s", c.describe()))
			} else {
				t.Reasons = append(t.Reasons, fmt.Sprintf("no bucket down to %s holds the busiest key, so every key is spread over write shards: %s", widthText(last.width), c.describe()))
			}
			return settleOrTier(t, g, name, sh, c, over, f, try)
		}
	}
	return cql.Errorf(ev.FieldPos("rows"), "workload: %s: no table can hold the busiest %s: even %s with %d write shards a partition is over %s (%s); lower the volume, shorten the retention or split the key",
		ev.Name, keyNames(sh.pk), strings.TrimPrefix(orNone(last.width), "a "), maxShards, sizing.LimitsText(in.Target, "or"), last.describe())
}

// settleOrTier settles on c, the scheme that holds every key, unless its typical read
// visits more than a few partitions and tiers serve it cheaper: the keys under a coarser
// bucket's threshold on that bucket, the rest on c. Of the coarser buckets (over, each over
// the limits for its busiest key) the one whose tiers give the cheapest typical read wins,
// then the cheapest p99 read, then the fewest hot keys.
func settleOrTier(t *Table, g *group, name string, sh *shape, c *candidate, over []*candidate, f facts,
	try func(string, int, workload.Rate) (*candidate, error)) error {
	if c.typical() <= fewPartitions || sh.timeCol == nil || sh.identity == nil || c.width == "" {
		return settle(t, sh, c, f)
	}
	var best *tiered
	for _, d := range over {
		if d.width == c.width {
			continue
		}
		tt, err := tierFor(d, c, g, f, try)
		if err != nil {
			return err
		}
		if tt == nil {
			continue
		}
		if best == nil || better(tt, best) {
			best = tt
		}
	}
	if best == nil || worst(best.reads).Typical.Partitions >= c.typical() {
		return settle(t, sh, c, f)
	}
	return settleTiers(t, g, name, sh, best, c, f, try)
}

// better orders tier plans: the cheaper typical read, then the cheaper p99 read, then the
// fewer hot keys.
func better(a, b *tiered) bool {
	wa, wb := worst(a.reads), worst(b.reads)
	if wa.Typical.Partitions != wb.Typical.Partitions {
		return wa.Typical.Partitions < wb.Typical.Partitions
	}
	if wa.P99.Partitions != wb.P99.Partitions {
		return wa.P99.Partitions < wb.P99.Partitions
	}
	return a.hotKeys < b.hotKeys
}

// settleTiers records a tiered design on t: the table keyed by a bucket column every width
// fills and a shard column (shard(id, 1) on the default tier), sized as the default tier
// with every key capped at the threshold; the hot tier's partitions as its own estimate
// gives them; and the tier table the keys' tiers live in.
func settleTiers(t *Table, g *group, name string, sh *shape, tt *tiered, single *candidate, f facts,
	try func(string, int, workload.Rate) (*candidate, error)) error {
	shards := 0
	if tt.hot.shards > 1 {
		shards = tt.hot.shards
	}
	c, err := try(tt.def.width, shards, tt.def.work.Skew.MaxRate)
	if err != nil {
		return err
	}
	// One bucket column for every tier's width, one shard column for the hot tier's shards.
	from, _, _ := bucketColumn(tt.def.width, sh.entity)
	bcol := "bucket"
	for sh.entity.Column(bcol) != nil {
		bcol += "_tier"
	}
	shardCol := ""
	if shards > 1 {
		shardCol = c.table.PartitionKey[len(c.table.PartitionKey)-1].Name
	}
	for _, col := range append(append([]*cql.Column{}, c.table.Columns...), c.table.PartitionKey...) {
		if col.Name == from {
			col.Name = bcol
		}
	}
	for i, dv := range c.derive {
		switch dv.Column {
		case from:
			c.derive[i].Column = bcol
		case "":
		case shardCol:
			c.derive[i].Expr = "shard(" + sh.identity.Name + ", 1)"
		}
	}
	// The default tier's workload: every key capped at the threshold, one shard.
	c.work = tt.def.work
	c.work.Name = c.table.QualifiedName()
	c.est = tt.def.est
	c.shards, c.tiered = 0, true
	if err := settle(t, sh, c, f); err != nil {
		return err
	}
	t.BucketColumn, t.ShardColumn = bcol, shardCol
	tname, create := tierTable(c.table, bcol, shardCol)
	t.Tiers = &Tiers{Table: tname, CreateTable: create, Default: Tier{Bucket: tt.def.width}, Hot: Tier{Bucket: tt.hot.width, Shards: tt.hot.shards},
		Threshold: tt.threshold, HotKeys: tt.hotKeys, Keys: f.keys, HotLargest: tt.hot.est.Largest, EdgeRead: tt.edge}
	t.reads = tt.reads
	hot := tt.hot.est.Largest
	t.Reasons = append(t.Reasons, fmt.Sprintf("tiers: no single scheme holds the busiest key and serves the typical read in %d partitions or fewer (%s), so the keys go on two tiers: "+
		"the default %s for every key that receives up to %s (%s rows a second, the rate at which its %s partition reaches the limits: %s keys of %s are over it), "+
		"and the hot %s for the keys over it (its busiest partition %s rows, %s values, %s; a key just over the threshold reads %s there); %s",
		fewPartitions, readText(worst(single.reads)), Tier{Bucket: tt.def.width}, perKey(tt.threshold), trimFloat(tt.threshold), tt.def.width,
		sizing.FormatCount(tt.hotKeys), sizing.FormatCount(f.keys), Tier{Bucket: tt.hot.width, Shards: tt.hot.shards},
		sizing.FormatCount(hot.Rows), sizing.FormatCount(hot.StoredValues), sizing.FormatBytes(hot.Bytes), partitionsText(tt.edge.Partitions), readText(worst(tt.reads))))
	t.Notes = append(t.Notes, fmt.Sprintf("a key's tier is a row of %s (none: the default tier); writers cache it, and a key is promoted when its rate passes %s, from the next bucket boundary of both schemes, so every bucket of a key has one scheme and a read walks each period with the scheme it had",
		tname, perKey(tt.threshold)))
	return nil
}

// settle records the chosen candidate on t.
func settle(t *Table, sh *shape, c *candidate, f facts) error {
	t.Table, t.Derive, t.Workload, t.Estimate = c.table, c.derive, c.work, c.est
	t.reads = c.reads
	t.Bucket = c.width
	if c.width != "" {
		t.BucketColumn, _, _ = bucketColumn(c.width, sh.entity)
	}
	if c.shards > 1 {
		t.Shards, t.ShardColumn = c.shards, t.Table.PartitionKey[len(t.Table.PartitionKey)-1].Name
		t.Notes = append(t.Notes, fmt.Sprintf("%s is a write shard: shard(%s, %d) spreads each key's rows over %d partitions; a read visits all %d (bucket.Scheme.Partitions lists them)",
			t.ShardColumn, sh.identity.Name, c.shards, c.shards, c.shards))
	}
	switch {
	case c.width == "" && bound.Judge(t.Table).Unbounded():
		t.NoLint = fmt.Sprintf("sized: %s rows a partition over %s at most (%s values, %s): no bucket needed", sizing.FormatCount(c.est.Largest.Rows), workload.FormatDuration(f.life),
			sizing.FormatCount(c.est.Largest.StoredValues), sizing.FormatBytes(c.est.Largest.Bytes))
		t.Reasons = append(t.Reasons, "no bucket: the busiest partition stays under the limits for as long as its rows are kept")
	case c.width == "" || c.tiered: // a tiered table's reason is its tiers'
	case c.shards > 1:
		t.Reasons = append(t.Reasons, fmt.Sprintf("bucket by %s of %s (%s is %s(%s)), the finest bucket tried, with %d write shards: the fewest that keep the largest partition under the limits",
			c.width, t.TimeColumn, t.BucketColumn, bucketFunc(c.width), t.TimeColumn, c.shards))
	default:
		t.Reasons = append(t.Reasons, fmt.Sprintf("bucket by %s of %s: the coarsest that keeps the p99 and the largest partition under the limits; %s is %s(%s)",
			c.width, t.TimeColumn, t.BucketColumn, bucketFunc(c.width), t.TimeColumn))
	}
	if c.table.Options.DefaultTTL > 0 {
		t.Reasons = append(t.Reasons, fmt.Sprintf("rows expire: default_time_to_live %d (%s)", c.table.Options.DefaultTTL, workload.FormatDuration(f.life)))
		graceFor(t, c, f)
		if cls := c.table.Options.Compaction["class"]; cls != "" {
			t.Reasons = append(t.Reasons, fmt.Sprintf("TimeWindowCompactionStrategy, windows of %s %s: whole sstables expire and are dropped without compacting tombstones",
				c.table.Options.Compaction["compaction_window_size"], c.table.Options.Compaction["compaction_window_unit"]))
		}
	}
	return nil
}

func bucketFunc(width string) string {
	_, fn, _ := bucketColumn(width, &cql.Table{})
	return fn
}

func orNone(width string) string {
	if width == "" {
		return "no bucket"
	}
	return "a " + width + " bucket"
}

// widthText is "an hour", "a day", or "no bucket" when the table has no time to cut.
func widthText(width string) string {
	switch width {
	case "":
		return "no bucket (no time column to cut)"
	case "hour", "iso-week":
		return "an " + width
	}
	return "a " + width
}

// rowsText is "1 row", "730 rows".
func rowsText(n float64) string {
	if s := sizing.FormatCount(n); s != "1" {
		return s + " rows"
	}
	return "1 row"
}

func spanOf(width string) workload.Span {
	s, _ := workload.ParseSpan(width)
	return s
}

func lifeWord(f facts) string {
	if f.ttl {
		return "TTL"
	}
	return "retention"
}

func rateText(perSecond float64) string {
	r := perKey(perSecond)
	return r.String()
}

// isSeries reports whether a table holds a time series: bucketed, or clustered first by a
// time.
func isSeries(t *cql.Table, width string) bool {
	return width != "" || len(t.Clustering) > 0 && isTime(t.Clustering[0])
}

// graces are the gc_grace_seconds a TTL'd table may get, longest first: the default ten
// days, a day, three hours (max_hint_window), an hour, 15 and 5 minutes, a minute.
var graces = []int{864000, 86400, 10800, 3600, 900, 300, 60}

// tombstoneWarn is tombstone_warn_threshold: a read that passes more tombstones is logged.
const tombstoneWarn = 1000

// graceFor lowers gc_grace_seconds on a TTL'd, insert-only table when the busiest partition
// receives so many rows that the ones expired within gc_grace_seconds would pass
// tombstone_warn_threshold in the read of a bucket reaching its expiry. Expired cells need no
// repair to reach every replica (each expires them itself), so the usual reason for ten days
// does not hold; what a lower value costs is hints: a hint lives no longer than the table's
// gc_grace_seconds, so a replica down longer misses writes until a repair.
func graceFor(t *Table, c *candidate, f facts) {
	span := f.life
	if c.width != "" {
		span = spanOf(c.width).Max
	}
	rate := c.est.Largest.Rows / span.Seconds() // rows a second into the busiest partition
	if rate*float64(graces[0]) <= 0.9*tombstoneWarn {
		return
	}
	g := graces[len(graces)-1]
	for _, v := range graces {
		if rate*float64(v) <= 0.9*tombstoneWarn {
			g = v
			break
		}
	}
	t.Table.Options.GCGraceSeconds = g
	if t.Table.Options.Raw == nil {
		t.Table.Options.Raw = map[string]any{}
	}
	t.Table.Options.Raw["gc_grace_seconds"] = fmt.Sprint(g)
	t.Reasons = append(t.Reasons, fmt.Sprintf("gc_grace_seconds %d: the busiest partition receives %s rows a second, and a read of a bucket reaching its expiry passes the rows expired within gc_grace_seconds as tombstones: %s of them, under tombstone_warn_threshold (1000); with the default ten days, %s",
		g, trimFloat(rate), sizing.FormatCount(rate*float64(g)), sizing.FormatCount(rate*float64(graces[0]))))
	t.Notes = append(t.Notes, fmt.Sprintf("gc_grace_seconds %d also bounds hints for this table: a replica down longer than %s misses its writes until a repair (expired rows need no repair, so the TTL is safe)",
		g, workload.FormatDuration(time.Duration(g)*time.Second)))
}
