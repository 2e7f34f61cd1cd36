package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/migrations"
)

// requestErr is a server error as gocql returns it, built from the driver's own frame
// type is not exported, so a test error carries the code the way gocql.RequestError asks.
type requestErr struct {
	code int
	msg  string
}

func (e requestErr) Code() int       { return e.code }
func (e requestErr) Message() string { return e.msg }
func (e requestErr) Error() string   { return e.msg }

// TestClassify pins the exit status of every kind of failure a command can end with: a
// deploy script retries 3, pages a person on 4 and fixes its input on 2.
func TestClassify(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("apply 0002_x.cql: %w", err) }
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"plain error", errors.New("read schema.cql: no such file"), ExitBadInput},
		{"unreachable", &connect.UnreachableError{Hosts: []string{"127.0.0.1:1"}, Source: "--hosts", Err: errors.New("refused")}, ExitRetry},
		{"lock wait timed out", &migrations.LockedError{}, ExitRetry},
		{"lease lost", wrap(migrations.ErrLockLost), ExitRetry},
		{"agreement timeout", &migrations.DisagreementError{Err: context.DeadlineExceeded}, ExitRetry},
		{"deadline", wrap(context.DeadlineExceeded), ExitRetry},
		{"interrupted (Ctrl-C, SIGTERM)", wrap(context.Canceled), ExitRetry},
		{"no connections", wrap(gocql.ErrNoConnections), ExitRetry},
		{"connection closed", wrap(gocql.ErrConnectionClosed), ExitRetry},
		{"write timeout", wrap(requestErr{gocql.ErrCodeWriteTimeout, "Operation timed out"}), ExitRetry},
		{"unavailable", wrap(requestErr{gocql.ErrCodeUnavailable, "Cannot achieve consistency level QUORUM"}), ExitRetry},
		{"read failure (schema mismatch on a replica)", wrap(requestErr{gocql.ErrCodeReadFailure, "INCOMPATIBLE_SCHEMA"}), ExitRetry},
		{"partial run on a timeout", &migrations.PartialError{Err: requestErr{gocql.ErrCodeWriteTimeout, "timed out"}}, ExitRetry},
		{"partial run on a refused statement", &migrations.PartialError{Err: requestErr{gocql.ErrCodeInvalid, "Undefined column name x"}}, ExitBadInput},
		{"syntax", wrap(requestErr{gocql.ErrCodeSyntax, "line 1:7 no viable alternative"}), ExitBadInput},
		{"in doubt", wrap(migrations.ErrInDoubt), ExitInDoubt},
		{"in doubt beats the timeout that caused it", fmt.Errorf("%w: %w", migrations.ErrInDoubt, context.DeadlineExceeded), ExitInDoubt},
		{"findings", Findings(), ExitFindings},
		{"usage", Usagef("--rows -5"), ExitBadInput},
		{"an explicit status is kept", InputErr(&ExitError{Code: ExitFindings, Err: errors.New("lint")}), ExitFindings},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.err); got != tc.want {
				t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
			}
			if got := exitCode(InputErr(tc.err)); got != tc.want {
				t.Errorf("exitCode(InputErr(%v)) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}

// An estimate beside a live cluster that cannot be reached is exit 3 (retry), naming the
// host, with nothing on stdout: a CI job can tell a network blip from a broken schema.
func TestEstimateUnreachableIsRetry(t *testing.T) {
	schema := filepath.Join("..", "..", "examples", "posts", "migrations")
	code, out, errOut := run(t, "estimate", "--schema", schema, "--keyspace", "posts", "--workload", estWorkload,
		"--hosts", "127.0.0.1:1")
	if code != ExitRetry || !strings.Contains(errOut, "127.0.0.1:1") || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q: want 3 naming the host, nothing on stdout", code, out, errOut)
	}
}
