package profile

import (
	"math"
	"testing"
)

// TestSlicesCoverTheRing: random cuts and equal slices both cover (min, max] exactly once.
func TestSlicesCoverTheRing(t *testing.T) {
	for name, ss := range map[string][]slice{
		"random 1":   slices(1, 5),
		"random 100": slices(100, 5),
		"even 64":    evenSlices(64),
	} {
		var sum float64
		for i, s := range ss {
			if s.lo >= s.hi {
				t.Errorf("%s: slice %d is empty or reversed: %+v", name, i, s)
			}
			sum += width(s.lo, s.hi)
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%s: slices cover %.12f of the ring, want 1", name, sum)
		}
	}
	ev := evenSlices(64)
	if ev[0].lo != minToken || ev[63].hi != maxToken {
		t.Errorf("even slices run from %d to %d", ev[0].lo, ev[63].hi)
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].lo != ev[i-1].hi {
			t.Errorf("even slice %d starts at %d, the one before ends at %d", i, ev[i].lo, ev[i-1].hi)
		}
	}
}
