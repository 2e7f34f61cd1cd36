package profile

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

func table(t *testing.T, ddl string) *cql.Table {
	t.Helper()
	s := cql.NewSchema()
	if err := s.ApplyFile("s.cql", []byte("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; "+ddl)); err != nil {
		t.Fatal(err)
	}
	for _, tb := range s.Tables() {
		return tb
	}
	t.Fatal("no table")
	return nil
}

// growthTable is a profiled table with sparse columns: the model counts the values a row
// stores (cells written), not its columns.
func growthTable(t *testing.T, ddl string, rows Dist, rate float64) (*Result, *Table) {
	t.Helper()
	tb := &Table{Keyspace: "ks", Schema: table(t, ddl),
		PartitionsSeen: rows.N, Partitions: 5000, PartitionsSource: "extrapolated",
		RowsPerPartition: rows, MeanRows: rows.Mean, MeanRowsSource: "the sample's mean",
		Skew:      SkewFit{Kind: "uniform", Note: "R² 0.2 < 0.9"},
		WriteRate: rate, WriteRateSource: "WRITETIME over 100 partitions",
	}
	tb.Name = tb.Schema.Name
	for _, c := range tb.Schema.Columns {
		col := &Column{Name: c.Name, Kind: kindName(c.Kind), Rows: 1000, Size: Dist{N: 1000, Mean: 4}}
		if c.Name == "body" {
			col.Size, col.NullFraction = Dist{N: 500, Mean: 300}, 0.5
		}
		if c.Name == "title" {
			col.Size = Dist{N: 1000, Mean: 40}
		}
		tb.Columns = append(tb.Columns, col)
	}
	return &Result{Keyspace: "ks", Consistency: "LOCAL_ONE", Tables: []*Table{tb}}, tb
}

