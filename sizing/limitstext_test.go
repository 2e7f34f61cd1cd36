package sizing_test

import (
	"testing"

	"github.com/cqlsize/cqlsize/sizing"
)

// TestLimitsText holds each target's limits sentence to the rules of thumb as written.
func TestLimitsText(t *testing.T) {
	for _, tc := range []struct {
		target sizing.Target
		conj   string
		want   string
	}{
		{sizing.Cassandra50, "and", "100,000 values and 100 MB"},
		{sizing.Cassandra41, "or", "100,000 values or 100 MB"},
		{sizing.ScyllaDB, "and", "100,000 rows and 1,000 MB"},
		{"", "and", "100,000 values and 100 MB"},
	} {
		if got := sizing.LimitsText(tc.target, tc.conj); got != tc.want {
			t.Errorf("LimitsText(%q, %q) = %q, want %q", tc.target, tc.conj, got, tc.want)
		}
	}
	for _, tc := range []struct {
		l    sizing.Limit
		want string
	}{
		{sizing.Limit{Measure: sizing.Bytes, Value: 1e8}, "100 MB"},
		{sizing.Limit{Measure: sizing.MutationRow, Value: 16 << 20}, "16 MiB"},
		{sizing.Limit{Measure: sizing.KeyBytes, Value: 65535}, "65,535 bytes"},
		{sizing.Limit{Measure: sizing.Cells, Value: 2e9}, "2,000,000,000 cells"},
	} {
		if got := tc.l.Short(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.l, got, tc.want)
		}
	}
}
