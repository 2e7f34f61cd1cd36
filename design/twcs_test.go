package design_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// TestTWCSWindowAgreesWithEstimate designs TTL'd time series whose bucket and TTL vary, and
// holds both design's compaction and estimate's SZ104 advice for the same table (sized
// again without the compaction) to the window worked out by hand.
func TestTWCSWindowAgreesWithEstimate(t *testing.T) {
	day := workload.Day
	for _, tc := range []struct {
		rows   string
		ttl    time.Duration
		bucket string // the bucket design chooses, checked so the case tests what it says
		unit   string
		size   int
	}{
		{"1/s", 90 * day, "day", "DAYS", 3},          // 86,400 a day: day buckets, 30 windows
		{"1.2/s", 90 * day, "hour", "DAYS", 3},       // 103,680 a day: hour buckets, 30 windows of 72, not 2,160 of one
		{"1.2/s", 2 * day, "hour", "HOURS", 2},       // 24 windows of two hour buckets
		{"1/s", 7 * day, "day", "DAYS", 1},           // a day bucket makes 7 windows: never shorter than the bucket
		{"2000/day", 365 * day, "month", "DAYS", 30}, // 12 windows of one month bucket
		{"1/hour", 30 * day, "", "DAYS", 1},          // 720 rows a key, no bucket: 30 windows of a day
		{"1/hour", 730 * day, "", "DAYS", 24},        // 17,520 rows a key, no bucket: 30.4 windows
	} {
		t.Run(fmt.Sprintf("%s for %s", tc.rows, workload.FormatDuration(tc.ttl)), func(t *testing.T) {
			tb := one(t, readingsEntity, readingsQuery, &design.Entity{Name: "readings", Rows: rate(tc.rows), TTL: tc.ttl,
				Columns: map[string]design.ColumnVolume{"sensor_id": {Distinct: 1}}})
			if tb.Bucket != tc.bucket {
				t.Fatalf("design chose bucket %q, the case wants %q", tb.Bucket, tc.bucket)
			}
			c := tb.Table.Options.Compaction
			if c["class"] != "TimeWindowCompactionStrategy" || c["compaction_window_unit"] != tc.unit || c["compaction_window_size"] != fmt.Sprint(tc.size) {
				t.Errorf("design's compaction %v, want %d %s", c, tc.size, tc.unit)
			}
			bare := *tb.Table
			bare.Options.Compaction = nil
			est, err := sizing.EstimateTable(&bare, tb.Workload, sizing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("compaction_window_unit '%s', compaction_window_size %d)", tc.unit, tc.size)
			var advice []string
			for _, f := range est.Findings {
				if f.Code == sizing.CodeTWCS {
					advice = append(advice, f.Message)
				}
			}
			if len(advice) != 1 || !strings.Contains(advice[0], want) {
				t.Errorf("estimate's SZ104 %q, want one with %q", advice, want)
			}
		})
	}
}
