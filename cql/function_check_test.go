package cql_test

import (
	"strings"
	"testing"
)

// TestFunctionCalls: calls are resolved as a 5.0 node resolves them. A name that is no
// native function of the node (the cast and blob conversions included, by their type-named
// forms) and no function or aggregate of the keyspace is unknown; a user function called
// with a number of arguments no overload takes, or with a column of another kind of type,
// is refused; a native value that cannot go into its column, a cast of text to a number, a
// type hint of another kind and arithmetic the node cannot do are refused. The verdicts
// are those a 5.0.9 node gave (the wide corpus: function.cql, literals.cql, select.cql,
// masking.cql), and everything the rules do not judge passes.
func TestFunctionCalls(t *testing.T) {
	setup := "CREATE TABLE n (k int PRIMARY KEY, v int, t text, ts timestamp, tu timeuuid, b blob, big bigint, d double, age int);" +
		"CREATE FUNCTION add2 (a int, b int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return a + b;';" +
		"CREATE FUNCTION shout (s text) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java AS 'return s;';" +
		"CREATE FUNCTION two (s text) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java AS 'return s;';" +
		"CREATE FUNCTION two (s int) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java AS 'return \"\";';" +
		"CREATE FUNCTION st (s int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s;';" +
		"CREATE AGGREGATE agg (int) SFUNC st STYPE int INITCOND 0;"
	for stmt, want := range map[string]string{
		"SELECT now(), toTimestamp(now()), to_unix_timestamp(ts), uuid() FROM n WHERE k = 1": "",
		"SELECT count(v), max(v), avg(d), agg(v), writetime(t), ttl(t) FROM n WHERE k = 1":   "",
		"SELECT blobAsInt(b), intAsBlob(v), blob_as_text(b), text_as_blob(t) FROM n":         "",
		"SELECT CAST(v AS text), CAST(big AS int), cast_as_int(big), castAsText(v) FROM n":   "",
		"SELECT tojson(t), mask_inner(t, 1, 1), mask_replace(t, 'x'), mask_hash(t) FROM n":   "",
		"SELECT add2(v, v), shout(t), two(t), two(v), system.now() FROM n":                   "",
		"SELECT shout(b), add2(v, big) FROM n":                                               "", // a blob, two numbers: the node's to judge
		"SELECT nosuch(v) FROM n WHERE k = 1":                                                "Unknown function 'nosuch'",
		"SELECT system.add2(v, v) FROM n":                                                    "Unknown function 'system.add2'",
		"SELECT add2(v) FROM n":                                                              "Invalid number of arguments in call to function lit.add2: 2 required but 1 provided",
		"SELECT two(v, v) FROM n":                                                            "none of its type signatures match",
		"SELECT shout(v) FROM n":                                                             "Type error: v cannot be passed as argument 0 of function lit.shout of type text",
		"SELECT CAST(t AS int) FROM n":                                                       "Invalid call to function system.cast_as_int",
		"SELECT mask_inner(age, 1, 1) FROM n":                                                "requires an argument of type [text|varchar|ascii], but found argument age of type int",
		"SELECT mask_replace(age, 'x') FROM n":                                               "Type error: 'x' cannot be passed as argument 1 of function system.mask_replace of type int",
		"INSERT INTO n (k, tu, ts, t) VALUES (1, now(), toTimestamp(now()), shout('a'))":     "",
		"INSERT INTO n (k, v, big) VALUES (1, add2(1, 2), 10 / 2)":                           "",
		"INSERT INTO n (k, d, b) VALUES (1, 1.0 / 0, now())":                                 "", // a double, and a blob: the node's
		"INSERT INTO n (k, t) VALUES (1, nosuch())":                                          "Unknown function nosuch called",
		"INSERT INTO n (k, t) VALUES (1, now())":                                             "Type error: cannot assign result of function system.now (type timeuuid) to t (type text)",
		"INSERT INTO n (k, t) VALUES (1, (int) 5)":                                           "Cannot assign value (int)5 to t of type text",
		"INSERT INTO n (k, t) VALUES (1, (text) 'a')":                                        "",
		"INSERT INTO n (k, t) VALUES (1, 'a' + 1)":                                           "the '+' operation is not supported between 'a' and 1",
		"INSERT INTO n (k, big) VALUES (1, 1 / 0)":                                           "the operation 'bigint / bigint' failed: / by zero",
		"UPDATE n SET v = 7 % 0 WHERE k = 1":                                                 "the operation 'int % int' failed: % by zero",
	} {
		model := newOptionsModel(t, "lit")
		if err := model.ApplyFile("f.cql", []byte(setup)); err != nil {
			t.Fatal(err)
		}
		err := model.ApplyFile("s.cql", []byte(stmt+";"))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused (%v), the node applies it", stmt, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want a refusal with %q", stmt, err, want)
		}
	}
}
