package cql_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

const dmlCorpus = "testdata/dml/corpus.cql"

// readDMLCorpus reads the DML corpus (see readCorpus).
func readDMLCorpus(t *testing.T) []corpusCase { return readCorpus(t, dmlCorpus) }

// TestDMLCorpus checks the model against what the corpus says a 5.0 node does
// (TestDMLCorpusAgainstCassandra checks that on a node): accepted statements apply,
// refused ones are refused at a position inside the statement.
func TestDMLCorpus(t *testing.T) {
	cases := readDMLCorpus(t)
	ok, refused := modelAgrees(t, newOptionsModel(t, "dml"), cases, dmlCorpus)
	if ok < 20 || refused < 20 {
		t.Errorf("the DML corpus has %d accepted and %d refused statements, want at least 20 of each", ok, refused)
	}
}

// TestDMLBindMarkersAreNeverRefused: a marker's value comes at execution, so its type is
// never the model's business, whatever the column.
func TestDMLBindMarkersAreNeverRefused(t *testing.T) {
	for _, stmt := range []string{
		"INSERT INTO t (id, c, n, v, s, m) VALUES (?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?",
		"INSERT INTO t (id, c, n, v) VALUES (:id, :c, :n, :v)",
		"UPDATE t USING TTL :ttl SET n = :n, m[:k] = :v, s = s + :more WHERE id = :id AND c = :c",
		"DELETE FROM t USING TIMESTAMP ? WHERE id = ? AND c IN ?",
		"INSERT INTO t JSON ?",
		"UPDATE cnt SET hits = hits + ? WHERE id = ?",
	} {
		model := dmlModel(t)
		if err := model.ApplyFile("m.cql", []byte(stmt)); err != nil {
			t.Errorf("%s: %v", stmt, err)
		}
	}
}

// TestDMLRefusals pins the position and the node's words for the statements the user
// sweep found applied halfway (each refused by a 5.0.9 node).
func TestDMLRefusals(t *testing.T) {
	for _, tc := range []struct{ stmt, want string }{
		{"INSERT INTO t (id, c, nosuch) VALUES (1, 1, 2)", "m.cql:1:23: Undefined column name nosuch in table dml.t"},
		{"INSERT INTO t (id, c, n) VALUES (1, 1, 'abc')", `m.cql:1:40: Invalid STRING constant (abc) for "n" of type int`},
		{"INSERT INTO t (id, n) VALUES (1, 2)", "m.cql:1:13: Some clustering keys are missing: c"},
		{"UPDATE t SET v = 'x' WHERE id = 1", "m.cql:1:28: Some clustering keys are missing: c"},
		{"DELETE FROM t WHERE id > 1", "m.cql:1:21: Only EQ and IN relation are supported on the partition key (unless you use the token() function) for DELETE statements"},
		{"INSERT INTO t (id, c, s) VALUES (1, 1, {1, 2})", "m.cql:1:41: Invalid set literal for s: value 1 is not of type text"},
		{"UPDATE t SET n = n + 1 WHERE id = 1 AND c = 1", "m.cql:1:14: Invalid operation (n = n + 1) for non counter column n"},
		{`INSERT INTO t JSON '{"id": "abc", "c": 1}'`, "m.cql:1:20: Error decoding JSON value for id: Unable to make int from 'abc'"},
		{"INSERT INTO t (id, c) VALUES (99999999999, 1)", "m.cql:1:31: Unable to make int from '99999999999'"},
		{"INSERT INTO t (id, c) VALUES (1, 1) USING TIMESTAMP 99999999999999999999", "m.cql:1:53: Unable to make long from '99999999999999999999'"},
		{"INSERT INTO t (id, c) VALUES (1, 1) USING TTL 99999999999", "m.cql:1:47: Unable to make int from '99999999999'"},
		{"INSERT INTO t (id, c) VALUES (1, 1) USING TTL -1", "m.cql:1:47: A TTL must be greater or equal to 0, but was -1"},
		{"INSERT INTO t (id, c) VALUES (1, 1) USING TTL 700000000", "m.cql:1:47: ttl is too large. requested (700000000) maximum (630720000)"},
		{"CREATE TABLE e (id int PRIMARY KEY, v vector<float, 99999999999999>)", `m.cql:1:53: vector dimension 99999999999999 is over 2147483647`},
		{"ALTER TABLE t ADD vec vector<int, 2147483648>", `m.cql:1:35: vector dimension 2147483648 is over 2147483647`},
		{"ALTER TABLE t ADD vec vector<int, -1>", "m.cql:1:35: vectors may only have positive dimensions; given -1"},
	} {
		model := dmlModel(t)
		err := model.ApplyFile("m.cql", []byte(tc.stmt))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.stmt, err, tc.want)
		}
	}
}

// dmlModel is a schema with the tables the DML tests write to.
func dmlModel(t *testing.T) *cql.Schema {
	t.Helper()
	model := newOptionsModel(t, "dml")
	ddl := "CREATE TABLE t (id int, c int, v text, n int, s set<text>, m map<text, int>, PRIMARY KEY ((id), c));" +
		"CREATE TABLE cnt (id int PRIMARY KEY, hits counter);"
	if err := model.ApplyFile("ddl.cql", []byte(ddl)); err != nil {
		t.Fatal(fmt.Errorf("dml test schema: %w", err))
	}
	return model
}
