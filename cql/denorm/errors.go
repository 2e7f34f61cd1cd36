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

// WriteError is one statement of a Concurrent write that failed: the driver gave up on it
// (after its retries), so it is not known to have landed. A statement that timed out may
// still have been applied by some replicas.
type WriteError struct {
	Statement int    // index in Plan.Statements
	Table     string // as Model.Tables names it
	Op        Op
	Key       string // the row's primary key, "column=value, ..." in key order
	Err       error
}

func (e WriteError) Error() string {
	return fmt.Sprintf("%s %s (%s): %v", e.Op, e.Table, e.Key, e.Err)
}

// PartialWriteError is a Concurrent write where some statements failed and the others
// were applied: Failed names every row that is not known to have landed (table, primary
// key, insert or delete). Sending the same plan again (Model.Exec), or the same write with
// At(Timestamp), completes it: the statements that landed write the same cells with the
// same timestamp again, and the failed ones land. That holds when Idempotent is true,
// which is every write except one that sets a whole non-frozen list.
type PartialWriteError struct {
	Failed     []WriteError
	Succeeded  int
	Timestamp  int64
	Idempotent bool // the failed statements can be sent again without changing what is stored twice
}

func (e *PartialWriteError) Error() string {
	advice := fmt.Sprintf("retry with denorm.At(%d) to finish it", e.Timestamp)
	if !e.Idempotent {
		advice = "not safe to send again as a whole: it sets a non-frozen list, which a replay would append twice"
	}
	if len(e.Failed) == 0 {
		return fmt.Sprintf("write partly applied (%s)", advice)
	}
	failed := make([]string, 0, min(len(e.Failed), 3))
	for i, f := range e.Failed {
		if i == 3 {
			failed = append(failed, fmt.Sprintf("and %d more", len(e.Failed)-3))
			break
		}
		failed = append(failed, f.Error())
	}
	return fmt.Sprintf("write partly applied: %d of %d statements failed (%s): %s",
		len(e.Failed), len(e.Failed)+e.Succeeded, advice, strings.Join(failed, "; "))
}

// Unwrap returns every failure, so errors.Is and errors.As see driver errors such as
// timeouts.
func (e *PartialWriteError) Unwrap() []error {
	out := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		out[i] = f.Err
	}
	return out
}

// ErrNotFound is returned by Load when the source table has no row for the key.
var ErrNotFound = errors.New("not found")

// ErrBadToken is returned for a page token that was not produced by this timeline for
// this key: tampered with, truncated, signed with another key, or from another query.
var ErrBadToken = errors.New("invalid page token")
