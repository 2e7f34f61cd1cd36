package accuracy

import (
	"context"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/internal/casstest"
)

// loadProfileTables loads ProfileTables into the test's keyspace and reads their truth,
// checking that Cassandra holds exactly what the loader says it wrote: a harness whose truth
// is off would make every comparison after it meaningless.
func loadProfileTables(t *testing.T, ctx context.Context) ([]Loaded, map[string]*Truth, string) {
	t.Helper()
	s, ks := casstest.Keyspace(t)
	files := casstest.LocalNode(t, s)
	node := &Node{Script: files.Script, DataDir: files.DataDirs}
	start := time.Now()
	loaded, err := LoadProfileTables(ctx, s, ks, node, ProfileTables, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	rows := 0
	for _, l := range loaded {
		names = append(names, l.Table.Name)
		rows += l.Total
	}
	t.Logf("loaded %d rows into %d tables, flushed and compacted in %s", rows, len(loaded), time.Since(start).Round(time.Millisecond))
	truths, err := ReadTruths(ctx, s, node, ks, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range loaded {
		tr := truths[l.Table.Name]
		if tr.Partitions != len(l.Rows) || tr.RowsP99 != l.RowsP99() || tr.RowsMax != float64(l.Rows[0]) || tr.RowsP50 != l.RowsP50() {
			t.Errorf("%s: Cassandra holds %d partitions, rows p50/p99/max %.0f/%.0f/%.0f; the loader wrote %d, %.0f/%.0f/%d",
				l.Table.Name, tr.Partitions, tr.RowsP50, tr.RowsP99, tr.RowsMax, len(l.Rows), l.RowsP50(), l.RowsP99(), l.Rows[0])
		}
		if tr.SSTables != 1 || tr.SpaceUsedLive < tr.DataDiskBytes || tr.LargestDisk <= 0 || tr.TypicalDisk <= 0 {
			t.Errorf("%s: %d sstables after compaction, Space used (live) %d, Data.db %d, on disk typical/largest %.0f/%.0f",
				l.Table.Name, tr.SSTables, tr.SpaceUsedLive, tr.DataDiskBytes, tr.TypicalDisk, tr.LargestDisk)
		}
		if l.Table.TTLFraction > 0 {
			if f := float64(l.TTLRows) / float64(l.Total); f < l.Table.TTLFraction-0.02 || f > l.Table.TTLFraction+0.02 {
				t.Errorf("%s: %.3f of rows given their own TTL, want %.2f", l.Table.Name, f, l.Table.TTLFraction)
			}
		}
	}
	return loaded, truths, ks
}

func TestProfileTablesLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("writes data into Cassandra; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	loaded, truths, _ := loadProfileTables(t, ctx)
	for _, l := range loaded {
		t.Logf("%s: %+v", l.Table.Name, *truths[l.Table.Name])
	}
}
