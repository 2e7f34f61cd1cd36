package sizing

import (
	"math"
	"testing"

	"github.com/cqlsize/cqlsize/workload"
)

// A row whose TTL ran out, as Cassandra 5.0 wrote it when a major compaction rewrote the
// sstable (rows of (pk text, ts int, value double, note text) written within a second, a
// quarter with TTL 3 s, the rest TTL 1 day; sstabledump and the uncompressed Data.db):
//
//	2c | 00 00000003 | 1a 33 | ca09fb 00 00 | 0d ffffffffffffffff fd | 0d ffffffffffffffff fd
//
// flags, clustering, row and previous sizes, its liveness (timestamp, TTL 3 s and expiry,
// the sstable's minimums), and each cell a tombstone whose deletion time, the write time,
// lies 3 s before the minimum the compaction took from the expiring cells it read: 33
// bytes. A live row of that table held 48.37 bytes on average (its TTL written as 86397
// over the minimum TTL of 3, 3 bytes).
func TestExpiredRowsSizedAsTheNodeWritesThem(t *testing.T) {
	tbl := mustTable("app.ttl_expired", "pk text pk", "ts int ck", "value double", "note text")
	w, err := workload.Parse("w.yaml", []byte("tables:\n  ttl_expired:\n    partitions: 20\n    rows_per_partition: 21.9\n"+
		"    write_spread: 1s\n    ttl: 86400s\n    expired_rows: 8.1\n    expired_ttl: 30s\n    avg: {pk: 5, note: 20.39}\n    nulls_as: unset\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := EstimateTable(tbl, w.Tables[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := e.Typical.Breakdown
	if got := b.Deleted / 8.1; math.Abs(got-33) > 0.5 {
		t.Errorf("an expired row sized %.2f bytes, the node wrote 33", got)
	}
	if got := e.Typical.RowBytes; math.Abs(got-48.37) > 0.5 {
		t.Errorf("a live row beside expired ones sized %.2f bytes, the node's averaged 48.37", got)
	}
	if e.Typical.Tombstones.Expired != 8.1 {
		t.Errorf("expired rows counted %.4g, want 8.1", e.Typical.Tombstones.Expired)
	}
}
