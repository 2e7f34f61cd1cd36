package design_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/cqlsize/cqlsize/design"
)

// TestHashtagsReadsAndLimits is the hashtag case: 1M hashtags with Zipf 1.1 skew, 5M posts
// a day with two hashtags each (115.7 hashtag rows a second), kept three years, read by
// `CONTAINS ? ORDER BY created_at DESC LIMIT 50` at 1,000 a second. One scheme cannot serve
// it: the hour × 2 shards the busiest tag needs make the median tag's read walk thousands
// of partitions. The design's typical read must visit at most 4 partitions and its busiest
// key stay under the limits, and its JSON must say so. The expected figures are worked out
// here from the volumes with a plain Zipf sum, not by the read-cost model.
func TestHashtagsReadsAndLimits(t *testing.T) {
	d, err := design.Run(load(t, "testdata/hashtags", "app"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteJSON(&b, nil); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Tables []struct {
			Name      string
			Partition struct {
				LargestValues float64 `json:"largest_values"`
				LargestBytes  float64 `json:"largest_bytes"`
			}
			Tiers *struct {
				Default, Hot struct {
					Bucket string
					Shards int
				}
				PromoteOverPerSecond float64 `json:"promote_over_per_second"`
				HotPartition         struct {
					Rows   float64 `json:"largest_rows"`
					Values float64 `json:"largest_values"`
					Bytes  float64 `json:"largest_bytes"`
				} `json:"hot_partition"`
			}
		}
		Queries []struct {
			Name              string
			PartitionsPerRead *struct{ P50, P99, Max float64 } `json:"partitions_per_read"`
			PartitionReads    *float64                         `json:"partition_reads_per_second"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Tables) != 1 || len(rep.Queries) != 1 || rep.Tables[0].Tiers == nil || rep.Queries[0].PartitionsPerRead == nil {
		t.Fatalf("want one tiered table and one costed query:\n%s", b.String())
	}
	tb, q := rep.Tables[0], rep.Queries[0]

	// The volumes, by hand: 5M posts a day × 2 hashtags, over 1M hashtags, Zipf 1.1.
	rate := 5e6 / 86400 * 2
	const n, s, limit, readsPerSecond = 1_000_000, 1.1, 50.0, 1000.0
	var h float64
	for i := n; i >= 1; i-- {
		h += math.Pow(float64(i), -s)
	}
	median := rate * math.Pow(n/2, -s) / h // rank 500,000
	top := rate / h                        // rank 1
	widths := map[string]float64{"year": 365.2425 * 86400, "month": 365.2425 / 12 * 86400, "iso-week": 7 * 86400, "day": 86400, "hour": 3600}
	def, ok := widths[tb.Tiers.Default.Bucket]
	if !ok {
		t.Fatalf("default tier bucket %q", tb.Tiers.Default.Bucket)
	}
	// The median tag is on the default tier (its rate is under the promotion threshold) and
	// walks back ⌈50 / (r·w)⌉ buckets of one shard.
	if median >= tb.Tiers.PromoteOverPerSecond {
		t.Fatalf("the median tag (%g rows/s) is over the promotion threshold %g", median, tb.Tiers.PromoteOverPerSecond)
	}
	wantP50 := math.Ceil(limit / (median * def))
	if got := q.PartitionsPerRead.P50; got != wantP50 || got > 4 {
		t.Errorf("typical read visits %v partitions; by hand %v (at most 4)", got, wantP50)
	}
	if q.PartitionReads == nil || *q.PartitionReads != readsPerSecond*wantP50 {
		t.Errorf("partition reads a second %v, want %v", q.PartitionReads, readsPerSecond*wantP50)
	}
	// The busiest tag is on the hot tier: its rows in one bucket over its shards, two
	// values a row (user_id and content; created_at and post_id are the clustering key).
	hot, ok := widths[tb.Tiers.Hot.Bucket]
	if !ok {
		t.Fatalf("hot tier bucket %q", tb.Tiers.Hot.Bucket)
	}
	rows := top * hot / float64(max(1, tb.Tiers.Hot.Shards))
	if rows*2 >= 100_000 {
		t.Errorf("busiest tag: %.0f rows (%.0f values) a hot partition by hand: over the limits", rows, rows*2)
	}
	if got := tb.Tiers.HotPartition.Rows; math.Abs(got-rows) > 0.02*rows {
		t.Errorf("hot partition %v rows in the JSON, %.0f by hand", got, rows)
	}
	if hp := tb.Tiers.HotPartition; hp.Values >= 100_000 || hp.Bytes >= 100e6 {
		t.Errorf("the JSON's hot partition is over the limits: %+v", hp)
	}
	if q.PartitionsPerRead.Max != float64(max(1, tb.Tiers.Hot.Shards))*math.Ceil(limit/(top*hot)) {
		t.Errorf("busiest read visits %v partitions, by hand %v", q.PartitionsPerRead.Max, float64(tb.Tiers.Hot.Shards)*math.Ceil(limit/(top*hot)))
	}
	// The default tier's busiest key is one at the threshold: under the limits too.
	if v := tb.Tiers.PromoteOverPerSecond * def * 2; v >= 100_000 {
		t.Errorf("a key at the threshold holds %.0f values a %s bucket by hand: over the limits", v, tb.Tiers.Default.Bucket)
	}
	if tb.Partition.LargestValues >= 100_000 || tb.Partition.LargestBytes >= 100e6 {
		t.Errorf("the default tier's largest partition is over the limits: %+v", tb.Partition)
	}
}
