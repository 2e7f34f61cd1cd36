package cql_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// TestNodeRefusalsOnTheNode: the node refuses each of nodeRefusals, in its own words.
func TestNodeRefusalsOnTheNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	s, ks := cassandratest.Keyspace(t)
	for _, tc := range nodeRefusals {
		if tc.setup != "" {
			cassandratest.DDL(t, s, ks, tc.setup)
		}
		err := exec(s, tc.stmt)
		if err == nil || !strings.Contains(err.Error(), tc.node) {
			t.Errorf("%s: want the node to refuse it with %q, got %v", tc.stmt, tc.node, err)
		}
	}
}
