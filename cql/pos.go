package cql

import (
	"errors"
	"fmt"
)

// Pos is a place in a CQL source: file, 1-based line and column (in bytes), and the byte offset.
// Every token, statement, column and error carries one, so a user can jump to the spot.
type Pos struct {
	File   string
	Line   int
	Col    int
	Offset int
}

// String renders the position as file:line:col, the form editors and CI annotations understand.
func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether the position points anywhere.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Error is a problem at a position in a CQL source: what was expected and what was found.
// Parsing and schema errors are *Error so callers can print file:line:col or branch on them.
type Error struct {
	Pos Pos
	Msg string
	Err error // a sentinel such as ErrNoKeyspace that callers can test with errors.Is; may be nil
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns the sentinel the error carries, if any.
func (e *Error) Unwrap() error { return e.Err }

// ErrNoKeyspace is carried by the error for a statement whose object has no keyspace: not
// qualified, no USE before it, and no default keyspace given to LoadSchemaIn. Migrations
// written to run in a session's keyspace hit it; a command can then suggest --keyspace.
var ErrNoKeyspace = errors.New("no keyspace")

// Errorf returns an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
