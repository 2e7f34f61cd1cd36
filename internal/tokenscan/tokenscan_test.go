package tokenscan

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestEvenCoversTheRingOnce(t *testing.T) {
	for _, k := range []int{1, 2, 3, 7, 64, 256, 1000} {
		rs := Even(k)
		if len(rs) != k {
			t.Fatalf("Even(%d): %d ranges", k, len(rs))
		}
		if rs[0].Lo != MinToken || rs[k-1].Hi != MaxToken {
			t.Errorf("Even(%d) runs from %d to %d", k, rs[0].Lo, rs[k-1].Hi)
		}
		var sum float64
		for i, r := range rs {
			if r.Lo >= r.Hi {
				t.Errorf("Even(%d): range %d empty or reversed: %+v", k, i, r)
			}
			if i > 0 && r.Lo != rs[i-1].Hi {
				t.Errorf("Even(%d): range %d starts at %d, the one before ends at %d", k, i, r.Lo, rs[i-1].Hi)
			}
			sum += r.Width()
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("Even(%d) covers %.12f of the ring", k, sum)
		}
	}
}

func TestHalves(t *testing.T) {
	for _, r := range []Range{{MinToken, MaxToken}, {-10, 10}, {5, 8}, {MaxToken - 3, MaxToken}} {
		a, b, ok := r.Halves()
		if !ok || a.Lo != r.Lo || b.Hi != r.Hi || a.Hi != b.Lo || a.Lo >= a.Hi || b.Lo >= b.Hi {
			t.Errorf("Halves(%+v) = %+v %+v %v", r, a, b, ok)
		}
	}
	if _, _, ok := (Range{4, 5}).Halves(); ok {
		t.Error("a one-token range split")
	}
}

func TestLimiterHoldsTheRate(t *testing.T) {
	l := NewLimiter(200)
	start := time.Now()
	for i := 0; i < 100; i++ {
		if err := l.Take(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
	}
	// 100 rows at 200/s, from a burst of 1: at least about half a second.
	if el := time.Since(start); el < 400*time.Millisecond {
		t.Errorf("100 rows at 200/s took %s", el)
	}
	var none *Limiter
	if err := none.Take(context.Background(), 1e9); err != nil {
		t.Error(err)
	}
}

func TestRandomCoversTheRingOnce(t *testing.T) {
	for _, k := range []int{1, 2, 10, 100} {
		rs := Random(k, 7)
		var sum float64
		for i, r := range rs {
			if r.Lo >= r.Hi {
				t.Errorf("Random(%d): range %d empty or reversed: %+v", k, i, r)
			}
			sum += r.Width()
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("Random(%d) covers %.12f of the ring", k, sum)
		}
	}
}
