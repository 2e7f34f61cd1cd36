package migrations

import (
	"errors"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// ApplyEach applies stmts to sch in order and, unlike Schema.Apply in a loop, does not
// stop at the first refusal: a refused statement is left out and the next one applied, so
// one run names every statement the node would refuse (a history with three needs one
// run, not three). It returns the refusals in order, joined (nil when none).
func ApplyEach(sch *cql.Schema, stmts []cql.Statement) error {
	var r Refusals
	for _, st := range stmts {
		r.Apply(sch, st)
	}
	return r.Err()
}

// Refusals collects what a schema model refuses over several statements (ApplyEach).
//
// A refusal that only follows from an earlier one is not reported again: when a CREATE is
// refused, a later statement refused because that object does not exist says nothing new
// (fix the CREATE and it goes away), so it is counted in the CREATE's error instead.
type Refusals struct{ list []*refusal }

// Apply applies st to sch and keeps its refusal, if any.
func (r *Refusals) Apply(sch *cql.Schema, st cql.Statement) {
	err := sch.Apply(st)
	if err == nil {
		return
	}
	if c := causedBy(r.list, err); c != nil {
		c.followers++
		return
	}
	r.list = append(r.list, &refusal{err: err, creates: createdName(st)})
}

// Len is how many refusals were kept.
func (r *Refusals) Len() int { return len(r.list) }

// Err is every refusal kept, in order, joined (nil when none).
func (r *Refusals) Err() error {
	errs := make([]error, len(r.list))
	for i, c := range r.list {
		errs[i] = c
	}
	return errors.Join(errs...)
}

// refusal is one statement the model refuses, with the name of what it would have created
// and how many later statements were refused only because that object is missing.
type refusal struct {
	err       error
	creates   string
	followers int
}

func (r *refusal) Error() string {
	switch r.followers {
	case 0:
		return r.err.Error()
	case 1:
		return r.err.Error() + " (1 later statement that uses " + r.creates + " is refused with it)"
	}
	return r.err.Error() + " (" + strconv.Itoa(r.followers) + " later statements that use " + r.creates + " are refused with it)"
}

func (r *refusal) Unwrap() error { return r.err }

// causedBy is the earlier refusal of the CREATE whose object err says is missing.
func causedBy(refusals []*refusal, err error) *refusal {
	msg := err.Error()
	if !strings.Contains(msg, "does not exist") && !strings.Contains(msg, "unknown type") && !strings.Contains(msg, "not found") {
		return nil
	}
	for _, r := range refusals {
		if r.creates != "" && mentions(msg, r.creates) {
			return r
		}
	}
	return nil
}

// mentions reports whether msg names name as a whole word (ks.t, "t", t).
func mentions(msg, name string) bool {
	for i := 0; ; {
		j := strings.Index(msg[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !isWordByte(msg[j-1])) && (end == len(msg) || !isWordByte(msg[end])) {
			return true
		}
		i = j + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// createdName is the name of what st creates ("" for a statement that creates nothing).
func createdName(st cql.Statement) string {
	switch s := st.(type) {
	case *cql.CreateKeyspace:
		return s.Name.Name
	case *cql.CreateTable:
		return s.Name.Name.Name
	case *cql.CreateType:
		return s.Name.Name.Name
	case *cql.CreateView:
		return s.Name.Name.Name
	case *cql.CreateIndex:
		return s.Name.Name
	}
	return ""
}
