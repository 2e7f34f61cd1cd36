package backfill

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// Errors injected through the retry: a statement that times out twice then succeeds is
// sent three times; one refused for good is sent once; one that keeps timing out gives up
// after the limit with its own error.
func TestBackfillRetryFor(t *testing.T) {
	ctx := context.Background()
	calls := 0
	err := retryFor(ctx, time.Minute, func() error {
		if calls++; calls < 3 {
			return fmt.Errorf("write: %w", gocql.ErrTimeoutNoResponse)
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("two timeouts then success: %v after %d calls, want nil after 3", err, calls)
	}
	calls = 0
	refused := errors.New("unauthorized")
	if err := retryFor(ctx, time.Minute, func() error { calls++; return refused }); !errors.Is(err, refused) || calls != 1 {
		t.Errorf("a refusal: %v after %d calls, want it after 1", err, calls)
	}
	calls = 0
	start := time.Now()
	err = retryFor(ctx, 700*time.Millisecond, func() error { calls++; return gocql.ErrNoConnections })
	if !errors.Is(err, gocql.ErrNoConnections) || calls < 2 || time.Since(start) > 5*time.Second {
		t.Errorf("no connections for good: %v after %d calls in %s, want it after several, within the limit", err, calls, time.Since(start))
	}
	calls = 0
	if err := retryFor(ctx, -1, func() error { calls++; return gocql.ErrNoConnections }); calls != 1 || err == nil {
		t.Errorf("a negative limit: %d calls, want 1", calls)
	}
	cctx, cancel := context.WithCancel(ctx)
	calls = 0
	err = retryFor(cctx, time.Minute, func() error {
		calls++
		cancel()
		return gocql.ErrTimeoutNoResponse
	})
	if calls != 1 || err == nil {
		t.Errorf("a cancelled run: %d calls, want 1", calls)
	}
}

// A coordinator that has not yet pulled a table created a moment ago says it does not exist
// (Invalid); that is retried like a timeout, while other Invalid answers are not.
func TestSchemaLagIsRetried(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{invalid("table cqlsize_backfill_lease does not exist"), true},
		{invalid("unconfigured table posts_by_month"), true},
		{invalid("Undefined column name x"), false},
		{errors.New("table x does not exist"), false},
	} {
		if got := schemaLag(tc.err); got != tc.want {
			t.Errorf("schemaLag(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// invalid is the error gocql returns for an Invalid (0x2200) answer.
type invalid string

func (e invalid) Code() int       { return gocql.ErrCodeInvalid }
func (e invalid) Message() string { return string(e) }
func (e invalid) Error() string   { return string(e) }
