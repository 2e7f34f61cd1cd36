// Package readcost counts what one read of an access pattern costs on a bucketed or sharded
// table: the partitions it visits and the rows it passes, for the typical (median) key, the
// p99 key and the busiest key, and what the query's rate asks of the cluster.
//
// A partition under the limits is necessary, not sufficient: a table bucketed finely enough
// for its busiest key can make the median key's read walk back through thousands of
// near-empty buckets. The model is the arithmetic of docs/reads.md:
//
//   - a key's rate r is its Zipf share of the table's rate (workload.Skew.Activity), capped
//     by the skew's max_rate;
//   - a LIMIT L read newest-first walks ⌈L / (r·w)⌉ buckets of width w, at most the
//     ⌈retention / w⌉ retained, each read on every one of the S shards;
//   - a range read of width R visits ⌈R / w⌉ buckets on every shard;
//   - a read with neither walks every bucket retained;
//   - a partition visited is empty with probability e^(−r·w/S) (rows arrive as a Poisson
//     stream), so the walk's empty partitions are that share of those it visits;
//   - the cluster serves the query's rate times the typical read's partitions.
//
// It imports no driver and no sizing engine: design, check and estimate each fill a Pattern
// from what they know and call Of.
package readcost

import (
	"fmt"
	"math"
	"time"

	"github.com/cqlsize/cqlsize/workload"
)

// Pattern is one access pattern on one table, as the volumes describe it.
type Pattern struct {
	Keys      float64       // distinct partition keys before bucket and shard (≥ 1)
	Rate      float64       // rows a second written into the whole table
	Skew      workload.Skew // how the rows spread over the keys; MaxRate caps one key's rate
	Retention time.Duration // how long rows are kept (a TTL or the retention): the walk stops there
	Bucket    time.Duration // the bucket's width (0: no bucket, one partition a key and shard)
	Shards    int           // write shards a key is spread over (0 or 1: none)
	Limit     int           // the query's LIMIT (0: none)
	Range     time.Duration // the time range the query usually asks for (0: none)
	ReadRate  float64       // reads a second (0: not given)
}

// Key is the cost of one read for one key.
type Key struct {
	Rank       float64 // the key's rank by rate (1 = busiest)
	Rate       float64 // rows a second the key receives
	Partitions float64 // partitions one read visits (buckets walked × shards)
	Buckets    float64 // buckets it walks, one after another (the shards of a bucket in parallel)
	Rows       float64 // rows the read passes
	Empty      float64 // of Partitions, how many hold no row
}

// Cost is one access pattern's read cost.
type Cost struct {
	Typical, P99, Busiest Key
	// PartitionReads is the query's rate times the typical read's partitions: the partition
	// reads a second the cluster serves for it (0 when the pattern gives no read rate).
	PartitionReads float64
}

// Of computes the read cost of p. A pattern without keys, rate or retention is an error
// naming the missing field; the model never divides by them.
func Of(p Pattern) (Cost, error) {
	switch {
	case !(p.Keys >= 1):
		return Cost{}, fmt.Errorf("read cost: keys must be at least 1, got %v", p.Keys)
	case !(p.Rate >= 0):
		return Cost{}, fmt.Errorf("read cost: rate must be a number of rows a second, got %v", p.Rate)
	case p.Retention <= 0:
		return Cost{}, fmt.Errorf("read cost: retention must be positive, got %v", p.Retention)
	case p.Bucket < 0 || p.Range < 0 || p.Limit < 0 || p.Shards < 0 || p.ReadRate < 0:
		return Cost{}, fmt.Errorf("read cost: bucket, range, limit, shards and read rate cannot be negative")
	}
	c := Cost{
		Typical: p.At(workload.Rank(p.Keys, 0.5)),
		P99:     p.At(workload.Rank(p.Keys, 0.99)),
		Busiest: p.At(1),
	}
	c.PartitionReads = p.ReadRate * c.Typical.Partitions
	return c, nil
}

// KeyRate is the rows a second the key of rank receives: its share of the table's rate,
// capped by the skew's max_rate.
func (p Pattern) KeyRate(rank float64) float64 {
	keys := math.Max(1, p.Keys)
	r := p.Rate * p.Skew.Activity(keys, rank) / keys
	if m := p.Skew.MaxRate.PerSecond(); m > 0 && r > m {
		r = m
	}
	return r
}

// At is the read cost for the key of the given rank.
func (p Pattern) At(rank float64) Key {
	return p.ForRate(rank, p.KeyRate(rank))
}

// ForRate is the read cost for a key that receives rate rows a second (rank only labels it).
func (p Pattern) ForRate(rank, rate float64) Key {
	k := Key{Rank: rank, Rate: rate}
	shards := float64(max(1, p.Shards))
	life := p.Retention.Seconds()
	kept := rate * life // rows the key holds
	want := kept
	if p.Range > 0 {
		want = math.Min(want, rate*p.Range.Seconds())
	}
	if p.Limit > 0 {
		want = math.Min(want, float64(p.Limit))
	}
	k.Rows = want
	if p.Bucket <= 0 {
		k.Partitions, k.Buckets = shards, 1
		k.Empty = shards * math.Exp(-rate*life/shards)
		return k
	}
	w := p.Bucket.Seconds()
	retained := math.Ceil(life/w - 1e-9)
	buckets := retained // neither LIMIT nor range: every bucket kept
	if p.Range > 0 {
		buckets = math.Min(buckets, math.Ceil(p.Range.Seconds()/w-1e-9))
	}
	if p.Limit > 0 {
		perBucket := rate * w
		need := retained
		if perBucket > 0 {
			need = math.Ceil(float64(p.Limit)/perBucket - 1e-9)
		}
		buckets = math.Min(buckets, need)
	}
	buckets = math.Max(1, buckets)
	k.Partitions, k.Buckets = buckets*shards, buckets
	k.Empty = k.Partitions * math.Exp(-rate*w/shards)
	return k
}

// EmptyShare is the share of the partitions the read visits that hold no row (0 when it
// visits none).
func (k Key) EmptyShare() float64 {
	if k.Partitions <= 0 {
		return 0
	}
	return k.Empty / k.Partitions
}
