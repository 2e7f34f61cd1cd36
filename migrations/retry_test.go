package migrations

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func TestIsConditional(t *testing.T) {
	for stmt, want := range map[string]bool{
		`UPDATE t SET a = 1 WHERE k = ? IF lock_owner = ?`:                        true,
		`INSERT INTO t (k) VALUES (?) IF NOT EXISTS`:                              true,
		"DELETE FROM t WHERE k = ?\nIF EXISTS":                                    true,
		`UPDATE t SET a = 'x IF y' WHERE k = ?`:                                   false,
		`SELECT target FROM cqlsize_migrations WHERE target = ?`:                  false,
		`UPDATE t SET diff = 1 WHERE k = ?`:                                       false,
		`INSERT INTO t (k, notify) VALUES (?, ?)`:                                 false,
		`UPDATE t SET state = ?, error = ?, running = ? WHERE target = ? AND v=?`: false,
	} {
		if got := isConditional(stmt); got != want {
			t.Errorf("isConditional(%q) = %v, want %v", stmt, got, want)
		}
	}
}

func TestRetryClass(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want errClass
	}{
		{"incompatible schema (read)", &gocql.RequestErrReadFailure{ErrorMap: gocql.ErrorMap{"127.0.1.2": incompatibleSchema}}, notApplied},
		{"incompatible schema (write)", &gocql.RequestErrWriteFailure{ErrorMap: gocql.ErrorMap{"127.0.1.2": incompatibleSchema}}, notApplied},
		{"read failure, other reason", &gocql.RequestErrReadFailure{ErrorMap: gocql.ErrorMap{"127.0.1.2": 1}}, mayBeApplied},
		{"unavailable", &gocql.RequestErrUnavailable{}, notApplied},
		{"write timeout", &gocql.RequestErrWriteTimeout{}, mayBeApplied},
		{"read timeout", &gocql.RequestErrReadTimeout{}, mayBeApplied},
		{"no response", fmt.Errorf("x: %w", gocql.ErrTimeoutNoResponse), mayBeApplied},
		{"connection reset", syscall.ECONNRESET, mayBeApplied},
		{"eof", io.EOF, mayBeApplied},
		{"refused", syscall.ECONNREFUSED, notApplied},
		{"cancelled", context.Canceled, permanent},
		{"deadline", context.DeadlineExceeded, permanent},
		{"anything else", errors.New("boom"), permanent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryClass(tc.err); got != tc.want {
				t.Errorf("retryClass = %d, want %d", got, tc.want)
			}
		})
	}
}

// A conditional statement is not retried after an error that leaves its outcome unknown;
// a plain one is. Neither is retried after a permanent error, and no sleep is spent then.
func TestRetryDecision(t *testing.T) {
	plain := newBookkeepingRetry(context.Background(), `UPDATE t SET a = 1 WHERE k = 1`, time.Minute)
	lwt := newBookkeepingRetry(context.Background(), `UPDATE t SET a = 1 WHERE k = 1 IF owner = ?`, time.Minute)
	timeout := &gocql.RequestErrWriteTimeout{}
	if got := plain.GetRetryType(timeout); got != gocql.Retry {
		t.Errorf("plain write after a timeout: %v, want Retry (same coordinator)", got)
	}
	if got := lwt.GetRetryType(timeout); got != gocql.Rethrow {
		t.Errorf("LWT after a timeout: %v, want Rethrow", got)
	}
	if got := lwt.GetRetryType(&gocql.RequestErrUnavailable{}); got != gocql.Retry {
		t.Errorf("LWT after unavailable: %v, want Retry", got)
	}
	if got := plain.GetRetryType(gocql.ErrConnectionClosed); got != gocql.RetryNextHost {
		t.Errorf("plain after a dropped connection: %v, want RetryNextHost", got)
	}
	start := time.Now()
	if got := plain.GetRetryType(errors.New("syntax")); got != gocql.Rethrow {
		t.Errorf("permanent: %v", got)
	}
	if d := time.Since(start); d > 20*time.Millisecond {
		t.Errorf("a permanent error waited %s", d)
	}
}

// The retries end at the deadline and when the context ends.
func TestRetryStops(t *testing.T) {
	r := newBookkeepingRetry(context.Background(), `SELECT 1`, 100*time.Millisecond)
	n := 0
	for r.Attempt(nil) && r.GetRetryType(&gocql.RequestErrUnavailable{}) != gocql.Rethrow {
		n++
		if n > 100 {
			t.Fatal("no end to the retries")
		}
	}
	if time.Until(r.deadline) > 0 && n == 0 {
		t.Errorf("gave up at once")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = newBookkeepingRetry(ctx, `SELECT 1`, time.Minute)
	if r.Attempt(nil) {
		t.Error("attempt allowed after the context ended")
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	if d := retryBackoff.Pause(1); d < 50*time.Millisecond || d > 75*time.Millisecond {
		t.Errorf("first pause %s, want 50 to 75 ms", d)
	}
	if d := retryBackoff.Pause(50); d < 2*time.Second || d > 3*time.Second {
		t.Errorf("fiftieth pause %s, want 2 to 3 s", d)
	}
}
