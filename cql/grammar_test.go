package cql_test

import (
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

const grammarCorpus = "testdata/grammar/corpus.cql"

// TestGrammarCorpus checks the model against what the grammar corpus says a 5.0 node does
// (TestGrammarCorpusAgainstCassandra checks that on a node): the oddities Parser.g accepts
// parse and apply, the statements the node refuses after parsing are refused in place.
func TestGrammarCorpus(t *testing.T) {
	cases := readCorpus(t, grammarCorpus)
	if len(cases) < 30 {
		t.Fatalf("the grammar corpus has %d statements, want at least 30", len(cases))
	}
	_, refused := modelAgrees(t, newOptionsModel(t, "gram"), cases, grammarCorpus)
	t.Logf("%d statements: %d accepted, %d refused", len(cases), len(cases)-refused, refused)
}

// TestGrammarCorpusAgainstCassandra runs the grammar corpus on a real node, the truth.
func TestGrammarCorpusAgainstCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	nodeAgrees(t, readCorpus(t, grammarCorpus))
}

// grammarSyntaxRefusals are statements Parser.g does not derive: the parser must refuse them
// (at the position given), and the node refuses them too (TestGrammarSyntaxAgainstCassandra).
var grammarSyntaxRefusals = []struct{ text, want string }{
	// The first definition is not optional: '(' tableColumns ( ',' tableColumns? )* ')'.
	{"CREATE TABLE gs1 (, k int PRIMARY KEY)", "1:19: expected a column name, found ','"},
	{"CREATE TYPE gs_t (, a int)", "1:19: expected a field name, found ','"},
	// ALTER TABLE ADD (...) has no optional definitions: no trailing comma.
	{"ALTER TABLE gs2 ADD (a int,)", "1:28: expected a column name, found ')'"},
	// tableClusteringOrder needs ASC or DESC.
	{"CREATE TABLE gs3 (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c)", "1:80: expected ASC or DESC, found ')'"},
}

func TestGrammarSyntaxRefusals(t *testing.T) {
	for _, c := range grammarSyntaxRefusals {
		_, err := cql.ParseFile("f.cql", []byte(c.text))
		if err == nil || err.Error() != "f.cql:"+c.want {
			t.Errorf("%s: got %v, want f.cql:%s", c.text, err, c.want)
		}
	}
}

// TestGrammarSyntaxAgainstCassandra holds the syntax table to the node: each is refused.
func TestGrammarSyntaxAgainstCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	session, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, session, ks, "CREATE TABLE gs2 (k int PRIMARY KEY)")
	for _, c := range grammarSyntaxRefusals {
		if err := exec(session, c.text); err == nil {
			t.Errorf("%s: the node accepts it; the parser refuses it (%s)", c.text, c.want)
		}
	}
}
