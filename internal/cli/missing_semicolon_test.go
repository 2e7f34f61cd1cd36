package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// A statement that lacks its ';' is named as such wherever a file is read: a schema file
// (estimate, check), a queries file (check) and a migration file (migrate validate), each
// exit 2 at the place the ';' belongs (the end of the statement before the one the parser
// met), not "expected end of statement, found CREATE".
func TestMissingSemicolonNamedByEveryCommand(t *testing.T) {
	dir := t.TempDir()
	// The first CREATE TABLE ends on its line 2, "    name text, PRIMARY KEY (id))", 32
	// characters: the ';' belongs at column 33.
	noSemi := "CREATE TABLE ks.users (id int,\n    name text, PRIMARY KEY (id))\nCREATE TABLE ks.orders (id int PRIMARY KEY);\n"
	good := "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE ks.users (id int PRIMARY KEY, name text);\n"
	schemaBad := writeIn(t, dir, "bad.cql", "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"+noSemi)
	schemaGood := writeIn(t, dir, "good.cql", good)
	queries := writeIn(t, dir, "queries.cql", "SELECT name FROM ks.users WHERE id = ?\nSELECT * FROM ks.users WHERE id = ?;\n")
	migs := t.TempDir()
	writeIn(t, migs, "0001_init.cql", noSemi)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"estimate, schema file", []string{"estimate", "--schema", schemaBad, "--table", "ks.users", "--rows", "10"},
			schemaBad + ":3:33: missing ';' at the end of the statement: the next statement (CREATE at 4:1) starts without one"},
		{"check, schema file", []string{"check", "--schema", schemaBad, "--queries", queries},
			schemaBad + ":3:33: missing ';' at the end of the statement: the next statement (CREATE at 4:1) starts without one"},
		{"check, queries file", []string{"check", "--schema", schemaGood, "--queries", queries},
			queries + ":1:39: missing ';' at the end of the statement: the next statement (SELECT at 2:1) starts without one"},
		{"migrate validate", []string{"migrate", "validate", "--dir", migs, "-k", "ks"},
			filepath.Join(migs, "0001_init.cql") + ":2:33: missing ';' at the end of the statement: the next statement (CREATE at 3:1) starts without one"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			if code != ExitBadInput || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want %d and %q\nstdout: %s\nstderr: %s", code, ExitBadInput, tc.want, out, errOut)
			}
			if strings.Contains(errOut, "expected end of statement") {
				t.Errorf("the parser's bare message is back:\n%s", errOut)
			}
		})
	}
}
