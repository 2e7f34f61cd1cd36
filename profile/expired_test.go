package profile

import (
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/sizing/disk"
)

// In a table written with a TTL, the tombstones traced reads pass are expired cells, one per
// cell of a row; written within a minute under a TTL of a day, the expired rows had a TTL
// no longer than that minute. Without a TTL they are deletes.
func TestExpiredRowsFromTracedTombstones(t *testing.T) {
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	ttl := func(frac, p50 float64, age time.Duration) *Table {
		return &Table{TTL: Dist{N: 100, P50: p50}, TTLFraction: frac, FirstWrite: now.Add(-age),
			Tombstones: Tombstones{PerPartition: 16},
			Columns:    []*Column{{Name: "k", Kind: "partition_key"}, {Name: "a", Kind: "regular"}, {Name: "b", Kind: "regular", NullFraction: 0.5}, {Name: "c", Kind: "regular", NullFraction: 0.5}}}
	}
	for _, c := range []struct {
		name     string
		t        *Table
		rows     float64
		shortTTL int64
	}{
		{"written with a day's TTL a minute ago", ttl(1, 86400, time.Minute), 8, 60},
		{"written with a day's TTL over two days", ttl(1, 86400, 48*time.Hour), 8, 0},
		{"written without a TTL", ttl(0, 0, time.Minute), 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.t.Tombstones.ExpiredRows = expiredRows(c.t)
			if c.t.Tombstones.ExpiredRows != c.rows {
				t.Errorf("expired rows %.4g, want %.4g", c.t.Tombstones.ExpiredRows, c.rows)
			}
			if got := expiredTTL(c.t, now); got != c.shortTTL {
				t.Errorf("expired rows' TTL %d s, want %d", got, c.shortTTL)
			}
		})
	}
}

// The disk sample gets the tombstones beside its live rows: a deleted row after the writes
// for a table without a TTL, an expired row (its cells expired) for one with.
func TestWithTombstonesAddsRowsBesideLiveOnes(t *testing.T) {
	row := func(ts int64) disk.Row {
		return disk.Row{Clustering: [][]byte{{0, 0, 0, 1}}, Cells: map[string]disk.Cell{"a": {Value: []byte("x"), Timestamp: ts, TTL: 86400}}}
	}
	parts := []disk.Partition{{Key: [][]byte{{1}}, Rows: []disk.Row{row(1000), row(3000)}}}
	tb := &Table{MeanRows: 2, Tombstones: Tombstones{PerPartition: 1}}
	got := withTombstones(tb, parts)[0].Rows
	if len(got) != 3 || got[2].Deleted != 3000+2000 {
		t.Fatalf("deleted rows: got %+v, want one deleted the write span (2000 µs) after its neighbour", got)
	}
	tb.Tombstones.ExpiredRows, tb.Tombstones.ExpiredTTL = 1, 60
	got = withTombstones(tb, parts)[0].Rows
	if e := got[2]; len(got) != 3 || e.Deleted != 0 || e.Marker == nil || e.Marker.TTL != 60 || !e.Cells["a"].Expired || e.Cells["a"].Timestamp != 3000 {
		t.Fatalf("expired rows: got %+v", got)
	}
	if len(parts[0].Rows) != 2 {
		t.Errorf("the sample itself changed: %d rows", len(parts[0].Rows))
	}
}
