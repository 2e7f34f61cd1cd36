package retry

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestStep(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		b    Backoff
		n    int
		want time.Duration
	}{
		{Backoff{Min: 50 * ms, Max: 2000 * ms}, 1, 50 * ms},
		{Backoff{Min: 50 * ms, Max: 2000 * ms}, 2, 100 * ms},
		{Backoff{Min: 50 * ms, Max: 2000 * ms}, 6, 1600 * ms},
		{Backoff{Min: 50 * ms, Max: 2000 * ms}, 7, 2000 * ms},
		{Backoff{Min: 50 * ms, Max: 2000 * ms}, 1000, 2000 * ms},
		{Backoff{Min: 100 * ms, Max: 5000 * ms}, 3, 400 * ms},
		{Backoff{Min: 100 * ms, Max: 300 * ms}, 3, 300 * ms}, // capped, not a power of two
		{Backoff{Min: 200 * ms}, 1, 200 * ms},                // no Max: a fixed pause
		{Backoff{Min: 200 * ms}, 9, 200 * ms},
		{Backoff{Min: 200 * ms, Max: 100 * ms}, 4, 200 * ms}, // Max under Min: Min
		{Backoff{Min: 50 * ms, Max: 2000 * ms}, 0, 0},        // no retry, no pause
		{Backoff{}, 3, 0},
	} {
		if got := tc.b.Step(tc.n); got != tc.want {
			t.Errorf("%+v.Step(%d) = %s, want %s", tc.b, tc.n, got, tc.want)
		}
	}
}

// TestPauseJitter draws many pauses and checks each lies in its jitter's range, and that
// the draws are spread (not one value).
func TestPauseJitter(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		j      Jitter
		lo, hi time.Duration // for a step of 400 ms
	}{
		{NoJitter, 400 * ms, 400 * ms},
		{UpperHalf, 200 * ms, 400 * ms},
		{HalfAgain, 400 * ms, 600 * ms},
	} {
		b := Backoff{Min: 100 * ms, Max: 1000 * ms, Jitter: tc.j}
		seen := map[time.Duration]bool{}
		for i := 0; i < 1000; i++ {
			d := b.Pause(3)
			if d < tc.lo || d > tc.hi {
				t.Fatalf("jitter %d: pause %s outside [%s, %s]", tc.j, d, tc.lo, tc.hi)
			}
			seen[d] = true
		}
		if tc.lo != tc.hi && len(seen) < 100 {
			t.Errorf("jitter %d: only %d different pauses in 1000 draws", tc.j, len(seen))
		}
	}
}

var (
	errTransient = errors.New("transient")
	errFatal     = errors.New("fatal")
)

// script returns an op that returns errs in turn, then nil, counting its calls.
func script(errs ...error) (func() error, *int) {
	calls := 0
	return func() error {
		calls++
		if calls <= len(errs) {
			return errs[calls-1]
		}
		return nil
	}, &calls
}

func TestDo(t *testing.T) {
	tiny := Backoff{Min: time.Microsecond, Max: 10 * time.Microsecond}
	transient := func(err error) bool { return errors.Is(err, errTransient) }
	for _, tc := range []struct {
		name     string
		p        Policy
		errs     []error
		attempts int
		want     error
	}{
		{"success at once", Policy{Backoff: tiny}, nil, 1, nil},
		{"success after retries", Policy{Backoff: tiny, Retry: transient}, []error{errTransient, errTransient}, 3, nil},
		{"an error not worth retrying stops", Policy{Backoff: tiny, Retry: transient}, []error{errTransient, errFatal, errTransient}, 2, errFatal},
		{"nil Retry retries every error", Policy{Backoff: tiny}, []error{errFatal, errFatal}, 3, nil},
		{"attempts bound", Policy{Backoff: tiny, Attempts: 3}, []error{errTransient, errTransient, errTransient, errTransient}, 3, errTransient},
		{"one attempt", Policy{Backoff: tiny, Attempts: 1}, []error{errTransient}, 1, errTransient},
		{"a pause past the budget is not taken", Policy{Backoff: Backoff{Min: time.Hour}, Budget: time.Minute}, []error{errTransient}, 1, errTransient},
		{"a pause past the deadline is not taken", Policy{Backoff: Backoff{Min: time.Hour}, Deadline: time.Now().Add(time.Minute)}, []error{errTransient}, 1, errTransient},
		{"a pause within the budget is taken", Policy{Backoff: tiny, Budget: time.Minute}, []error{errTransient}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op, calls := script(tc.errs...)
			n, err := Do(context.Background(), tc.p, op)
			if n != tc.attempts || *calls != tc.attempts || !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("Do = %d, %v (op called %d times), want %d, %v", n, err, *calls, tc.attempts, tc.want)
			}
		})
	}
}

// TestDoBudgetStopsInTime: with 1 ms pauses and a 30 ms budget the loop makes attempts for
// about the budget, then returns the last error, well before a second.
func TestDoBudgetStopsInTime(t *testing.T) {
	start := time.Now()
	n, err := Do(context.Background(), Policy{Backoff: Backoff{Min: time.Millisecond}, Budget: 30 * time.Millisecond},
		func() error { return errTransient })
	if took := time.Since(start); !errors.Is(err, errTransient) || n < 2 || took > time.Second {
		t.Errorf("Do = %d, %v after %s: want several attempts, the last error, within the budget", n, err, took)
	}
}

// TestDoContext: a cancelled context stops the loop during a pause and after an attempt,
// and Do returns the op's error, not the context's.
func TestDoContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	n, err := Do(ctx, Policy{Backoff: Backoff{Min: time.Hour}}, func() error { return errTransient })
	if n != 1 || !errors.Is(err, errTransient) || time.Since(start) > 10*time.Second {
		t.Errorf("cancelled during the pause: Do = %d, %v after %s", n, err, time.Since(start))
	}
	calls := 0
	n, err = Do(ctx, Policy{Backoff: Backoff{Min: time.Microsecond}}, func() error { calls++; return errTransient })
	if n != 1 || calls != 1 || !errors.Is(err, errTransient) {
		t.Errorf("context already done: Do = %d, %v with %d calls, want one attempt", n, err, calls)
	}
}

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a done context = %v, want context.Canceled", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a done context = %v, want context.Canceled", err)
	}
}
