package retry_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cqlsize/cqlsize/internal/retry"
)

// The bookkeeping statements of the migrations pause 50 ms doubling to 2 s, each pause
// drawn from [step, step*3/2].
func ExampleBackoff_Step() {
	b := retry.Backoff{Min: 50 * time.Millisecond, Max: 2 * time.Second, Jitter: retry.HalfAgain}
	for n := 1; n <= 8; n++ {
		fmt.Print(b.Step(n), " ")
	}
	fmt.Println()
	// Output: 50ms 100ms 200ms 400ms 800ms 1.6s 2s 2s
}

// Do retries what the caller says is worth it, here up to three attempts.
func ExampleDo() {
	busy := errors.New("node busy")
	calls := 0
	n, err := retry.Do(context.Background(), retry.Policy{
		Backoff:  retry.Backoff{Min: time.Millisecond},
		Attempts: 3,
		Retry:    func(err error) bool { return errors.Is(err, busy) },
	}, func() error {
		calls++
		if calls < 3 {
			return busy
		}
		return nil
	})
	fmt.Println(n, err)
	// Output: 3 <nil>
}
