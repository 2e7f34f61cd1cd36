// Package retry holds the one backoff schedule and the one retry loop of the project:
// capped exponential pauses with jitter, and a loop bounded by a context, a time budget
// and an attempt count that retries only the errors its caller says are worth it.
//
// Callers keep their own judgement of errors (a statement that may have been applied is
// not the same as one that certainly was not) and their own budgets; what they share is
// how long to pause and when to stop. The package imports no driver and no project
// package.
package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// Jitter says how a pause is drawn from its step of the schedule, so that processes that
// failed together do not retry together.
type Jitter int

const (
	// NoJitter pauses exactly the step.
	NoJitter Jitter = iota
	// UpperHalf draws the pause uniformly from the step's upper half: [step/2, step].
	UpperHalf
	// HalfAgain draws the pause uniformly from [step, step*3/2].
	HalfAgain
)

// Backoff is a capped exponential schedule: the step before the first retry is Min, and
// it doubles before each later retry up to Max. A Max under Min (zero, say) keeps every
// step at Min: a fixed pause.
type Backoff struct {
	Min, Max time.Duration
	Jitter   Jitter
}

// Step is the pause before retry n (n ≥ 1: the pause after the n-th failed attempt)
// without jitter: Min·2^(n-1), at most Max. It is 0 for n < 1 or a zero Min.
func (b Backoff) Step(n int) time.Duration {
	if n < 1 || b.Min <= 0 {
		return 0
	}
	d := b.Min
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, max(b.Max, b.Min))
}

// Pause is Step(n) with the schedule's jitter.
func (b Backoff) Pause(n int) time.Duration {
	d := b.Step(n)
	switch b.Jitter {
	case UpperHalf:
		return d/2 + rand.N(d-d/2+1)
	case HalfAgain:
		return d + rand.N(d/2+1)
	}
	return d
}

// Policy says how Do retries.
type Policy struct {
	Backoff Backoff
	// Budget bounds the time from the first attempt: a retry is not made when its pause
	// would end later than Budget after the first attempt started. Zero: no bound.
	Budget time.Duration
	// Deadline bounds the retries in clock time, as Budget does (zero: no bound).
	Deadline time.Time
	// Attempts bounds the attempts, the first included (0: no bound).
	Attempts int
	// Retry reports whether an error is worth another attempt; nil retries every error.
	Retry func(error) bool
}

// Do runs op until it returns nil, an error the policy does not retry, ctx ends, the
// attempts are used up, or the next pause would end past the budget or the deadline. It
// returns the number of attempts made and op's last error (nil on success): ctx ending
// does not replace that error, so the caller sees what the cluster said.
func Do(ctx context.Context, p Policy, op func() error) (attempts int, err error) {
	start := time.Now()
	for n := 1; ; n++ {
		err = op()
		if err == nil || ctx.Err() != nil || (p.Retry != nil && !p.Retry(err)) ||
			(p.Attempts > 0 && n >= p.Attempts) {
			return n, err
		}
		wait := p.Backoff.Pause(n)
		end := time.Now().Add(wait)
		if (p.Budget > 0 && end.Sub(start) > p.Budget) || (!p.Deadline.IsZero() && end.After(p.Deadline)) {
			return n, err
		}
		if Sleep(ctx, wait) != nil {
			return n, err
		}
	}
}

// Sleep pauses for d, or until ctx ends: then it returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
