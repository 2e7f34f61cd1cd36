package bucket

import (
	"errors"
	"fmt"
)

// Errors that callers branch on with errors.Is. Each is returned wrapped with the input
// that caused it.
var (
	// ErrInvalidWidth: a width that is zero, negative, not a whole number of seconds, or
	// an unknown name.
	ErrInvalidWidth = errors.New("invalid width")
	// ErrInvalidShards: a shard count below 1.
	ErrInvalidShards = errors.New("invalid shard count")
	// ErrInvalidRange: a time range whose end is before its start.
	ErrInvalidRange = errors.New("invalid range")
	// ErrTooManyBuckets: a range that needs more buckets than the caller allowed.
	ErrTooManyBuckets = errors.New("too many buckets")
	// ErrNotTimeUUID: a UUID whose version is not 1, so it holds no time.
	ErrNotTimeUUID = errors.New("not a time-based (version 1) uuid")
)

// A ParseError says why text is not a bucket label or a UUID, and what form was expected,
// so a CLI or config loader can print one line that lets the user fix the input.
type ParseError struct {
	Text   string // the input that did not parse
	Want   string // the expected form, such as "YYYY-MM, such as 2024-01"
	Reason string // what is wrong, such as "month 13 is out of range"
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("bucket: cannot parse %q: %s (want %s)", e.Text, e.Reason, e.Want)
}
