package check

import (
	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// indexKind is the implementation behind an index, which decides what it can answer.
type indexKind int

const (
	legacyIndex indexKind = iota // CREATE INDEX without USING: one hidden table per index
	saiIndex                     // storage-attached (USING 'sai'): all of a table's SAI indexes answer together
	sasiIndex                    // SSTable-attached (SASIIndex): experimental, supports LIKE
	otherIndex                   // another custom class: assumed to answer = only
)

// targetKind is what of the column an index holds.
type targetKind int

const (
	targetColumn  targetKind = iota // the value (a non-collection, or a frozen value as a whole)
	targetValues                    // values(c): elements of a list or set, values of a map
	targetKeys                      // keys(m)
	targetEntries                   // entries(m): m[k] = v
	targetFull                      // full(frozen collection)
)

// tableIndex is an index of the table being queried, resolved to its column.
type tableIndex struct {
	name   string
	kind   indexKind
	target targetKind
	col    *cql.Column
}

// tableIndexes lists the indexes on t, resolving each target to a column.
func tableIndexes(s *cql.Schema, t *cql.Table) []tableIndex {
	ks := s.Keyspaces[t.Keyspace]
	if ks == nil {
		return nil
	}
	var out []tableIndex
	for _, idx := range ks.Indexes {
		if idx.Table != t.Name {
			continue
		}
		ti := tableIndex{name: idx.Name, kind: indexKindOf(idx)}
		col, target := parseTarget(idx.Target)
		ti.col = t.Column(col)
		if ti.col == nil {
			continue
		}
		// CREATE INDEX ON t (c) on a non-frozen collection indexes its values.
		if target == targetColumn && ti.col.Type.MultiCell() {
			target = targetValues
		}
		ti.target = target
		out = append(out, ti)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func indexKindOf(idx *cql.Index) indexKind {
	if !idx.Custom {
		return legacyIndex
	}
	c := strings.ToLower(idx.Class)
	switch {
	case c == "sai" || c == "storageattachedindex" || strings.HasSuffix(c, ".storageattachedindex"):
		return saiIndex
	case strings.Contains(c, "sasiindex"):
		return sasiIndex
	}
	return otherIndex
}

// parseTarget splits "keys(m)" into ("m", targetKeys); a bare name is targetColumn.
func parseTarget(target string) (string, targetKind) {
	t := strings.TrimSpace(target)
	for prefix, kind := range map[string]targetKind{"keys(": targetKeys, "values(": targetValues, "entries(": targetEntries, "full(": targetFull} {
		if len(t) > len(prefix) && strings.EqualFold(t[:len(prefix)], prefix) && strings.HasSuffix(t, ")") {
			return unquote(strings.TrimSpace(t[len(prefix) : len(t)-1])), kind
		}
	}
	return unquote(t), targetColumn
}

func unquote(name string) string {
	if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
		return strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
	}
	return strings.ToLower(name)
}

// saiEQOnly are the types an SAI index answers only with = (IndexTermType.EQ_ONLY_TYPES and
// the "literal" types: strings, booleans, frozen values).
func saiRangeable(t cql.Type) bool {
	if t.Kind != cql.Native {
		return false // frozen collections, tuples, UDTs are literal: = only
	}
	switch t.Name {
	case "text", "ascii", "boolean", "uuid":
		return false
	}
	return true
}

// supports reports whether index ix can answer restriction r on its own, the way
// Index.supportsExpression does for the operator and column of r.
func (ix tableIndex) supports(r *restriction) bool {
	if r.multi || r.token || len(r.cols) != 1 || r.cols[0] != ix.col {
		return false
	}
	switch r.kind {
	case rkContains:
		// A CONTAINS restriction may hold several operators (CONTAINS, CONTAINS KEY, m[k] =).
		for _, o := range r.containsOps {
			if !ix.supportsOp(o, r.col().Type) {
				return false
			}
		}
		return true
	case rkEQ:
		return ix.supportsOp(opEQ, r.col().Type)
	case rkIN:
		return ix.supportsOp(opIN, r.col().Type)
	case rkSlice:
		return ix.supportsOp(opGT, r.col().Type)
	case rkLike:
		return ix.supportsOp(opLike, r.col().Type)
	}
	return false
}

// containsOp is an operator on a collection column: CONTAINS, CONTAINS KEY or a map entry =.
type containsOp int

const (
	containsValue containsOp = iota
	containsKey
	mapEntry
)

func (ix tableIndex) supportsOp(o any, t cql.Type) bool {
	switch ix.kind {
	case legacyIndex, otherIndex:
		switch ix.target {
		case targetValues:
			return o == containsValue
		case targetKeys:
			// A legacy index on a set's values is a keys index underneath and answers
			// CONTAINS as well; keys(m) answers CONTAINS KEY.
			return o == containsKey
		case targetEntries:
			return o == mapEntry
		default:
			return o == opEQ
		}
	case saiIndex:
		switch ix.target {
		case targetValues:
			return o == containsValue
		case targetKeys:
			return o == containsKey
		case targetEntries:
			return o == mapEntry
		case targetFull:
			return o == opEQ
		}
		if o == opEQ {
			return true
		}
		return o == opGT && saiRangeable(t) // ranges on numbers, dates, times, timeuuids, inet, blobs
	case sasiIndex:
		return o == opEQ || o == opGT || o == opLike
	}
	return false
}
