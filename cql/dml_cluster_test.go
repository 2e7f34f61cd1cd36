package cql_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// TestDMLCorpusAgainstCassandra runs every statement of the DML corpus on a real
// Cassandra 5.0 node, which is the truth: the node must do what the corpus says, and the
// model must agree with the node both ways (no false refusal, no false acceptance).
func TestDMLCorpusAgainstCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	cases := readDMLCorpus(t)
	nodeAgrees(t, cases)
}

// TestVectorDimensionsAgainstCassandra: the node reads a vector dimension as a Java int
// and takes 1..2147483647; the model refuses the rest when it parses, in CREATE and ALTER.
func TestVectorDimensionsAgainstCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	session, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, session, ks, "CREATE TABLE base (id int PRIMARY KEY)")
	for i, tc := range []struct {
		stmt   string
		accept bool
	}{
		{"CREATE TABLE v1 (id int PRIMARY KEY, v vector<float, 2147483647>)", true},
		{"CREATE TABLE v2 (id int PRIMARY KEY, v vector<float, 2147483648>)", false},
		{"CREATE TABLE v3 (id int PRIMARY KEY, v vector<float, 99999999999999>)", false},
		{"CREATE TABLE v4 (id int PRIMARY KEY, v vector<float, 0>)", false},
		{"CREATE TABLE v5 (id int PRIMARY KEY, v vector<float, -1>)", false},
		{"ALTER TABLE base ADD a vector<int, 3>", true},
		{"ALTER TABLE base ADD b vector<int, 2147483648>", false},
		{"ALTER TABLE base ADD c vector<int, 0>", false},
	} {
		nodeErr := exec(session, tc.stmt)
		if (nodeErr == nil) != tc.accept {
			t.Errorf("%s: want accepted=%v, the node says %v", tc.stmt, tc.accept, nodeErr)
		}
		_, modelErr := cql.ParseFile("v.cql", []byte(tc.stmt))
		if (modelErr == nil) != (nodeErr == nil) {
			t.Errorf("case %d %s: the node says %v, the model says %v", i, tc.stmt, nodeErr, modelErr)
		}
		if modelErr != nil && nodeErr != nil && strings.Contains(nodeErr.Error(), "NumberFormatException") &&
			!strings.Contains(modelErr.Error(), "NumberFormatException") {
			t.Errorf("%s: the model does not say the node's words: %v", tc.stmt, modelErr)
		}
	}
}
