package profile

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// TestWorkloadWriterRoundTrip profiles tables of every shape (Zipf and uniform skew, a
// write rate, a TTL, a TTL mix and expired rows, deletes, collections with element and key
// sizes, nulls, element writes, an empty table) and reads the file WriteWorkload
// writes back with the workload reader: each table reads back as the values profile declared.
func TestWorkloadWriterRoundTrip(t *testing.T) {
	schema := "CREATE TABLE ks.%s (id int, seq int, body text, tags set<text>, attrs map<text, text>, \"Odd\" text, PRIMARY KEY (id, seq));"
	base := func(name string) *Table {
		return &Table{Keyspace: "ks", Name: name,
			Schema:         table(t, fmt.Sprintf(schema, name)),
			PartitionsSeen: 100, Partitions: 2500, PartitionsSource: "extrapolated",
			RowsPerPartition: Dist{N: 100, Mean: 12, P50: 10, P99: 40, Max: 45}, MeanRows: 12.5, MeanRowsSource: "from the fit",
			TTL: Dist{N: 1200}, WriteRate: 0.001, WriteRateSource: "from write times",
			Columns: []*Column{
				{Name: "id", Kind: "partition_key", Size: Dist{N: 100, Mean: 4}},
				{Name: "body", Kind: "regular", Rows: 1200, NullFraction: 0.25, Size: Dist{N: 900, Mean: 120.54321}},
				{Name: "tags", Kind: "regular", Rows: 1200, Items: &Dist{N: 1200, Mean: 3.3333}, ItemSize: &Dist{N: 3600, Mean: 6}},
				{Name: "attrs", Kind: "regular", Rows: 1200, Items: &Dist{N: 1200, Mean: 2}, ItemSize: &Dist{N: 2400, Mean: 9}, KeySize: &Dist{N: 2400, Mean: 5}},
				{Name: "Odd", Kind: "regular", Rows: 1200, NullFraction: 1.0 / 3, Size: Dist{N: 1200, Mean: 3}},
			},
		}
	}
	zipf := base("zipf")
	zipf.Skew = SkewFit{Kind: "zipf", S: 0.91234, R2: 0.97, Points: 100}
	zipf.TTL, zipf.TTLFraction = Dist{N: 1200, P50: 86400}, 1
	zipf.Disk = Disk{Predicted: true, Ratio: 0.42134, SamplePartitions: 100, Compressor: "ZstdCompressor"}
	zipf.Tombstones = Tombstones{TracedReads: 4, TracedTombstones: 30, TracedLiveRows: 50, PerPartition: 7.5}
	zipf.Columns[2].ElementsChecked, zipf.Columns[2].ElementShareApart, zipf.Columns[2].ElementsOnlyApart = 10, 1, 1

	mix := base("mix")
	mix.Skew = SkewFit{Kind: "uniform", Note: "too few points"}
	mix.TTL, mix.TTLFraction = Dist{N: 1200, P50: 3600}, 0.67
	mix.TTLs = []TTLShare{{Seconds: 86400, Cells: 600, Share: 0.5}, {Seconds: 0, Cells: 400, Share: 0.33333}, {Seconds: 3600, Cells: 200, Share: 0.16667}}
	mix.Tombstones = Tombstones{TracedReads: 4, TracedTombstones: 30, TracedLiveRows: 50, PerPartition: 7.5, ExpiredRows: 2.5, ExpiredTTL: 120}
	mix.FirstWrite, mix.LastWrite = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 3, 0, 7, 0, time.UTC)
	mix.Columns[3].ElementsChecked, mix.Columns[3].ElementShareApart, mix.Columns[3].ElementsOnlyApart = 10, 0.456, 0.3

	noTTL := base("nottl")
	noTTL.WriteRate = 0
	noTTL.RowsSeen = 1200

	udt := &Table{Keyspace: "ks", Name: "people", Schema: table(t, "CREATE TABLE ks.people (id int PRIMARY KEY, home frozen<tuple<text, int>>, name text);"),
		PartitionsSeen: 10, Partitions: 10, PartitionsSource: "counted", MeanRows: 1, MeanRowsSource: "one row a partition",
		Columns: []*Column{{Name: "name", Kind: "regular", Rows: 10, Size: Dist{N: 10, Mean: 16}}}}

	empty := base("empty")
	empty.PartitionsSeen, empty.Partial, empty.Problem = 0, true, "timed out"

	for _, tb := range []*Table{zipf, mix, noTTL, udt, empty} {
		t.Run(tb.Name, func(t *testing.T) {
			want, _ := tableWorkload(tb)
			var b bytes.Buffer
			if err := (&Result{Keyspace: "ks", Tables: []*Table{tb}}).WriteWorkload(&b); err != nil {
				t.Fatal(err)
			}
			w, err := workload.Parse("w.yaml", b.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			got := w.Table(want.Name)
			got.Pos, got.Fields = cql.Pos{}, nil
			for i := range got.Deletes {
				got.Deletes[i].Pos, got.Deletes[i].Rows = cql.Pos{}, 0 // the reader's default of one row a delete
			}
			normalize(got)
			normalize(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back\n%+v\nprofile declared\n%+v\nfile:\n%s", *got, *want, b.String())
			}
		})
	}
	// Hand-checked figures, so the test does not rest on tableWorkload alone.
	tw, _ := tableWorkload(zipf)
	if tw.Skew.S != 0.9123 || tw.RowsPerPartition != 20 || *tw.TTL != 24*time.Hour || tw.Avg["body"] != 120.5 ||
		tw.Items["tags"].Count != 3.333 || tw.Nulls["Odd"] != 0.3333 || tw.ElementWrites["tags"] != 1 || tw.CompressionRatio != 0.4213 {
		t.Errorf("zipf table declared %+v", *tw)
	}
	tw, _ = tableWorkload(mix)
	if tw.TTLMix[0] != 0.3333 || tw.TTLMix[time.Hour] != 0.1667 || tw.ExpiredTTL != 2*time.Minute || tw.WriteSpread != 27*time.Hour+7*time.Second {
		t.Errorf("mix table declared %+v", *tw)
	}
}

// normalize makes an empty map and none the same: both declare nothing.
func normalize(t *workload.TableWorkload) {
	if len(t.Avg) == 0 {
		t.Avg = nil
	}
	if len(t.Items) == 0 {
		t.Items = nil
	}
	if len(t.Nulls) == 0 {
		t.Nulls = nil
	}
	if len(t.TTLMix) == 0 {
		t.TTLMix = nil
	}
	if len(t.Overwrites) == 0 {
		t.Overwrites = nil
	}
	if len(t.ElementWrites) == 0 {
		t.ElementWrites = nil
	}
	if len(t.Columns) == 0 {
		t.Columns = nil
	}
	if len(t.Deletes) == 0 {
		t.Deletes = nil
	}
}
