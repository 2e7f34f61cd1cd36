package cli

import (
	"errors"
	"fmt"
)

// Exit statuses. CI scripts branch on them, so they never change meaning.
const (
	ExitOK       = 0 // everything fine
	ExitFindings = 1 // the run worked and found something at or over the --fail-on threshold
	ExitBadInput = 2 // bad usage, bad input (file, flag, setting) or an unreachable cluster
)

// ExitError carries an exit status with its message. A command's RunE returns one to pick
// the status; any other error is treated as bad input (2).
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

// InputErr reports unreadable or invalid input, or an unreachable cluster (exit 2).
func InputErr(err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: ExitBadInput, Err: err}
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
	return ExitBadInput
}
