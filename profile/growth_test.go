package profile

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
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

func TestProjectUnbucketed(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tb := &Table{
		Schema:           table(t, "CREATE TABLE ks.inbox (user int, at timeuuid, a text, b text, PRIMARY KEY (user, at));"),
		RowsPerPartition: Dist{N: 100, Mean: 100, P50: 50, P99: 900, Max: 1000},
		PartitionBytes:   Dist{N: 100, Mean: 100*1000 + 4},
		RowBytes:         Dist{N: 10000, Mean: 1000},
		WriteRate:        0.01, // rows a second in the average partition
	}
	project(tb, now)
	g := tb.Growth
	if g.Bucket != "" || g.ValuesPerRow != 2 || len(g.Partitions) != 3 {
		t.Fatalf("growth: %+v", g)
	}
	largest := g.Partitions[2]
	// 1,000 rows of 1,000 bytes: 1 MB now, growing 10× the average rate (0.1 row/s, 100 B/s):
	// 99 MB more takes 990,000 s; 100,000 values at 2 a row is 50,000 rows, 49,000 more at
	// 0.1 row/s is 490,000 s.
	if largest.Which != "largest" || math.Abs(largest.RowsPerSecond-0.1) > 1e-12 {
		t.Fatalf("largest: %+v", largest)
	}
	for _, c := range largest.Crossings {
		want := map[string]float64{"100 MB": (100e6 - (4 + 1000*1000)) / 100, "100,000 values": 490000}[c.Limit]
		if math.Abs(c.Seconds-want) > 1 || !c.At.Equal(now.Add(time.Duration(want*float64(time.Second)))) {
			t.Errorf("%s: crosses in %.0f s at %s, want %.0f s", c.Limit, c.Seconds, c.At, want)
		}
	}
	tb.WriteRate = 0
	project(tb, now)
	if c := tb.Growth.Partitions[0].Crossings[0]; !c.Never || !strings.Contains(tb.Growth.Note, "no write rate") {
		t.Errorf("no rate: %+v, note %q", c, tb.Growth.Note)
	}
}

func TestProjectBucketed(t *testing.T) {
	tb := &Table{
		Schema:           table(t, "CREATE TABLE ks.readings (sensor int, day date, at timestamp, v double, PRIMARY KEY ((sensor, day), at));"),
		RowsPerPartition: Dist{N: 10, Mean: 10, P50: 10, P99: 10, Max: 10},
		RowBytes:         Dist{N: 100, Mean: 20},
		PartitionBytes:   Dist{N: 10, Mean: 208},
		WriteRate:        1.0 / 60, // a reading a minute
	}
	project(tb, time.Now())
	g := tb.Growth
	if g.Bucket != "day" || !strings.Contains(g.BucketSource, "day") {
		t.Fatalf("bucket: %q from %q", g.Bucket, g.BucketSource)
	}
	end := g.Partitions[0].AtBucketEnd
	if end == nil || math.Abs(end.Rows-1440) > 1e-6 || math.Abs(end.Bytes-(8+1440*20)) > 1e-6 || len(g.Partitions[0].Crossings) != 0 {
		t.Errorf("a day at one row a minute: %+v, crossings %v", end, g.Partitions[0].Crossings)
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
	w, err := sizing.ParseWorkload("w.yaml", b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	tw := w.Table("ks.events")
	if tw == nil || tw.Partitions != 2500 || tw.RowsPerPartition != 12.5 || tw.Skew.Kind != sizing.Zipf || tw.Skew.S != 0.9 ||
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
}
