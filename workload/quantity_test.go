package workload

import "testing"

// TestParseCountOverflow: a suffix that takes a finite number to infinity is refused.
func TestParseCountOverflow(t *testing.T) {
	for _, s := range []string{"1e308k", "1.7e308B", "1e309"} {
		if v, err := ParseCount(s); err == nil {
			t.Errorf("ParseCount(%q) = %v, want an error", s, v)
		}
	}
	if v, err := ParseCount("1e300k"); err != nil || v != 1e303 {
		t.Errorf("ParseCount(1e300k) = %v, %v", v, err)
	}
}

// TestParseDurationEdge: a number of seconds that rounds to 2^63 nanoseconds is refused,
// not wrapped into a negative duration.
func TestParseDurationEdge(t *testing.T) {
	for _, s := range []string{"9223372036.854775807", "9223372036.854776", "106751.99116730064d", "1e10"} {
		if d, err := ParseDuration(s); err == nil && d < 0 {
			t.Errorf("ParseDuration(%q) = %v", s, d)
		}
	}
	if d, err := ParseDuration("9223372036"); err != nil || d <= 0 {
		t.Errorf("ParseDuration(9223372036) = %v, %v", d, err)
	}
}
