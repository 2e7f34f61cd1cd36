package connect

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/gocql/gocql"
)

// Transient reports whether err is a failure of the cluster that a later attempt, through
// the same or another coordinator, may not meet: a lost or refused connection, no answer
// in time, a coordinator's read or write timeout or failure, too few replicas alive, an
// overloaded or bootstrapping node. The node refusing the statement itself (syntax,
// permission, invalid) is not, nor is the caller's context ending.
//
// It answers one question for every caller (denorm's retry policy, the backfill, the
// schema changes cqlsize makes for itself): whether the failure is the cluster's state
// rather than the request. Whether sending again is safe is the caller's to judge: a
// write that timed out may have been applied.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller gave up; context.DeadlineExceeded is also a net.Error
	}
	var unavailable *gocql.RequestErrUnavailable
	if errors.As(err, &unavailable) || CoordinatorTimeout(err) {
		return true
	}
	var re gocql.RequestError
	if errors.As(err, &re) {
		switch re.Code() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping,
			gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout, gocql.ErrCodeWriteFailure,
			gocql.ErrCodeReadFailure, gocql.ErrCodeServer:
			return true
		}
		return false
	}
	switch {
	case errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrNoStreams), errors.Is(err, gocql.ErrNoConnections),
		errors.Is(err, gocql.ErrTooManyTimeouts),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// CoordinatorTimeout reports whether err is a coordinator's answer that replicas did not
// respond (in time, or at all).
func CoordinatorTimeout(err error) bool {
	var (
		writeTimeout *gocql.RequestErrWriteTimeout
		readTimeout  *gocql.RequestErrReadTimeout
		writeFailure *gocql.RequestErrWriteFailure
		readFailure  *gocql.RequestErrReadFailure
	)
	return errors.As(err, &writeTimeout) || errors.As(err, &readTimeout) ||
		errors.As(err, &writeFailure) || errors.As(err, &readFailure)
}
