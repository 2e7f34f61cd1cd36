package options

import (
	"math"
	"testing"
)

// The value readers follow Java's parsers; each row was checked against what a 5.0.9 node
// accepts for an option read that way (see testdata/options/corpus.cql).
func TestJavaNumbers(t *testing.T) {
	ints := []struct {
		in string
		ok bool
		n  int64
	}{
		{"10", true, 10}, {"+10", true, 10}, {"-3", true, -3}, {" 10", false, 0}, {"1.5", false, 0},
		{"", false, 0}, {"+-1", false, 0}, {"2147483647", true, 2147483647}, {"2147483648", false, 0}, {"0x10", false, 0},
	}
	for _, tt := range ints {
		n, ok := javaInt(tt.in)
		if ok != tt.ok || (ok && n != tt.n) {
			t.Errorf("javaInt(%q) = %d, %v; want %d, %v", tt.in, n, ok, tt.n, tt.ok)
		}
	}
	doubles := []struct {
		in string
		ok bool
		f  float64
	}{
		{"0.2", true, 0.2}, {" 0.2", true, 0.2}, {"0.2f", true, 0.2}, {"1e2", true, 100}, {"1e-1", true, 0.1},
		{".5", true, 0.5}, {"5.", true, 5}, {"-0.1", true, -0.1}, {"Infinity", true, math.Inf(1)},
		{"0x1p4", true, 16}, {"abc", false, 0}, {"", false, 0}, {"1,5", false, 0}, {"1e", false, 0},
	}
	for _, tt := range doubles {
		f, ok := javaDouble(tt.in)
		if ok != tt.ok || (ok && f != tt.f) {
			t.Errorf("javaDouble(%q) = %g, %v; want %g, %v", tt.in, f, ok, tt.f, tt.ok)
		}
	}
	if f, ok := javaDouble("NaN"); !ok || !math.IsNaN(f) {
		t.Errorf("javaDouble(NaN) = %g, %v", f, ok)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in string
		ok bool
		f  float64
	}{
		{"1GiB", true, 1 << 30}, {"1 GiB", true, 1 << 30}, {"2MB", true, 2e6}, {"1.5GiB", true, 1.5 * (1 << 30)},
		{"0B", true, 0}, {"-1MiB", true, -(1 << 20)}, {"100KiB", true, 100 << 10},
		{"1G", false, 0}, {"1073741824", false, 0}, {"1kB", false, 0}, {"1mib", false, 0}, {"big", false, 0},
	}
	for _, tt := range tests {
		f, ok := parseSize(tt.in)
		if ok != tt.ok || (ok && f != tt.f) {
			t.Errorf("parseSize(%q) = %g, %v; want %g, %v", tt.in, f, ok, tt.f, tt.ok)
		}
	}
}

func TestRetryPolicy(t *testing.T) {
	for in, ok := range map[string]bool{
		"99p": true, "99PERCENTILE": true, "99.5p": true, "99.p": true, "50ms": true, "50MS": true, "1.5ms": true,
		"0ms": true, "ALWAYS": true, "never": true, "NONE": true, "MIN(99p,50ms)": true, "max(99p, 50ms)": true,
		"MIN(99P,50MS)": true, "MIN(99p,98p)": false, "MIN(50ms,10ms)": false, "MIN(99p,50s)": false,
		"100p": false, "0p": false, "101p": false, "50s": false, "fast": false, "-5ms": false, " 99p": false,
		"99": false, "9.9.9p": false, "": false,
	} {
		if got := checkRetryPolicy(in) == ""; got != ok {
			t.Errorf("checkRetryPolicy(%q) accepts=%v, want %v (%s)", in, got, ok, checkRetryPolicy(in))
		}
	}
}
