package cql_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// TestNativeFunctionsOnTheNode asks the node about every name the model takes for a native
// function: each must be one the node knows. Names 5.0 removed (dateOf) or never had must
// be unknown to the node, and the model must refuse them as it does.
func TestNativeFunctionsOnTheNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	s := cassandratest.Session(t)
	unknown := func(name string) bool {
		err := s.Query("SELECT " + name + "() FROM system.local").Exec()
		return err != nil && strings.Contains(strings.ToLower(err.Error()), "unknown function")
	}
	for _, n := range cql.NativeFunctions() {
		if unknown(n) {
			t.Errorf("%s: the model takes it for a native function, the node does not know it", n)
		}
	}
	for _, n := range []string{"dateof", "unixtimestampof", "random_uuid", "format_bytes", "nosuch"} {
		if !unknown(n) {
			t.Errorf("%s: the node knows it, the model would refuse it", n)
		} else if cql.IsNativeFunction(n) {
			t.Errorf("%s: the node does not know it, the model takes it for a native function", n)
		}
	}
}
