package cql_test

import (
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// TestRoutineOverloads: functions and aggregates are judged by their overloads, as a 5.0
// node judges them (the node's words are in testdata/grammar/wide/function.cql's run).
func TestRoutineOverloads(t *testing.T) {
	const setup = `CREATE FUNCTION f (x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return x;';
CREATE FUNCTION f (x bigint) CALLED ON NULL INPUT RETURNS bigint LANGUAGE java AS 'return x;';
CREATE FUNCTION st (s int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s;';
CREATE FUNCTION fin (s int) CALLED ON NULL INPUT RETURNS double LANGUAGE java AS 'return 1.0;';
CREATE AGGREGATE agg (int) SFUNC st STYPE int FINALFUNC fin INITCOND 0;`
	for _, tc := range []struct{ stmt, want string }{ // want "" when the node applies it
		{"CREATE FUNCTION f (x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return 1;'", "Function 'f' already exists"},
		{"CREATE FUNCTION IF NOT EXISTS f (x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return 1;'", ""},
		{"CREATE FUNCTION f (x text) CALLED ON NULL INPUT RETURNS text LANGUAGE java AS 'return x;'", ""},
		{"CREATE OR REPLACE FUNCTION f (x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return 2;'", ""},
		{"CREATE OR REPLACE FUNCTION f (x int) CALLED ON NULL INPUT RETURNS bigint LANGUAGE java AS 'return 2L;'", "the new return type bigint is not compatible with the return type int"},
		{"CREATE OR REPLACE FUNCTION IF NOT EXISTS g (x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return x;'", "Cannot use both 'OR REPLACE' and 'IF NOT EXISTS'"},
		{"CREATE FUNCTION g (a int, a int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return a;'", "Duplicate argument names"},
		{"CREATE AGGREGATE agg2 (int) SFUNC st STYPE int", ""},
		{"CREATE AGGREGATE agg2 (int) SFUNC nosuch STYPE int", "State function app.nosuch(int, int) doesn't exist"},
		{"CREATE AGGREGATE agg2 (int) SFUNC st STYPE text", "State function app.st(text, int) doesn't exist"},
		{"CREATE AGGREGATE agg2 (int) SFUNC st STYPE int FINALFUNC nosuch", "Final function app.nosuch(int) doesn't exist"},
		{"CREATE AGGREGATE agg2 (int) SFUNC st STYPE int INITCOND 'zero'", "Invalid STRING constant (zero)"},
		{"CREATE AGGREGATE agg (int) SFUNC st STYPE int", "Aggregate 'agg' already exists"},
		{"CREATE OR REPLACE AGGREGATE agg (int) SFUNC st STYPE int INITCOND 5", ""},
		{"DROP FUNCTION f", "matches multiple function definitions"},
		{"DROP FUNCTION f (bigint)", ""},
		{"DROP FUNCTION f (text)", "function app.f(text) doesn't exist"},
		{"DROP FUNCTION IF EXISTS f (text)", ""},
		{"DROP FUNCTION st", "still referenced by an aggregate"},
		{"DROP FUNCTION fin (int)", "still referenced by an aggregate"},
		{"DROP AGGREGATE agg (int)", ""},
		{"DROP AGGREGATE agg (text)", "aggregate app.agg(text) doesn't exist"},
	} {
		judgeAfter(t, setup, tc.stmt, tc.want)
	}
}

// TestRoutineDropsOneOverload: dropping one overload leaves the other, and the name goes
// with the last one.
func TestRoutineDropsOneOverload(t *testing.T) {
	s := cql.NewSchemaIn("app")
	src := `CREATE FUNCTION f (x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return x;';
CREATE FUNCTION f (x bigint) CALLED ON NULL INPUT RETURNS bigint LANGUAGE java AS 'return x;';
DROP FUNCTION f (int);
DROP FUNCTION f;`
	if err := s.ApplyFile("m.cql", []byte(src)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Keyspaces["app"].Functions["f"]; ok {
		t.Error("f is still there after both overloads were dropped")
	}
	if err := s.ApplyFile("n.cql", []byte("DROP FUNCTION f")); err == nil {
		t.Error("a third DROP FUNCTION f passes")
	}
}
