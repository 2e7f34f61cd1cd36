package cql

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestParseGolden(t *testing.T) {
	for _, in := range inputs(t, "parse/*.cql") {
		t.Run(in, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			stmts, err := ParseFile(in, src)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, s := range stmts {
				fmt.Fprintf(&b, "== %d %s\n%s", i+1, s.Info().Text, dump(s))
			}
			golden(t, strings.TrimSuffix(in, ".cql")+".golden", []byte(b.String()))
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"SELEC * FROM t", "f.cql:1:1: expected a statement (SELECT, INSERT, UPDATE, DELETE, BEGIN BATCH, CREATE, ALTER, DROP, USE, TRUNCATE, GRANT, REVOKE, LIST), found SELEC"},
		{"SELECT * FORM t", "f.cql:1:10: expected FROM, found FORM"},
		{"SELECT * FROM t WHERE", "f.cql:1:22: expected a column name, found end of input"},
		{"SELECT * FROM t WHERE k = ;", "f.cql:1:27: expected a value, found ';'"},
		{"SELECT * FROM t WHERE k", "f.cql:1:24: expected an operator (=, <, <=, >, >=, !=, IN, CONTAINS), found end of input"},
		{"SELECT * FROM t LIMIT 'x'", "f.cql:1:23: expected an integer or a bind marker, found string 'x'"},
		{"SELECT * FROM t extra", "f.cql:1:17: expected end of statement, found extra"},
		{"SELECT * FROM ?", "f.cql:1:15: bind variables cannot be used for a table name"},
		{"CREATE TABLE t (k int PRIMARY KEY, v frozen<int>)", "f.cql:1:38: frozen<> is only allowed on collections, tuples, and user-defined types (got int)"},
		{"CREATE TABLE t (k int PRIMARY KEY, v vector<float, 0>)", "f.cql:1:52: vectors may only have positive dimensions; given 0"},
		{"CREATE TABLE t (k int PRIMARY KEY, v list<int)", "f.cql:1:46: expected '>', found ')'"},
		{"CREATE TABLE t (select int PRIMARY KEY)", "f.cql:1:17: expected a column name, found select"},
		{"CREATE TABLE t (\"\" int PRIMARY KEY)", "f.cql:1:17: expected a column name, found the empty name \"\""},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH comment = ?", "f.cql:1:51: bind variables are not supported in DDL queries"},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH CLUSTERING ORDER BY (c)", "f.cql:1:63: expected ASC or DESC, found ')'"},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH caching = {'keys': 'ALL', 'keys': 'NONE'}", "f.cql:1:51: multiple definition for property keys"},
		{"CREATE TYPE int (a int)", "f.cql:1:13: expected a type name, found the native type int"},
		{"CREATE TYPE date (a int)", "f.cql:1:13: expected a type name, found the native type date"},
		{"CREATE TYPE enum (a int)", "f.cql:1:13: invalid (reserved) user type name enum"},
		{"CREATE TABLE t (k 'org.apache.cassandra.db.marshal.UTF8Type' PRIMARY KEY)", "f.cql:1:19: custom types ('org.apache.cassandra.db.marshal.UTF8Type') are not supported"},
		{"CREATE OR REPLACE TABLE t (k int PRIMARY KEY)", "f.cql:1:19: expected FUNCTION or AGGREGATE, found TABLE"},
		{"CREATE MATERIALIZED VIEW v AS SELECT * FROM t WHERE k IS NOT NULL PRIMARY KEY (k) WITH COMPACT STORAGE", "f.cql:1:88: COMPACT STORAGE tables are not allowed starting with version 4.0"},
		{"SELECT 1; SELECT 2;", "f.cql:1:11: expected one statement, found a second one"},
		{"", "f.cql:1:1: expected a statement, found end of input"},
		{"-- nothing", "f.cql:1:11: expected a statement, found end of input"},
		{"BEGIN BATCH SELECT * FROM t; APPLY BATCH", "f.cql:1:13: expected INSERT, UPDATE, DELETE or APPLY BATCH, found SELECT"},
		{"UPDATE t SET c = c + WHERE k = 1", "f.cql:1:22: expected a value, found WHERE"},
		{"INSERT INTO t (k) VALUES (1) USING TTL 1 AND", "f.cql:1:45: expected TTL or TIMESTAMP, found end of input"},
		{"DELETE FROM t USING TTL 1 WHERE k = 1", "f.cql:1:21: expected TIMESTAMP, found TTL"},
		{"ALTER TABLE t FROB x", "f.cql:1:15: expected ADD, DROP, RENAME, ALTER or WITH, found FROB"},
		{"SELECT * FROM t WHERE k = 'unterminated", "f.cql:1:27: unterminated string: no closing '"},
		{"SELECT * FROM t WHERE k = 1 ALLOW", "f.cql:1:34: expected FILTERING, found end of input"},
		{"SELECT * FROM t WHERE k = 1 LIMIT 1 LIMIT 2", "f.cql:1:37: expected end of statement, found LIMIT"},
		{"SELECT * FROM t WHERE k NOT IN (1)", "f.cql:1:25: expected an operator (=, <, <=, >, >=, !=, IN, CONTAINS), found NOT"},
	}
	for _, tt := range tests {
		_, err := Parse("f.cql", []byte(tt.src))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) error = %v, want *Error %q", tt.src, err, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q)\n error %q\n want  %q", tt.src, err, tt.want)
		}
	}
}

