package design_test

import (
	"sort"
	"strconv"

	"github.com/cqlsize/cqlsize/cql"
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
