// Package bound says what bounds a partition of a table: a time bucket in the partition key,
// a count bucket, a default TTL, a key that names a short-lived thing, or nothing; and
// whether the table is a time series at all (clustered by event time).
//
// It is one rule shared by the lint that warns about unbounded time series (BK101) and by
// `cqlsize estimate`, which sizes a partition over the bucket the key implies: when the two
// disagreed, estimate advised "add a time bucket" to tables the lint called bucketed. The
// rule reads only the schema (names, types, key positions, options), so it is a heuristic;
// every verdict carries its reason in words, so a user can see why and overrule it (a
// nolint directive, or a workload that sizes the table).
//
// The package is pure and imports only cql.
package bound

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Kind is what bounds a partition.
type Kind int

// Kinds of bound.
const (
	// TimeBucket: a partition key column that holds a span of time (day date, bucket int,
	// yyyymm, ...): each partition stops growing when its span is over.
	TimeBucket Kind = iota + 1
	// CountBucket: a partition key column numbering fixed-size pieces of one key
	// (partition_nr = sequence_nr / N): a partition stops growing when it is full.
	CountBucket
	// TTL: default_time_to_live expires every row, so a partition holds at most that much
	// time of writes.
	TTL
	// ShortLived: the partition key names a thing that ends (a trace, a session, an
	// order): its rows stop coming when it does.
	ShortLived
)

func (k Kind) String() string {
	switch k {
	case TimeBucket:
		return "time bucket"
	case CountBucket:
		return "count bucket"
	case TTL:
		return "TTL"
	case ShortLived:
		return "short-lived key"
	}
	return "none"
}

// Bound is one thing that bounds a partition.
type Bound struct {
	Kind Kind
	// Column is the partition key column (TimeBucket, CountBucket, ShortLived).
	Column string
	// Width is the span a TimeBucket column's name or type says, named as the bucket
	// package and `--bucket` read it: minute, hour, day, iso-week, month or year. Empty when
	// the column is a bucket of unknown width (bucket int, ts_bucket, partition, slot).
	Width string
	// TTL is default_time_to_live in seconds (Kind TTL).
	TTL int
	// Reason says it in words.
	Reason string
}

// Verdict is what bounds a table's partitions.
type Verdict struct {
	// TimeSeries: the table is clustered by event time (Time).
	TimeSeries bool
	// Time is the clustering column holding event time, nil when not a time series.
	Time *cql.Column
	// Bounds lists what bounds the partition, time bucket first.
	Bounds []Bound
	// Shard is a write-shard column of the partition key (shard = hash % N). It spreads a
	// key over N partitions but bounds none: each still grows. Nil when there is none.
	Shard *cql.Column
	// Reason says the verdict in words: why it is or is not a time series, and what bounds
	// it or that nothing does.
	Reason string
}

// Unbounded reports whether the table is a time series that nothing bounds: each partition
// grows for as long as its key is written.
func (v Verdict) Unbounded() bool { return v.TimeSeries && len(v.Bounds) == 0 }

// Judge says whether a table is a time series and what bounds its partitions. It reads the
// table as given: pass the table as a history leaves it (a later ALTER ... WITH
// default_time_to_live bounds it too). A nil table is not a time series.
func Judge(t *cql.Table) Verdict {
	var v Verdict
	if t == nil {
		v.Reason = "no table"
		return v
	}
	v.Bounds, v.Shard = partitionBounds(t)
	col, why := series(t)
	if col == nil {
		v.Reason = "not a time series: " + why
		return v
	}
	v.TimeSeries, v.Time = true, col
	// A short-lived key bounds a series only; say it only for one.
	for _, c := range t.PartitionKey {
		if noun, ok := shortLived(c.Name); ok {
			v.Bounds = append(v.Bounds, Bound{Kind: ShortLived, Column: c.Name,
				Reason: fmt.Sprintf("the partition is one %s (%s): its rows stop coming when it ends", noun, c.Name)})
			break
		}
	}
	if len(v.Bounds) == 0 {
		what := col.Type.String()
		if why != "" {
			what += "; " + why
		}
		v.Reason = fmt.Sprintf("clustered by event time %s (%s) and nothing bounds partition (%s): no time bucket, no count column, no TTL",
			col.Name, what, keyNames(t.PartitionKey))
		if v.Shard != nil {
			v.Reason += fmt.Sprintf("; the shard column %s spreads a key over a fixed number of partitions, but bounds none of them", v.Shard.Name)
		}
		return v
	}
	var bs []string
	for _, b := range v.Bounds {
		bs = append(bs, b.Reason)
	}
	v.Reason = fmt.Sprintf("clustered by event time %s, bounded: %s", col.Name, strings.Join(bs, "; "))
	return v
}

// Bucket returns the time bucket column of the table's partition key, if it has one. Its
// Width is empty when the column is a bucket whose width the schema does not say.
func Bucket(t *cql.Table) (Bound, bool) {
	if t == nil {
		return Bound{}, false
	}
	bs, _ := partitionBounds(t)
	for _, b := range bs {
		if b.Kind == TimeBucket {
			return b, true
		}
	}
	return Bound{}, false
}

func keyNames(cols []*cql.Column) string {
	var out []string
	for _, c := range cols {
		out = append(out, c.Name)
	}
	return strings.Join(out, ", ")
}

// partitionBounds reads the partition key and the options: time and count buckets, a TTL,
// and a write-shard column (which is not a bound).
func partitionBounds(t *cql.Table) (bounds []Bound, shard *cql.Column) {
	var counts []Bound
	for _, c := range t.PartitionKey {
		switch {
		case isShard(c):
			if shard == nil {
				shard = c
			}
		case isCount(c):
			counts = append(counts, Bound{Kind: CountBucket, Column: c.Name,
				Reason: fmt.Sprintf("%s numbers fixed-size pieces of a key (a count bucket): a partition stops growing when it is full", c.Name)})
		default:
			if b, ok := timeBucket(c); ok {
				bounds = append(bounds, b)
			}
		}
	}
	bounds = append(bounds, counts...)
	if ttl := t.Options.DefaultTTL; ttl > 0 {
		bounds = append(bounds, Bound{Kind: TTL, TTL: ttl,
			Reason: fmt.Sprintf("default_time_to_live %s expires every row, so a partition holds at most %s of writes", seconds(ttl), seconds(ttl))})
	}
	return bounds, shard
}

// seconds renders a TTL in the largest whole unit: 7d, 3h, 90s.
func seconds(n int) string {
	switch {
	case n%86400 == 0:
		return fmt.Sprintf("%dd", n/86400)
	case n%3600 == 0:
		return fmt.Sprintf("%dh", n/3600)
	case n%60 == 0:
		return fmt.Sprintf("%dm", n/60)
	}
	return fmt.Sprintf("%ds", n)
}

func native(c *cql.Column, names ...string) bool {
	if c.Type.Kind != cql.Native {
		return false
	}
	for _, n := range names {
		if c.Type.Name == n {
			return true
		}
	}
	return false
}
