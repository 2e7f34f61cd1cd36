package workload

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Validate checks the workload against a schema: every table exists, every column a field
// names exists and has a type the field makes sense for. Every problem is reported with the
// file, line and column of the field at fault.
func (w *Workload) Validate(s *cql.Schema) error {
	var errs ErrorList
	for _, t := range w.Tables {
		tbl, err := t.Resolve(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := t.ValidateFor(tbl); err != nil {
			errs = append(errs, err.(ErrorList)...)
		}
	}
	return errs.err()
}

// Resolve finds the table a workload entry names in s.
func (t *TableWorkload) Resolve(s *cql.Schema) (*cql.Table, error) {
	if s != nil {
		if tbl, ok := s.FindTable(t.Name); ok {
			return tbl, nil
		}
	}
	var names []string
	ambiguous := false
	bare := t.Name[strings.LastIndexByte(t.Name, '.')+1:]
	if s != nil {
		for _, tbl := range s.Tables() {
			names = append(names, tbl.QualifiedName())
			if tbl.Name == bare && !strings.Contains(t.Name, ".") {
				ambiguous = true
			}
		}
	}
	if ambiguous {
		return nil, errorAt(t.Pos, "table %s: more than one keyspace has a table of that name; qualify it (keyspace.%s)", t.Name, bare)
	}
	if len(names) == 0 {
		return nil, errorAt(t.Pos, "table %s is not in the schema (the schema has no tables)", t.Name)
	}
	return nil, errorAt(t.Pos, "table %s is not in the schema (it has %s)", t.Name, strings.Join(names, ", "))
}

// ValidateFor checks the workload's column fields against tbl.
func (t *TableWorkload) ValidateFor(tbl *cql.Table) error {
	var errs ErrorList
	add := func(path, format string, args ...any) {
		errs = append(errs, errorAt(t.FieldPos(path), "table %s: "+format, append([]any{t.Name}, args...)...))
	}
	column := func(path, col string) *cql.Column {
		c := tbl.Column(col)
		if c == nil {
			add(path, "%s: no column %q in %s (columns: %s)", path, col, tbl.QualifiedName(), columnNames(tbl))
		}
		return c
	}
	for _, col := range sortedKeys(t.Avg) {
		path := "avg." + col
		if base, _, isField := strings.Cut(col, "."); isField {
			// A field of a user-defined type: avg.address.street.
			if c := column(path, base); c != nil && c.Type.Kind != cql.UDT {
				add(path, "%s: %s is %s, not a user-defined type with fields", path, base, c.Type)
			}
			continue
		}
		c := column(path, col)
		if c == nil {
			continue
		}
		if n, fixed := c.Type.FixedSize(); fixed {
			add(path, "%s: %s is %s, always %d bytes: drop the entry", path, col, c.Type, n)
		} else if c.Type.MultiCell() && c.Type.Kind != cql.UDT {
			add(path, "%s: %s is a non-frozen %s stored one cell per element: describe it under items (count and element size)", path, col, c.Type)
		}
	}
	for _, col := range sortedKeys(t.Items) {
		path := "items." + col
		c := column(path, col)
		if c == nil {
			continue
		}
		if !c.Type.IsCollection() {
			add(path, "%s: %s is %s, not a list, set or map", path, col, c.Type)
			continue
		}
		it := t.Items[col]
		if it.KeySize > 0 && c.Type.Kind != cql.Map {
			add(path, "%s: key applies to maps; %s is %s", path, col, c.Type)
		}
	}
	for _, col := range sortedKeys(t.Nulls) {
		if col == "*" {
			continue
		}
		path := "nulls." + col
		if c := column(path, col); c != nil && (c.Kind == cql.PartitionKey || c.Kind == cql.Clustering) {
			add(path, "%s: %s is part of the primary key and is never null", path, col)
		}
	}
	for _, col := range sortedKeys(t.Overwrites) {
		path := "overwrites." + col
		if c := column(path, col); c != nil && !c.Type.MultiCell() {
			add(path, "%s: %s is %s; only a non-frozen collection or UDT is overwritten with a tombstone", path, col, c.Type)
		}
	}
	for _, col := range sortedKeys(t.ElementWrites) {
		path := "element_writes." + col
		if c := column(path, col); c != nil && !c.Type.MultiCell() {
			add(path, "%s: %s is %s; only a non-frozen collection or UDT is written element by element", path, col, c.Type)
		}
	}
	for i, d := range t.Deletes {
		f := fmt.Sprintf("deletes[%d]", i)
		switch d.Kind {
		case DeleteRow, DeleteRange:
			if len(tbl.Clustering) == 0 {
				add(f+".kind", "%s: %s has no clustering columns, so a %s delete removes the whole partition: use kind: partition", f, tbl.QualifiedName(), d.Kind)
			}
		case DeleteCell, DeleteElement:
			c := column(f+".column", d.Column)
			if c == nil {
				continue
			}
			if c.Kind == cql.PartitionKey || c.Kind == cql.Clustering {
				add(f+".column", "%s: %s is part of the primary key; delete the row instead", f, d.Column)
			} else if d.Kind == DeleteElement && !c.Type.MultiCell() {
				add(f+".column", "%s: %s is %s; element deletes apply to non-frozen collections", f, d.Column, c.Type)
			}
		}
	}
	return errs.err()
}

func columnNames(tbl *cql.Table) string {
	names := make([]string, len(tbl.Columns))
	for i, c := range tbl.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// Check lists what is wrong with the workload on its own (no schema needed): neither rows
// nor a write rate, both, impossible numbers. A file's entries are checked as they are read.
func (t *TableWorkload) Check() ErrorList {
	var errs ErrorList
	for _, p := range t.check() {
		errs = append(errs, errorAt(t.FieldPos(p.field), "table %s: %s", t.Name, p.msg))
	}
	return errs
}
