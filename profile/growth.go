package profile

import (
	"fmt"
	"math"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// The limits a partition is projected against: Cassandra's partition limits on bytes and
// values (sizing's SZ002 and SZ001, measured as estimate measures them), and their names as
// sizing states them ("100 MB", "100,000 values").
var (
	LimitBytes, LimitBytesName   = cassandraLimit(sizing.Bytes)
	LimitValues, LimitValuesName = cassandraLimit(sizing.Values)
)

// cassandraLimit is Cassandra's partition limit on m: its threshold and its name.
func cassandraLimit(m sizing.Measure) (float64, string) {
	for _, l := range sizing.PartitionLimits(sizing.Cassandra50) {
		if l.Measure == m {
			return l.Value, l.Short()
		}
	}
	return 0, ""
}

// Growth projects the table's partitions forward at the measured write rate. Sizes are
// sizing's Data.db byte model and its stored values (cells written), computed on the workload
// the profile writes, so a date here is the date `cqlsize estimate` gives for that workload
// with write_rate set to the measured rate.
type Growth struct {
	// Bucket is the span that bounds a partition ("" when none does), and BucketSource why.
	Bucket       string `json:"bucket,omitempty"`
	BucketSource string `json:"bucket_source,omitempty"`
	// RowsPerSecond is the write rate of an average partition; busier partitions grow in
	// proportion to their rows (the skew the sample shows).
	RowsPerSecond float64 `json:"rows_per_second"`
	// BytesPerRow and ValuesPerRow are what one more row adds to a partition in the model:
	// Data.db bytes (row header, clustering, timestamps, cells) and stored values.
	BytesPerRow  float64 `json:"bytes_per_row"`
	ValuesPerRow float64 `json:"values_per_row"`
	// Partitions are the typical, p99 and largest sampled partitions: now, and either when
	// they cross each limit (unbucketed) or how large they are at the end of their bucket.
	Partitions []GrowthPartition `json:"partitions"`
	Note       string            `json:"note,omitempty"`
}

// GrowthPartition is one partition's projection.
type GrowthPartition struct {
	Which string  `json:"which"` // typical, p99, largest
	Rows  float64 `json:"rows"`
	// Bytes and Values are its Data.db bytes and stored values now, by sizing's model.
	Bytes  float64 `json:"bytes"`
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
	Limit   string `json:"limit"` // "100 MB" or "100,000 values"
	Already bool   `json:"already"`
	Never   bool   `json:"never"` // a TTL caps it, or beyond a century
	// Unknown: no write rate could be measured (a bulk load, rows written at one time), so
	// no date can be known.
	Unknown bool      `json:"unknown,omitempty"`
	At      time.Time `json:"at,omitzero"`
	Seconds float64   `json:"seconds_from_now,omitempty"`
}

// GrowthSize is a projected partition size.
type GrowthSize struct {
	Rows   float64 `json:"rows"`
	Bytes  float64 `json:"bytes"`
	Values float64 `json:"values"`
}

// limitNames are the crossings a profile reports, keyed by sizing's limit codes.
var limitNames = []struct{ code, name string }{{"SZ002", LimitBytesName}, {"SZ001", LimitValuesName}}

// project fills t.Growth at time now.
func project(t *Table, now time.Time) {
	g := Growth{RowsPerSecond: t.WriteRate, Partitions: []GrowthPartition{}}
	var span time.Duration
	if t.Schema != nil {
		if w, col, ok := sizing.TableBucket(t.Schema); ok {
			g.Bucket, g.BucketSource = w.String(), "partition key column "+col
			span = w.Avg
		}
	}
	m, err := newModel(t)
	if err != nil {
		g.Note = "not projected: " + err.Error()
		t.Growth = g
		return
	}
	g.BytesPerRow, g.ValuesPerRow = m.perRow()
	mean := t.RowsPerPartition.Mean
	quantiles := t.RowsPerPartition
	closed := span > 0 && t.Keys != nil && t.Keys.ClosedPartitions > 0
	if closed {
		// Partitions of buckets already over hold all they will: they are not grown.
		quantiles = t.Keys.ClosedRows
	}
	for _, w := range []struct {
		which string
		rows  float64
	}{{"typical", quantiles.P50}, {"p99", quantiles.P99}, {"largest", quantiles.Max}} {
		p := GrowthPartition{Which: w.which, Rows: w.rows}
		if mean > 0 && !closed {
			p.RowsPerSecond = g.RowsPerSecond * w.rows / mean
		}
		nowSize, err := m.withRows(w.rows)
		if err != nil {
			g.Note = "not projected: " + err.Error()
			t.Growth = g
			return
		}
		p.Bytes, p.Values = nowSize.Bytes, nowSize.StoredValues
		if span > 0 {
			end := nowSize // no rate measured: a bucket holds what it holds now
			if p.RowsPerSecond > 0 {
				est, err := m.written(p.RowsPerSecond, true)
				if err != nil {
					g.Note = "not projected: " + err.Error()
					t.Growth = g
					return
				}
				end = est.Typical
			}
			p.AtBucketEnd = &GrowthSize{Rows: end.Rows, Bytes: end.Bytes, Values: end.StoredValues}
		} else {
			p.Crossings = m.crossings(p, now, t.WriteRate == 0)
		}
		g.Partitions = append(g.Partitions, p)
	}
	switch {
	case closed:
		g.Note = fmt.Sprintf("a %s bucket bounds each partition: the %d partitions read in buckets already over hold all they will, so these are their sizes, not grown",
			g.Bucket, t.Keys.ClosedPartitions)
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

// model sizes one partition of the table with sizing's byte model, on the workload the
// profile writes for it.
type model struct {
	tbl    *cql.Table
	w      *workload.TableWorkload
	schema *cql.Schema
}

// newModel reads back the workload WriteWorkload writes for t: the same text `cqlsize
// estimate --workload` would read, so the two size a partition alike.
func newModel(t *Table) (*model, error) {
	if t.Schema == nil {
		return nil, fmt.Errorf("no schema for %s.%s", t.Keyspace, t.Name)
	}
	tw, _ := tableWorkload(t)
	text := workload.Marshal(&workload.Workload{Tables: []*workload.TableWorkload{tw}}, nil)
	w, err := workload.Parse(t.Keyspace+"."+t.Name+" (profile)", []byte(text))
	if err != nil {
		return nil, fmt.Errorf("read back the workload of %s.%s: %w", t.Keyspace, t.Name, err)
	}
	if len(w.Tables) != 1 {
		return nil, fmt.Errorf("the workload of %s.%s has %d tables", t.Keyspace, t.Name, len(w.Tables))
	}
	s := cql.NewSchema()
	ks := t.types
	if ks == nil {
		ks = cql.NewKeyspace(t.Keyspace)
	}
	s.Keyspaces[t.Keyspace] = ks
	return &model{tbl: t.Schema, w: w.Tables[0], schema: s}, nil
}

// one is the workload of a single key written as the average one: the partition the
// estimate calls typical is then exactly the one asked about.
func (m *model) one() workload.TableWorkload {
	w := *m.w
	w.Partitions, w.Skew = 1, workload.Skew{}
	w.RowsPerPartition, w.WriteRate = 0, workload.Rate{}
	w.Fields = map[string]cql.Pos{} // the file's rows_per_partition is replaced, not kept beside a rate
	for k, v := range m.w.Fields {
		if k != "rows_per_partition" && k != "rows" && k != "write_rate" {
			w.Fields[k] = v
		}
	}
	return w
}

// withRows sizes a partition holding rows rows (no time: no TTL expiry).
func (m *model) withRows(rows float64) (sizing.Partition, error) {
	w := m.one()
	w.RowsPerPartition = rows
	if rows <= 0 {
		w.RowsPerPartition = 1e-9 // zero reads as "not declared"
	}
	est, err := sizing.EstimateTable(m.tbl, &w, sizing.Options{Schema: m.schema})
	if err != nil {
		return sizing.Partition{}, fmt.Errorf("size a partition of %s: %w", m.tbl.QualifiedName(), err)
	}
	return est.Typical, nil
}

// written estimates a partition written at perSec rows a second; bucketed keeps the table's
// bucket (its Typical is then the partition at the end of its bucket).
func (m *model) written(perSec float64, bucketed bool) (*sizing.Estimate, error) {
	w := m.one()
	w.WriteRate = workload.Rate{Count: perSec * 86400, Per: workload.Day}
	if !bucketed {
		w.Bucket = workload.Span{}
	}
	est, err := sizing.EstimateTable(m.tbl, &w, sizing.Options{Schema: m.schema})
	if err != nil {
		return nil, fmt.Errorf("project a partition of %s: %w", m.tbl.QualifiedName(), err)
	}
	return est, nil
}

// perRow is what a thousand more rows add, per row: Data.db bytes and stored values.
func (m *model) perRow() (bytesPerRow, valuesPerRow float64) {
	a, errA := m.withRows(1)
	b, errB := m.withRows(1001)
	if errA != nil || errB != nil {
		return 0, 0
	}
	return (b.Bytes - a.Bytes) / 1000, (b.StoredValues - a.StoredValues) / 1000
}

// crossings is when p, written at its rate from its size now, crosses each limit: the
// estimate's age at which a partition written at that rate from empty crosses it, less the
// age at which it holds p's rows now.
func (m *model) crossings(p GrowthPartition, now time.Time, unknownRate bool) []GrowthCrossing {
	cur := map[string]float64{"SZ002": p.Bytes, "SZ001": p.Values}
	lim := map[string]float64{"SZ002": LimitBytes, "SZ001": LimitValues}
	var est *sizing.Estimate
	if p.RowsPerSecond > 0 {
		est, _ = m.written(p.RowsPerSecond, false)
	}
	out := make([]GrowthCrossing, 0, len(limitNames))
	for _, l := range limitNames {
		c := GrowthCrossing{Limit: l.name}
		switch {
		case cur[l.code] >= lim[l.code]:
			c.Already = true
		case est == nil && p.RowsPerSecond == 0 && unknownRate:
			c.Unknown = true
		case est == nil:
			c.Never = true
		default:
			c.Never = true
			for _, x := range est.Crossings {
				if x.Limit.Code != l.code || x.TypicalNever {
					continue
				}
				secs := math.Max(0, x.Typical.Seconds()-p.Rows/p.RowsPerSecond)
				c.Never, c.Seconds = false, secs
				c.At = now.Add(time.Duration(secs * float64(time.Second))).UTC()
			}
		}
		out = append(out, c)
	}
	return out
}
