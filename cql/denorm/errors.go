package denorm

import (
	"errors"
	"fmt"
	"strings"
)

// SchemaError says why a table cannot be mapped. New returns it.
type SchemaError struct {
	Table  string
	Column string // empty when the table as a whole is the problem
	Msg    string
}

func (e *SchemaError) Error() string {
	if e.Column != "" {
		return fmt.Sprintf("map table %s: column %s %s", e.Table, e.Column, e.Msg)
	}
	return fmt.Sprintf("map table %s: %s", e.Table, e.Msg)
}

// UnknownColumnError is a Row.Set of a column the table does not have. Nothing is written.
type UnknownColumnError struct {
	Table, Column string
}

func (e *UnknownColumnError) Error() string {
	return fmt.Sprintf("table %s has no column %q", e.Table, e.Column)
}

// MissingKeyError is a row whose primary key column was not set (or was nil, a zero
// time.Time or a zero UUID, or an empty partition key). Nothing is written.
type MissingKeyError struct {
	Table  string
	Column string
	Row    int // 0-based index of the row among the rows the mapping added
}

func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("table %s row %d: key column %s is missing (nil, zero or empty): every primary key column must be set", e.Table, e.Row, e.Column)
}

// ValueError is a value that cannot be marshalled into its column's type. Nothing is written.
type ValueError struct {
	Table, Column string
	Err           error
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("table %s column %s: %v", e.Table, e.Column, e.Err)
}

func (e *ValueError) Unwrap() error { return e.Err }

// BatchTooLargeError is a logged batch over Options.FailBytes (batch_size_fail_threshold):
// Cassandra would reject it with "Batch too large", so it is not sent.
type BatchTooLargeError struct {
	Size   BatchSize
	Limit  int
	Advice string // what to change, naming the table or column that weighs most
}

func (e *BatchTooLargeError) Error() string {
	var tables []string
	for _, t := range e.Size.Tables {
		tables = append(tables, fmt.Sprintf("%s %d rows %d bytes", t.Table, t.Rows, t.Bytes))
	}
	return fmt.Sprintf("batch of %d bytes (%s) is over batch_size_fail_threshold %d bytes: %s",
		e.Size.Bytes, strings.Join(tables, ", "), e.Limit, e.Advice)
}

// WriteError is one statement of a Concurrent write that failed.
type WriteError struct {
	Table string
	Op    Op
	Err   error
}

func (e WriteError) Error() string { return fmt.Sprintf("%s %s: %v", e.Op, e.Table, e.Err) }

// PartialWriteError is a Concurrent write where some statements failed and others may
// have been applied. Retrying the same write with the same timestamp (Plan.Timestamp, via
// the At option) is safe: every statement is idempotent.
type PartialWriteError struct {
	Failed    []WriteError
	Succeeded int
	Timestamp int64
}

func (e *PartialWriteError) Error() string {
	return fmt.Sprintf("write partly applied: %d of %d statements failed (retry with denorm.At(%d) to finish it): %v",
		len(e.Failed), len(e.Failed)+e.Succeeded, e.Timestamp, e.Failed[0])
}

// Unwrap returns the first failure, so errors.Is sees driver errors such as timeouts.
func (e *PartialWriteError) Unwrap() error { return e.Failed[0].Err }

// ErrNotFound is returned by Load when the source table has no row for the key.
var ErrNotFound = errors.New("not found")

// ErrBadToken is returned for a page token that was not produced by this timeline for
// this key: tampered with, truncated, signed with another key, or from another query.
var ErrBadToken = errors.New("invalid page token")
