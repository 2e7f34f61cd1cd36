package sizing_test

import (
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// TestTWCSWindowFor holds the window rule to windows worked out by hand: about thirty over
// the TTL in the coarsest unit that gives twenty to fifty, a whole number of buckets, never
// shorter than one.
func TestTWCSWindowFor(t *testing.T) {
	day := workload.Day
	for _, tc := range []struct {
		bucket string // "" for none
		ttl    time.Duration
		want   sizing.TWCSWindow
	}{
		{"hour", 90 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 3}},             // 30 windows, not 2,160 of an hour
		{"day", 90 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 3}},              // 30
		{"day", 30 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 1}},              // 30
		{"day", 7 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 1}},               // 7: never shorter than the bucket
		{"hour", 2 * day, sizing.TWCSWindow{Unit: "HOURS", Size: 2}},             // 24
		{"6h", 7 * day, sizing.TWCSWindow{Unit: "HOURS", Size: 6}},               // 28
		{"15m", 90 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 3}},              // 30
		{"minute", 12 * time.Hour, sizing.TWCSWindow{Unit: "MINUTES", Size: 24}}, // 30
		{"iso-week", 365 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 14}},       // 26, two weeks
		{"month", 90 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 30}},           // 3: the bucket
		{"month", 730 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 30}},          // 24
		{"month", 7 * day, sizing.TWCSWindow{Unit: "HOURS", Size: 6}},            // a bucket outlasting the TTL is ignored: 28
		{"", 90 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 3}},                 // 30
		{"", 30 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 1}},                 // 30
		{"", 29 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 1}},                 // 29: a day, not 23 hours
		{"", 730 * day, sizing.TWCSWindow{Unit: "DAYS", Size: 24}},               // 30.4
		{"", 15 * day, sizing.TWCSWindow{Unit: "HOURS", Size: 12}},               // 30: a day would make 15
		{"", day, sizing.TWCSWindow{Unit: "HOURS", Size: 1}},                     // 24
		{"", 12 * time.Hour, sizing.TWCSWindow{Unit: "MINUTES", Size: 24}},       // 30
		{"", 10 * time.Minute, sizing.TWCSWindow{Unit: "MINUTES", Size: 1}},      // 10: the smallest window
	} {
		var b workload.Span
		if tc.bucket != "" {
			var err error
			if b, err = workload.ParseSpan(tc.bucket); err != nil {
				t.Fatal(err)
			}
		}
		if got := sizing.TWCSWindowFor(b, tc.ttl); got != tc.want {
			t.Errorf("bucket %q, TTL %s: window %s, want %s", tc.bucket, workload.FormatDuration(tc.ttl), got, tc.want)
		}
	}
}
