package design_test

import (
	"sort"
	"strconv"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/design"
)

func sortStrings(s []string) []string { sort.Strings(s); return s }

func itoa(n int) string { return strconv.Itoa(n) }

// parseSchema applies CQL text to a new schema whose unqualified names are in keyspace.
func parseSchema(file, src, keyspace string) (*cql.Schema, error) {
	s := cql.NewSchemaIn(keyspace)
	if err := s.ApplyFile(file, []byte(src)); err != nil {
		return nil, err
	}
	return s, nil
}

// queryTable is the one table of d that serves the design's single query; every other
// table must be a home that serves none (each entity's, home.go).
func queryTable(t testing.TB, d *design.Design) *design.Table {
	t.Helper()
	var out *design.Table
	for _, tb := range d.Tables {
		switch {
		case len(tb.Queries) > 0 && out == nil:
			out = tb
		case len(tb.Queries) > 0:
			t.Fatalf("two tables serve queries: %s and %s", out.Table.Name, tb.Table.Name)
		case !tb.Home:
			t.Fatalf("%s serves no query and is no home", tb.Table.Name)
		}
	}
	if out == nil {
		t.Fatalf("no table serves the query (%d tables)", len(d.Tables))
	}
	return out
}
