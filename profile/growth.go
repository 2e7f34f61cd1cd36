package profile

import (
	"fmt"
	"math"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
)

// The limits a partition is projected against: Cassandra's guidance of 100 MB and 100,000
// values a partition.
const (
	LimitBytes  = 100e6
	LimitValues = 100000
)

// Growth projects the table's partitions forward at the measured write rate.
type Growth struct {
	// Bucket is the span that bounds a partition ("" when none does), and BucketSource why.
	Bucket       string `json:"bucket,omitempty"`
	BucketSource string `json:"bucket_source,omitempty"`
	// RowsPerSecond is the write rate of an average partition; busier partitions grow in
	// proportion to their rows (the skew the sample shows).
	RowsPerSecond float64 `json:"rows_per_second"`
	BytesPerRow   float64 `json:"value_bytes_per_row"`
	ValuesPerRow  float64 `json:"values_per_row"`
	// Partitions are the typical, p99 and largest sampled partitions: now, and either when
	// they cross each limit (unbucketed) or how large they are at the end of their bucket.
	Partitions []GrowthPartition `json:"partitions"`
	Note       string            `json:"note,omitempty"`
}

// GrowthPartition is one partition's projection.
type GrowthPartition struct {
	Which  string  `json:"which"` // typical, p99, largest
	Rows   float64 `json:"rows"`
	Bytes  float64 `json:"value_bytes"`
	Values float64 `json:"values"`
	// RowsPerSecond is this partition's projected rate (the table's × rows / average rows).
	RowsPerSecond float64 `json:"rows_per_second"`
	// Crossings: when it passes 100 MB and 100,000 values (unbucketed only).
	Crossings []GrowthCrossing `json:"crossings,omitempty"`
	// AtBucketEnd is its size when its bucket closes (bucketed only).
	AtBucketEnd *GrowthSize `json:"at_bucket_end,omitempty"`
}

// GrowthCrossing is when a partition reaches a limit.
type GrowthCrossing struct {
	Limit   string    `json:"limit"` // "100 MB" or "100,000 values"
	Already bool      `json:"already"`
	Never   bool      `json:"never"` // no writes measured, or beyond a century
	At      time.Time `json:"at,omitzero"`
	Seconds float64   `json:"seconds_from_now,omitempty"`
}

// GrowthSize is a projected partition size.
type GrowthSize struct {
	Rows   float64 `json:"rows"`
	Bytes  float64 `json:"value_bytes"`
	Values float64 `json:"values"`
}

const century = 100 * 365.25 * 24 * time.Hour

// project fills t.Growth at time now.
func project(t *Table, now time.Time) {
	g := Growth{RowsPerSecond: t.WriteRate, Partitions: []GrowthPartition{}}
	if t.RowBytes.N > 0 {
		g.BytesPerRow = t.RowBytes.Mean
	}
	var span time.Duration
	if t.Schema != nil {
		g.ValuesPerRow = float64(len(t.Schema.ColumnsOf(cql.Regular)))
		if w, col, ok := sizing.TableBucket(t.Schema); ok {
			g.Bucket, g.BucketSource = w.String(), "partition key column "+col
			span = w.Avg
		}
	}
	mean := t.RowsPerPartition.Mean
	statics := 0.0
	if t.Schema != nil && len(t.Schema.ColumnsOf(cql.Static)) > 0 {
		statics = float64(len(t.Schema.ColumnsOf(cql.Static)))
	}
	perPartition := 0.0 // key and static bytes
	if t.RowsPerPartition.Mean > 0 {
		perPartition = math.Max(0, t.PartitionBytes.Mean-g.BytesPerRow*t.RowsPerPartition.Mean)
	}
	for _, w := range []struct {
		which string
		rows  float64
	}{{"typical", t.RowsPerPartition.P50}, {"p99", t.RowsPerPartition.P99}, {"largest", t.RowsPerPartition.Max}} {
		p := GrowthPartition{Which: w.which, Rows: w.rows, Bytes: perPartition + w.rows*g.BytesPerRow,
			Values: w.rows*g.ValuesPerRow + statics}
		if mean > 0 {
			p.RowsPerSecond = g.RowsPerSecond * w.rows / mean
		}
		if span > 0 {
			r := p.RowsPerSecond * span.Seconds()
			if r == 0 {
				r = w.rows // no rate measured: a bucket holds what it holds now
			}
			p.AtBucketEnd = &GrowthSize{Rows: r, Bytes: perPartition + r*g.BytesPerRow, Values: r*g.ValuesPerRow + statics}
		} else {
			p.Crossings = []GrowthCrossing{
				cross("100 MB", p.Bytes, LimitBytes, p.RowsPerSecond*g.BytesPerRow, now),
				cross("100,000 values", p.Values, LimitValues, p.RowsPerSecond*g.ValuesPerRow, now),
			}
		}
		g.Partitions = append(g.Partitions, p)
	}
	switch {
	case t.WriteRate == 0:
		g.Note = "no write rate measured: " + t.WriteRateSource
	case span > 0:
		g.Note = fmt.Sprintf("a %s bucket bounds each partition: sizes are at the end of a bucket written at the measured rate", g.Bucket)
	default:
		g.Note = "no bucket bounds these partitions: they grow at the measured rate until deleted or expired"
	}
	if t.TTL.N > 0 && span == 0 && t.WriteRate > 0 {
		// Under a TTL a partition levels off at rate × TTL rows.
		g.Note += fmt.Sprintf("; cells carry a TTL (median %s), so a partition levels off at about its rate × TTL", time.Duration(t.TTL.P50*float64(time.Second)).Round(time.Second))
	}
	t.Growth = g
}

// cross is when a quantity now at cur, growing by perSec, reaches limit.
func cross(limit string, cur, lim, perSec float64, now time.Time) GrowthCrossing {
	c := GrowthCrossing{Limit: limit}
	switch {
	case cur >= lim:
		c.Already = true
	case perSec <= 0:
		c.Never = true
	default:
		secs := (lim - cur) / perSec
		if secs > century.Seconds() {
			c.Never = true
			break
		}
		c.Seconds = secs
		c.At = now.Add(time.Duration(secs * float64(time.Second))).UTC()
	}
	return c
}