func TestParseSelectAPI(t *testing.T) {
	st, err := Parse("q.cql", []byte("SELECT * FROM ks.t WHERE a = ? AND b IN (1, 2) AND c IN ? AND (d, e) > (1, ?) LIMIT 10 ALLOW FILTERING"))
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*Select)
	if s.Table.String() != "ks.t" || !s.AllowFiltering || s.Limit.Value != "10" {
		t.Errorf("table %s, filtering %v, limit %v", s.Table, s.AllowFiltering, s.Limit.Value)
	}
	want := []struct {
		cols  string
		op    Operator
		in    int
		bound bool
	}{
		{"a", OpEq, 0, true}, {"b", OpIn, 2, false}, {"c", OpIn, -1, true}, {"d,e", OpGt, 0, true},
	}
	for i, w := range want {
		r := s.Where[i]
		var cols []string
		for _, c := range r.Columns {
			cols = append(cols, c.Name)
		}
		if strings.Join(cols, ",") != w.cols || r.Op != w.op || r.InCount() != w.in || r.Bound() != w.bound {
			t.Errorf("restriction %d = %s %s in=%d bound=%v, want %+v", i, cols, r.Op, r.InCount(), r.Bound(), w)
		}
	}
}

func TestParseNames(t *testing.T) {
	st, err := Parse("", []byte(`CREATE TABLE "MyKs".MyTable ("Id" int PRIMARY KEY, Value text)`))
	if err != nil {
		t.Fatal(err)
	}
	ct := st.(*CreateTable)
	got := []string{ct.Name.Keyspace.Name, ct.Name.Name.Name, ct.Columns[0].Name.Name, ct.Columns[1].Name.Name}
	want := []string{"MyKs", "mytable", "Id", "value"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("names = %v, want %v", got, want)
	}
	if ct.Name.String() != `"MyKs".mytable` {
		t.Errorf("String() = %s", ct.Name.String())
	}
}

// TestParseDeepNesting checks hostile nesting is an error, not a stack overflow.
func TestParseDeepNesting(t *testing.T) {
	for _, src := range []string{
		"SELECT " + strings.Repeat("(", 100000) + "x FROM t",
		"SELECT " + strings.Repeat("(int)", 100000) + "1 FROM t",
		"INSERT INTO t (k) VALUES (" + strings.Repeat("(int)", 100000) + "1)",
		"INSERT INTO t (k) VALUES (" + strings.Repeat("[", 100000) + "1)",
		"SELECT * FROM t WHERE " + strings.Repeat("(", 100000) + "k = 1",
		"CREATE TABLE t (k " + strings.Repeat("frozen<", 100000) + "int PRIMARY KEY)",
		"SELECT " + strings.Repeat("- ", 100000) + "1 FROM t",
		"SELECT " + strings.Repeat("f(", 100000) + "1 FROM t",
	} {
		_, err := Parse("f.cql", []byte(src))
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, "levels deep") {
			t.Errorf("Parse(%.40q...) error = %v, want a nesting error", src, err)
		}
	}
}
