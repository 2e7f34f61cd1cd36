package sizing

import "testing"

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0 B"},
		{1, "1 B"},
		{999, "999 B"},
		{999.4, "999 B"},
		{999.6, "1 kB"},
		{1000, "1 kB"},
		{1050, "1.05 kB"},
		{12345, "12.3 kB"},
		{227840, "228 kB"},
		{999_400, "999 kB"},
		{999_950, "1 MB"},
		{100e6, "100 MB"},
		{123456789, "123 MB"},
		{12.5e9, "12.5 GB"},
		{1e12, "1 TB"},
		{2.5e15, "2.5 PB"},
		{5e18, "5000 PB"},
		{-1500, "-1.5 kB"},
		{-12, "-12 B"},
	} {
		if got := FormatBytes(tc.v); got != tc.want {
			t.Errorf("FormatBytes(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
