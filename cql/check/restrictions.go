package check

import (
	"fmt"
	"sort"

	"github.com/cqlsize/cqlsize/cql"
)

// This file follows org.apache.cassandra.cql3.restrictions (StatementRestrictions,
// ClusteringColumnRestrictions, PartitionKeySingleRestrictionSet, IndexRestrictions) in
// Cassandra 5.0: the same merging, the same checks in the same order, so the first problem
// found is the one Cassandra reports. testdata/corpus holds the proof against a real node.

// restrictionKind is what a merged restriction does to its column(s).
type restrictionKind int

const (
	rkEQ restrictionKind = iota
	rkIN
	rkSlice
	rkContains // CONTAINS, CONTAINS KEY, map entry =, possibly several merged
	rkLike
)

// restriction is Cassandra's SingleRestriction: the relations on one column merged, or one
// multi-column relation, or the token restriction.
type restriction struct {
	cols        []*cql.Column
	multi       bool
	token       bool
	kind        restrictionKind
	inN         int // values of an IN (unknownN for IN ?); 1 for =
	start, end  bool
	containsOps []containsOp
	rels        []*relation
}

func (r *restriction) col() *cql.Column { return r.cols[0] }

func (r *restriction) isSlice() bool { return r.kind == rkSlice }

func (r *restriction) isEQ() bool { return r.kind == rkEQ }

func (r *restriction) isContains() bool { return r.kind == rkContains }

func (r *restriction) firstPos() int { return r.cols[0].Position }

func (r *restriction) lastPos() int { return r.cols[len(r.cols)-1].Position }

func (r *restriction) pos() cql.Pos { return r.rels[0].pos }

// rejection is a reason Cassandra refuses the statement.
type rejection struct {
	code string
	msg  string
	pos  cql.Pos
	// filtering is true when the refusal is the ALLOW FILTERING one.
	filtering bool
}

func (r *rejection) Error() string { return r.msg }

func reject(code string, pos cql.Pos, format string, args ...any) *rejection {
	return &rejection{code: code, msg: fmt.Sprintf(format, args...), pos: pos}
}

// restrictionSet holds the restrictions on one kind of column, ordered by column position.
type restrictionSet struct {
	list []*restriction
}

func (s *restrictionSet) empty() bool { return len(s.list) == 0 }

func (s *restrictionSet) size() int {
	n := 0
	for _, r := range s.list {
		n += len(r.cols)
	}
	return n
}

// forColumn returns the restriction covering c, or nil.
func (s *restrictionSet) forColumn(c *cql.Column) *restriction {
	for _, r := range s.list {
		for _, rc := range r.cols {
			if rc == c {
				return r
			}
		}
	}
	return nil
}

// last is the restriction on the highest column position.
func (s *restrictionSet) last() *restriction {
	if len(s.list) == 0 {
		return nil
	}
	return s.list[len(s.list)-1]
}

func (s *restrictionSet) add(r *restriction) {
	s.list = append(s.list, r)
	sort.SliceStable(s.list, func(i, j int) bool { return s.list[i].firstPos() < s.list[j].firstPos() })
}

func (s *restrictionSet) hasIN() bool {
	for _, r := range s.list {
		if r.kind == rkIN {
			return true
		}
	}
	return false
}

func (s *restrictionSet) hasSlice() bool {
	for _, r := range s.list {
		if r.isSlice() {
			return true
		}
	}
	return false
}

func (s *restrictionSet) hasContains() bool {
	for _, r := range s.list {
		if r.isContains() {
			return true
		}
	}
	return false
}

// merge adds relation rel on column c to the set, merging it with an earlier restriction on
// the same column the way SingleColumnRestriction.mergeWith does.
func mergeSingle(s *restrictionSet, c *cql.Column, rel *relation, nr *restriction) *rejection {
	old := s.forColumn(c)
	if old == nil {
		s.add(nr)
		return nil
	}
	name := c.Name
	if old.multi {
		return reject(CodeInvalid, rel.pos, "column %s is restricted both by a tuple relation and by %s", name, rel.text)
	}
	switch old.kind {
	case rkEQ:
		return reject(CodeInvalid, rel.pos, "%s cannot be restricted by more than one relation if it includes an Equal", name)
	case rkIN:
		return reject(CodeInvalid, rel.pos, "%s cannot be restricted by more than one relation if it includes a IN", name)
	case rkSlice:
		switch nr.kind {
		case rkSlice:
			if old.start && nr.start {
				return reject(CodeInvalid, rel.pos, "More than one restriction was found for the start bound on %s", name)
			}
			if old.end && nr.end {
				return reject(CodeInvalid, rel.pos, "More than one restriction was found for the end bound on %s", name)
			}
			old.start, old.end = old.start || nr.start, old.end || nr.end
			old.rels = append(old.rels, rel)
			return nil
		case rkEQ:
			return reject(CodeInvalid, rel.pos, "%s cannot be restricted by more than one relation if it includes an Equal", name)
		case rkIN:
			return reject(CodeInvalid, rel.pos, "%s cannot be restricted by more than one relation if it includes a IN", name)
		}
		return reject(CodeInvalid, rel.pos, "column %s cannot be restricted by both a range and %s", name, rel.text)
	case rkContains:
		if nr.kind == rkContains {
			old.containsOps = append(old.containsOps, nr.containsOps...)
			old.rels = append(old.rels, rel)
			return nil
		}
		return reject(CodeInvalid, rel.pos, "collection column %s can only be restricted by CONTAINS, CONTAINS KEY or a map entry, not by %s", name, rel.text)
	}
	return reject(CodeInvalid, rel.pos, "%s cannot be restricted by more than one relation", name)
}
