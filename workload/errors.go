package workload

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// ErrorList is every problem found in a workload. Each problem read from a file is a
// *cql.Error carrying the file, line and column of the field at fault (errors.As finds the
// first); a problem in a workload built from flags names the flag instead.
type ErrorList []error

func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error { return l }

// err returns the list as an error, or nil when it is empty.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// errorAt is a *cql.Error at pos when pos points somewhere, else a plain error.
func errorAt(pos cql.Pos, format string, args ...any) error {
	if pos.IsValid() {
		return cql.Errorf(pos, format, args...)
	}
	return fmt.Errorf(format, args...)
}
