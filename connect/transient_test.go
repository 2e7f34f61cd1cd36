package connect_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
)

// requestErr is a node's answer with a code, as gocql reports one.
type requestErr int

func (e requestErr) Code() int       { return int(e) }
func (e requestErr) Message() string { return fmt.Sprintf("code %#x", int(e)) }
func (e requestErr) Error() string   { return e.Message() }

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the driver's timeout", gocql.ErrTimeoutNoResponse, true},
		{"the driver's timeout, wrapped", fmt.Errorf("create: %w", gocql.ErrTimeoutNoResponse), true},
		{"connection closed", gocql.ErrConnectionClosed, true},
		{"no connections", gocql.ErrNoConnections, true},
		{"too many timeouts", gocql.ErrTooManyTimeouts, true},
		{"EOF", io.EOF, true},
		{"connection reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, true},
		{"connection refused", syscall.ECONNREFUSED, true},
		{"overloaded", requestErr(gocql.ErrCodeOverloaded), true},
		{"bootstrapping", requestErr(gocql.ErrCodeBootstrapping), true},
		{"write timeout", requestErr(gocql.ErrCodeWriteTimeout), true},
		{"read failure", requestErr(gocql.ErrCodeReadFailure), true},
		{"unavailable", requestErr(gocql.ErrCodeUnavailable), true},
		{"no streams", gocql.ErrNoStreams, true},
		{"syntax", requestErr(gocql.ErrCodeSyntax), false},
		{"invalid", requestErr(gocql.ErrCodeInvalid), false},
		{"unauthorized", requestErr(gocql.ErrCodeUnauthorized), false},
		{"config", requestErr(gocql.ErrCodeConfig), false},
		{"the caller cancelled", context.Canceled, false},
		{"the caller's deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), false},
		{"something else", errors.New("boom"), false},
		{"nil", nil, false},
	} {
		if got := connect.Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
