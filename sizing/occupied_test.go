package sizing

import (
	"math"
	"testing"

	"github.com/cqlsize/cqlsize/workload"
)

// TestPartitionsHoldRows holds the count of partitions to the slots a row reached: an
// hour-bucketed key that writes 2 rows a day fills about 2 hours in 24, not 24.
func TestPartitionsHoldRows(t *testing.T) {
	tbl := mustTable("app.ratings_by_driver", "driver_id uuid pk", "hour text pk", "rated_at timestamp ck", "rating_id timeuuid ck", "comment text")

	// 1,000 keys × 720 hours in 30 days = 720,000 slots. A key writes 2/24 of a row an
	// hour: 1 - e^(-1/12) = 0.079956 of its hours hold a row, 57,568 partitions.
	e := estimate(t, tbl, Options{}, "partitions=1000", "write_rate=2/day", "bucket=hour", "horizon=30d", "avg.comment=40")
	if e.Slots != 720000 {
		t.Errorf("%v slots, want 1,000 keys × 720 hours", e.Slots)
	}
	if want := 57568.0; math.Abs(e.Partitions-want) > 1 {
		t.Errorf("%.1f partitions, want 720,000 × (1 - e^(-1/12)) = %.0f", e.Partitions, want)
	}
	// The bytes: the rows written (1,000 keys × 2 a day × 30 days = 60,000) and one head
	// and end byte per partition that holds them, not per slot.
	rows := 60000.0
	want := rows*e.Encoding.RowBytes + e.Partitions*(e.Encoding.PartitionHead+1)
	if math.Abs(e.TotalBytes-want) > 1e-6*want {
		t.Errorf("total %.0f bytes, want rows × row bytes + partitions × head = %.0f", e.TotalBytes, want)
	}
	if e.Encoding.PartitionHead < 10 || e.TotalBytes > 0.5*e.Slots*(e.Encoding.PartitionHead+1)+rows*e.Encoding.RowBytes {
		t.Errorf("total %.0f bytes: the empty slots' heads are still counted", e.TotalBytes)
	}

	// Zipf 1.1 over 50 keys, 2 write shards, day buckets over 10 days, 100 rows a day for
	// the average key: key k receives 100·50·k^-1.1/H a day over 2 shards, and fills a
	// day of one shard with probability 1 - exp(-that/2); summed directly here.
	z := estimate(t, tbl, Options{}, "partitions=50", "write_rate=100/day", "skew.zipf=1.1", "bucket=day", "horizon=10d", "shards=2", "avg.comment=40")
	var h, fill float64
	for k := 1; k <= 50; k++ {
		h += math.Pow(float64(k), -1.1)
	}
	for k := 1; k <= 50; k++ {
		fill += 1 - math.Exp(-100*50*math.Pow(float64(k), -1.1)/h/2)
	}
	if want := 10 * 2 * fill; math.Abs(z.Partitions-want) > 1e-9*want || z.Slots != 50*2*10 {
		t.Errorf("%v partitions of %v slots, want %v of 1000", z.Partitions, z.Slots, want)
	}

	// No bucket, no shards: the partitions are the keys the workload declares.
	n := estimate(t, mustTable("app.t", "k int pk", "c int ck"), Options{}, "partitions=1000", "write_rate=0.001/day", "horizon=30d")
	if n.Partitions != 1000 {
		t.Errorf("%v partitions, want the 1000 keys declared", n.Partitions)
	}
}

// TestOccupiedBlocksMatchTheSum holds the blocked sum over a million keys to the sum rank
// by rank.
func TestOccupiedBlocksMatchTheSum(t *testing.T) {
	const n, s, mean = 1e6, 1.1, 0.05
	var h, fill float64
	for k := n; k >= 1; k-- {
		h += math.Pow(k, -s)
	}
	for k := n; k >= 1; k-- {
		fill += -math.Expm1(-mean * n * math.Pow(k, -s) / h)
	}
	got := occupied(workload.Skew{Kind: workload.Zipf, S: s}, n, 0, mean)
	if want := fill / n; math.Abs(got-want) > 1e-4*want {
		t.Errorf("occupied %v, want %v", got, want)
	}
}