// estimateOf is what `cqlsize estimate` says of the workload r writes, with write_rate set to
// perSec rows a second, as the workload's comment tells the reader to do.
func estimateOf(t *testing.T, r *Result, tb *Table, perSec float64) *sizing.Estimate {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteWorkload(&b); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Parse("w.yaml", b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	tw := w.Table(tb.Keyspace + "." + tb.Name)
	delete(tw.Fields, "rows_per_partition") // replaced by write_rate, as the file's comment says
	tw.RowsPerPartition, tw.WriteRate = 0, workload.Rate{Count: perSec * 86400, Per: workload.Day}
	est, err := sizing.EstimateTable(tb.Schema, tw, sizing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return est
}

// TestGrowthAgreesWithEstimate: a profile's crossing dates are estimate's on the workload the
// profile writes with the measured write rate: the same Data.db bytes and stored values. A
// partition the profile finds with R rows at r rows/s is, in the estimate, R/r into its
// life, so the profile's time from now plus R/r is the estimate's age at the crossing.
func TestGrowthAgreesWithEstimate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const rate = 0.01 // rows a second in the average partition
	r, tb := growthTable(t, "CREATE TABLE ks.inbox (user int, at timeuuid, title text, body text, n int, PRIMARY KEY (user, at));",
		Dist{N: 100, Mean: 200, P50: 200, P99: 900, Max: 1000}, rate)
	project(tb, now)
	g := tb.Growth
	if g.Bucket != "" || len(g.Partitions) != 3 || strings.HasPrefix(g.Note, "not projected") {
		t.Fatalf("growth: %+v", g)
	}
	// Data.db bytes exceed the value bytes (row header, timestamps, cell flags), and a row
	// whose body is unset half the time stores 2.5 values of its 3 regular columns.
	if g.BytesPerRow <= 16+4+40+150+4 || math.Abs(g.ValuesPerRow-2.5) > 1e-9 {
		t.Errorf("per row: %.4g bytes, %.4g values (want 2.5: title and n always, body half the time)", g.BytesPerRow, g.ValuesPerRow)
	}
	// By hand, not from estimate: the typical partition holds 200 rows and stores 2.5 values a
	// row, so it reaches 100,000 values at row 40,000, (40,000 - 200) / 0.01 s from now.
	byHand := 0
	for _, c := range g.Partitions[0].Crossings {
		if c.Limit != "100,000 values" {
			continue
		}
		byHand++
		want := now.Add(time.Duration((100000/2.5 - 200) / rate * float64(time.Second)))
		if d := c.At.Sub(want); g.Partitions[0].Which != "typical" || d < -time.Minute || d > time.Minute {
			t.Errorf("the typical partition reaches 100,000 values on %s; by hand %s", c.At, want)
		}
	}
	if byHand != 1 {
		t.Errorf("the typical partition has %d crossings of 100,000 values, want 1: %+v", byHand, g.Partitions[0].Crossings)
	}
	for _, p := range g.Partitions {
		est := estimateOf(t, r, tb, p.RowsPerSecond)
		if len(est.Crossings) == 0 {
			t.Fatalf("%s: estimate gives no crossing", p.Which)
		}
		if p.Which == "typical" && p.RowsPerSecond != rate {
			t.Errorf("the typical partition (p50 = mean) grows at %g rows/s, want the measured %g", p.RowsPerSecond, rate)
		}
		checked := 0
		for _, c := range p.Crossings {
			for _, x := range est.Crossings {
				if x.Limit.Name != map[string]string{"100 MB": "100 MB per partition", "100,000 values": "100,000 values per partition"}[c.Limit] {
					continue
				}
				checked++
				if c.Never || c.Already || x.TypicalNever {
					t.Errorf("%s %s: profile %+v, estimate %+v", p.Which, c.Limit, c, x)
					continue
				}
				age := now.Add(-time.Duration(p.Rows / p.RowsPerSecond * float64(time.Second)))
				if d := c.At.Sub(age.Add(x.Typical)); d < -time.Minute || d > time.Minute {
					t.Errorf("%s reaches %s on %s; estimate says %s after its first row (%s): %s apart",
						p.Which, c.Limit, c.At, x.Typical, age.Add(x.Typical), d)
				}
			}
		}
		if checked != 2 {
			t.Errorf("%s: %d crossings compared, want 2: %+v", p.Which, checked, p.Crossings)
		}
	}
	// The estimate's own typical partition, on the workload with the measured rate, is the
	// profile's typical one.
	est := estimateOf(t, r, tb, rate)
	if est.Typical.Activity != 1 {
		t.Fatalf("estimate's typical partition is %g × the average", est.Typical.Activity)
	}

	// Without a rate no date can be known: the crossing says so rather than "never".
	tb.WriteRate = 0
	project(tb, now)
	if c := tb.Growth.Partitions[0].Crossings[0]; !c.Unknown || c.Never || !c.At.IsZero() || !strings.Contains(tb.Growth.Note, "no write rate") {
		t.Errorf("no rate: %+v, note %q", c, tb.Growth.Note)
	}
}

// TestGrowthAlreadyOver: a partition already past a limit says so, by the model's bytes.
func TestGrowthAlreadyOver(t *testing.T) {
	_, tb := growthTable(t, "CREATE TABLE ks.log (id int, seq int, title text, PRIMARY KEY (id, seq));",
		Dist{N: 10, Mean: 100000, P50: 100000, P99: 150000, Max: 150000}, 0.001)
	project(tb, time.Now())
	for _, p := range tb.Growth.Partitions {
		for _, c := range p.Crossings {
			if c.Limit == "100,000 values" && !c.Already {
				t.Errorf("%s with %g rows of one value is not over 100,000 values: %+v", p.Which, p.Rows, c)
			}
		}
	}
}

func TestProjectBucketed(t *testing.T) {
	const rate = 1.0 / 60 // a reading a minute
	r, tb := growthTable(t, "CREATE TABLE ks.readings (sensor int, day date, at timestamp, v double, PRIMARY KEY ((sensor, day), at));",
		Dist{N: 10, Mean: 10, P50: 10, P99: 10, Max: 10}, rate)
	project(tb, time.Now())
	g := tb.Growth
	if len(g.Partitions) != 3 {
		t.Fatalf("growth: %+v", g)
	}
	if g.Bucket != "day" || !strings.Contains(g.BucketSource, "day") {
		t.Fatalf("bucket: %q from %q (%s)", g.Bucket, g.BucketSource, g.Note)
	}
	end := g.Partitions[0].AtBucketEnd
	est := estimateOf(t, r, tb, rate)
	if end == nil || math.Abs(end.Rows-1440) > 1e-6 || end.Bytes != est.Typical.Bytes || end.Values != est.Typical.StoredValues ||
		len(g.Partitions[0].Crossings) != 0 {
		t.Errorf("a day at one row a minute: %+v, estimate %.6g bytes %.6g values, crossings %v",
			end, est.Typical.Bytes, est.Typical.StoredValues, g.Partitions[0].Crossings)
	}
}

// TestWorkloadRoundTrip: what WriteWorkload writes, the workload parser reads back with the
// same numbers, and every field carries a comment.
func TestWorkloadRoundTrip(t *testing.T) {
	ttl := 86400.0
	r := &Result{Keyspace: "ks", Consistency: "LOCAL_ONE", Rows: 1200, Elapsed: 2, RateAchieved: 600, RateSet: 1000,
		Partial: true, Problems: []string{"ks.events: 1 slice(s) of the ring (3%) could not be read: timeout"}}
	tb := &Table{Keyspace: "ks", Name: "events",
		Schema:         table(t, "CREATE TABLE ks.events (id int, seq int, body text, tags set<text>, attrs map<text, text>, \"Odd\" text, PRIMARY KEY (id, seq));"),
		PartitionsSeen: 100, Partitions: 2500, PartitionsSource: "extrapolated", RingFraction: 0.04,
		RowsPerPartition: Dist{N: 100, Mean: 12, P50: 10, P99: 40, Max: 45}, MeanRows: 12.5, MeanRowsSource: "from the fit",
		Skew: SkewFit{Kind: "zipf", S: 0.9, Fitted: 0.9, R2: 0.97, Points: 100},
		TTL:  Dist{N: 1200, P50: ttl}, TTLFraction: 1, WriteRate: 0.001,
		Disk: Disk{Predicted: true, Ratio: 0.4213, SamplePartitions: 100, Compressor: "ZstdCompressor", ChunkKB: 16},
		Columns: []*Column{
			{Name: "id", Kind: "partition_key", Size: Dist{N: 100, Mean: 4}},
			{Name: "body", Kind: "regular", Rows: 1200, NullFraction: 0.25, Size: Dist{N: 900, Mean: 120.5}},
			{Name: "tags", Kind: "regular", Rows: 1200, Items: &Dist{N: 1200, Mean: 3}, ItemSize: &Dist{N: 3600, Mean: 6}},
			{Name: "attrs", Kind: "regular", Rows: 1200, Items: &Dist{N: 1200, Mean: 2}, ItemSize: &Dist{N: 2400, Mean: 9}, KeySize: &Dist{N: 2400, Mean: 5}},
			{Name: "Odd", Kind: "regular", Rows: 1200, Size: Dist{N: 1200, Mean: 3}},
		}}
	r.Tables = []*Table{tb}
	var b bytes.Buffer
	if err := r.WriteWorkload(&b); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Parse("w.yaml", b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	tw := w.Table("ks.events")
	if tw == nil || tw.Partitions != 2500 || tw.RowsPerPartition != 12.5 || tw.Skew.Kind != workload.Zipf || tw.Skew.S != 0.9 ||
		tw.TTL == nil || *tw.TTL != 24*time.Hour || tw.Avg["body"] != 120.5 || tw.Avg["Odd"] != 3 || tw.Nulls["body"] != 0.25 ||
		tw.CompressionRatio != 0.4213 || tw.Items["tags"].Count != 3 || tw.Items["tags"].Size != 6 || tw.Items["attrs"].KeySize != 5 || tw.Items["attrs"].Size != 9 {
		t.Errorf("read back: %+v\n%s", tw, b.String())
	}
	for i, line := range strings.Split(b.String(), "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") || l == "version: 1" || l == "tables:" || strings.HasSuffix(l, ":") && !strings.Contains(l, " ") {
			continue
		}
		if !strings.Contains(l, "#") {
			t.Errorf("line %d has no comment saying where it comes from: %q", i+1, line)
		}
	}
	if !strings.Contains(b.String(), "# PARTIAL") {
		t.Errorf("a partial profile's workload does not say so:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "the largest read had 45 rows") || !strings.Contains(b.String(), "--full") {
		t.Errorf("a sampled Zipf table's workload does not say its head is extrapolated:\n%s", b.String())
	}
	// The sizes of a sampled Zipf table are not held to the accuracy bounds (they vary with the
	// sample): the file says so of every one of them, where the user reads them.
	if note := "# sampled: every size estimated from this table (typical, p99, busiest key, on disk) rests on the"; !strings.Contains(b.String(), note) {
		t.Errorf("a sampled Zipf table's workload does not say its sizes rest on the sample (%q):\n%s", note, b.String())
	}
}
