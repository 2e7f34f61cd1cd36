package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/migrations"
)

// Exit statuses. Deploy scripts and CI jobs branch on them, so they never change meaning.
const (
	ExitOK       = 0 // everything fine
	ExitFindings = 1 // the run worked and found something at or over the --fail-on threshold (or a lint)
	ExitBadInput = 2 // bad usage or bad input (file, flag, setting, a statement the node refuses): fix it first
	// ExitRetry is cluster trouble that is safe to retry as is: the cluster was unreachable,
	// the migration lock wait timed out, the lease was lost, the nodes did not agree on the
	// schema in time, or a run stopped partway on a timeout; the next run continues.
	ExitRetry = 3
	// ExitInDoubt is a statement that may or may not have been applied and cannot safely be
	// run again: a person must look and decide (cqlsize migrate resolve).
	ExitInDoubt = 4
)

// ExitError carries an exit status with its message. A command's RunE returns one to pick
// the status; any other error is classified by classify.
type ExitError struct {
	Code int
	Err  error // nil for findings already reported on stdout
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Usagef reports a bad flag or argument (exit 2).
func Usagef(format string, args ...any) error {
	return &ExitError{Code: ExitBadInput, Err: fmt.Errorf(format, args...)}
}

// InputErr reports an error reading input or talking to the cluster. Its status comes
// from classify: cluster trouble that is safe to retry is 3, a statement in doubt 4, and
// everything else (unreadable or invalid input) 2.
func InputErr(err error) error {
	if err == nil {
		return nil
	}
	var e *ExitError
	if errors.As(err, &e) {
		return err
	}
	return &ExitError{Code: classify(err), Err: err}
}

// Findings reports that the output already printed has findings at or over the threshold
// (exit 1). It prints nothing more.
func Findings() error { return &ExitError{Code: ExitFindings} }

// exitCode maps an error returned by a command to the process exit status.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *ExitError
	if errors.As(err, &e) {
		return e.Code
	}
	return classify(err)
}

// classify decides between 2, 3 and 4 for an error that carries no status. In doubt is
// checked first: an in-doubt statement wraps the cluster error that caused it, and
// retrying it blindly is exactly what must not happen.
func classify(err error) int {
	switch {
	case errors.Is(err, migrations.ErrInDoubt):
		return ExitInDoubt
	case refusedByNode(err), loginRefused(err):
		// A run that stopped partway because the node refused a statement is not fixed by
		// running it again: the file must change. Nor is a login the node refused: the
		// credentials (or TLS settings) must.
		return ExitBadInput
	case retryable(err):
		return ExitRetry
	}
	return ExitBadInput
}

// refusedByNode reports whether the cluster answered that the request itself is wrong
// (syntax, invalid, configuration, permission): running it again gives the same answer.
func refusedByNode(err error) bool {
	var req gocql.RequestError
	if !errors.As(err, &req) {
		return false
	}
	switch req.Code() {
	case gocql.ErrCodeSyntax, gocql.ErrCodeInvalid, gocql.ErrCodeConfig, gocql.ErrCodeUnauthorized,
		gocql.ErrCodeAlreadyExists, gocql.ErrCodeCredentials, gocql.ErrCodeProtocol:
		return true
	}
	return false
}

// loginRefused reports a session the cluster refused: wrong or missing credentials, a
// failed TLS handshake. connect.Open wraps it in an UnreachableError, which alone would
// read as an unreachable cluster (3).
func loginRefused(err error) bool {
	var unreachable *connect.UnreachableError
	return errors.As(err, &unreachable) && unreachable.Refused()
}

// retryable reports cluster trouble that a later run can get past without any change:
// the cluster or a replica was unreachable or slow, the lock was busy or lost, the nodes
// did not agree in time.
func retryable(err error) bool {
	var unreachable *connect.UnreachableError
	// *net.OpError, not net.Error: syscall.Errno satisfies net.Error too, and a missing
	// file is not cluster trouble.
	var netErr *net.OpError
	var changing *liveschema.ChangingError
	switch {
	case errors.As(err, &unreachable),
		errors.Is(err, migrations.ErrLocked),
		errors.Is(err, migrations.ErrLockLost),
		errors.Is(err, migrations.ErrSchemaDisagreement),
		// A DC short of replicas for the lock: nothing was sent, and the same run passes
		// once the DC returns.
		errors.Is(err, migrations.ErrReplicasDown),
		errors.Is(err, context.DeadlineExceeded),
		// Ctrl-C, or the SIGTERM an orchestrator sends a deploy it replaces: the run stopped
		// between statements with its progress recorded, and the next run continues.
		errors.Is(err, context.Canceled),
		errors.Is(err, gocql.ErrNoConnections),
		errors.Is(err, gocql.ErrTimeoutNoResponse),
		errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrUnavailable),
		errors.Is(err, gocql.ErrNoConnectionsStarted),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET),
		errors.As(err, &netErr),
		// The schema kept changing while it was read (another deploy at work).
		errors.As(err, &changing):
		return true
	}
	var req gocql.RequestError
	if errors.As(err, &req) {
		switch req.Code() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping,
			gocql.ErrCodeTruncate, gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout,
			gocql.ErrCodeReadFailure, gocql.ErrCodeWriteFailure, gocql.ErrCodeCASWriteUnknown, gocql.ErrCodeServer:
			return true
		}
	}
	return false
}
