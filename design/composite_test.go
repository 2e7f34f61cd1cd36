package design_test

import (
	"math"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/design"
)

// TestRatingsCompositeKeyNeedsNoBucket designs the ride-hailing ratings (testdata/cases/
// ratings): keyed by (driver_id, tag), 500k drivers at most 25 ratings a day each, 25 tags
// with Zipf 1.35, kept 3 years. The busiest key is the busiest driver, held at its cap, with
// the busiest tag's share of its ratings: 25 a day × 1,095.75 days / H(25, 1.35), about
// 10.8k rows. Taking the tag's skew over all 12.5M keys instead makes a key of 635M
// rows and hour buckets, and a read of one key thousands of partitions.
func TestRatingsCompositeKeyNeedsNoBucket(t *testing.T) {
	d, err := design.Run(load(t, "testdata/cases/ratings", "app"))
	if err != nil {
		t.Fatal(err)
	}
	var h25 float64 // H(25, 1.35)
	for k := 1; k <= 25; k++ {
		h25 += math.Pow(float64(k), -1.35)
	}
	days := 3 * 365.25
	want := 25 * days / h25
	// The premise: uncapped, the busiest driver of 500k under Zipf 1.0 would receive
	// 2M/day / H(500k, 1) ≈ 2M / 13.7 a day, far above the cap, so the cap decides.
	if uncapped := 2e6 / (math.Log(5e5) + 0.5772); uncapped < 25 {
		t.Fatalf("the busiest driver's uncapped %v a day is under the cap: the case tests nothing", uncapped)
	}
	var found bool
	for _, tb := range d.Tables {
		if tb.Table.Name != "ratings_by_driver_id_tag" {
			continue
		}
		found = true
		if tb.Bucket != "" || tb.Shards > 1 {
			t.Errorf("bucket %q, %d shards; want none:\n%s", tb.Bucket, tb.Shards, strings.Join(tb.Reasons, "\n"))
		}
		if got := tb.Workload.Partitions; got != 500e3*25 {
			t.Errorf("%v keys, want 12.5M (driver, tag) pairs", got)
		}
		if got := tb.Estimate.Largest.Rows; math.Abs(got-want) > 0.005*want {
			t.Errorf("busiest partition %.0f rows, want %.0f (25/day × %.2f days / H(25, 1.35) = %.4f)", got, want, days, h25)
		}
		if b := tb.Estimate.Largest.Bytes; b > 2e6 {
			t.Errorf("busiest partition %.0f bytes, want about 1 MB", b)
		}
	}
	if !found {
		t.Fatal("no ratings_by_driver_id_tag table")
	}
	for _, q := range d.Queries {
		if q.Name == "driver_tag_latest" && (q.Bucket != "" || q.Shards > 1 || q.Reads != "") {
			t.Errorf("driver_tag_latest reads bucket %q, %d shards (%s): want one partition", q.Bucket, q.Shards, q.Reads)
		}
	}
}

// TestColumnCapBelowRowsIsRefused: 500 drivers at 25 a day receive 12,500 a day, so 2M a
// day cannot be theirs; the error names the cap where it is written.
func TestColumnCapBelowRowsIsRefused(t *testing.T) {
	in := load(t, "testdata/cases/ratings", "app")
	for _, e := range in.Volumes.Entities {
		cv := e.Columns["driver_id"]
		cv.Distinct = 500
		e.Columns["driver_id"] = cv
	}
	_, err := design.Run(in)
	if err == nil {
		t.Fatal("designed a table whose drivers cannot receive the rows")
	}
	for _, want := range []string{"workload.yaml:10:63:", "driver_id: 500 values at most 25/day each receive 12500/day", "raise distinct or max_rate"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
