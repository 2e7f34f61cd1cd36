package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Empty input is bad input (exit 2) naming the path: a CI job pointed at the wrong folder
// or file must fail, not pass having checked nothing.
func TestEmptyInputIsAnError(t *testing.T) {
	empty := t.TempDir()
	subOnly := t.TempDir()
	if err := os.MkdirAll(filepath.Join(subOnly, "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(subOnly, "v1", "0001_a.cql"), []byte("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY);"), 0o644); err != nil {
		t.Fatal(err)
	}
	othersOnly := migDir(t, map[string]string{"README.md": "docs", "schema.sql": "CREATE TABLE t (k int PRIMARY KEY);"})
	files := t.TempDir()
	emptySchema := filepath.Join(files, "empty.cql")
	commentsOnly := filepath.Join(files, "queries.cql")
	schema := filepath.Join(files, "schema.cql")
	for p, src := range map[string]string{
		emptySchema:  "",
		commentsOnly: "-- name: nothing yet\n/* to do */\n",
		schema:       "CREATE TABLE app.t (k int PRIMARY KEY, v text);\n",
	} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"CASSANDRA_HOSTS": "127.0.0.1:1"} // never reached: the load fails first
	type tc struct {
		name string
		args []string
		want []string
	}
	var cases []tc
	for _, d := range []struct{ what, dir, want string }{
		{"empty folder", empty, "it is empty"},
		{"only sub-folders", subOnly, "1 sub-folder (v1/)"},
		{"only other files", othersOnly, "2 other files (README.md, schema.sql)"},
	} {
		for _, cmd := range [][]string{
			{"migrate", "validate"}, {"migrate", "plan"}, {"migrate", "up", "--keyspace", "k"},
			{"migrate", "status", "--keyspace", "k"}, {"migrate", "baseline", "1", "--keyspace", "k"},
			{"migrate", "resolve", "1", "1", "--applied", "--keyspace", "k"},
			{"migrate", "accept-checksum", "1", "--keyspace", "k"}, {"migrate", "repair", "--keyspace", "k"},
		} {
			cases = append(cases, tc{d.what + ": " + strings.Join(cmd[:2], " "), append(cmd, "--dir", d.dir), []string{"migrations folder " + d.dir, "no migration files", d.want}})
		}
	}
	cases = append(cases,
		tc{"check: empty schema", []string{"check", "--schema", emptySchema, "--queries", commentsOnly}, []string{emptySchema, "defines no table"}},
		tc{"check: empty schema folder", []string{"check", "--schema", empty, "--queries", commentsOnly}, []string{empty, "defines no table"}},
		tc{"check: no query", []string{"check", "--schema", schema, "--queries", commentsOnly, "-k", "app"}, []string{commentsOnly, "no query"}},
		tc{"estimate: empty schema", []string{"estimate", "--schema", emptySchema, "--table", "t", "--rows", "100"}, []string{emptySchema, "defines no table"}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runEnv(t, env, c.args...)
			if code != ExitBadInput {
				t.Fatalf("exit %d, want 2\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
	// new on an empty folder creates the first migration.
	if code, out, errOut := runEnv(t, nil, "migrate", "new", "init", "--dir", empty); code != ExitOK || strings.TrimSpace(out) != filepath.Join(empty, "0001_init.cql") {
		t.Errorf("new on an empty folder: exit %d %q %q", code, out, errOut)
	}
}

// A golang-migrate folder is read as migrate reads it: the .up.cql files run, the
// .down.cql ones are left out and said so; a folder mixing layouts is refused.
func TestMigrateGolangMigrateLayout(t *testing.T) {
	dir := migDir(t, map[string]string{
		"1_users.up.cql":     "CREATE TABLE IF NOT EXISTS users (id uuid PRIMARY KEY, name text);\n",
		"1_users.down.cql":   "DROP TABLE users;\n",
		"2_add_bio.up.cql":   "ALTER TABLE users ADD bio text;\n",
		"2_add_bio.down.cql": "ALTER TABLE users DROP bio;\n",
	})
	code, out, errOut := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app")
	if code != ExitOK || !strings.Contains(out, "validated 2 files, 2 statements") || !strings.Contains(errOut, "ignoring 2 .down.cql files: cqlsize does not run down migrations") {
		t.Fatalf("validate: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// check reads the same folder the same way: the .down.cql files would drop the table.
	queries := filepath.Join(t.TempDir(), "q.cql")
	if err := os.WriteFile(queries, []byte("-- name: by_id\nSELECT bio FROM users WHERE id = ?;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runEnv(t, nil, "check", "--schema", dir, "--queries", queries, "--keyspace", "app"); code != ExitOK {
		t.Fatalf("check on a golang-migrate folder: exit %d\n%s%s", code, out, errOut)
	}
	// new keeps the folder in one layout.
	code, out, _ = runEnv(t, nil, "migrate", "new", "add_tags", "--dir", dir)
	if code != ExitOK || !strings.HasSuffix(strings.TrimSpace(out), "0003_add_tags.up.cql") {
		t.Fatalf("new in a golang-migrate folder: exit %d %q", code, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "0004_plain.cql"), []byte("ALTER TABLE users ADD x int;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app")
	if code != ExitBadInput || !strings.Contains(errOut, "two layouts") || !strings.Contains(errOut, "0004_plain.cql") {
		t.Fatalf("mixed layouts: exit %d %s", code, errOut)
	}
}

// A keyspace used but never created: the message names the fix.
func TestKeyspaceNeverCreatedHint(t *testing.T) {
	files := t.TempDir()
	schema := filepath.Join(files, "schema.cql")
	queries := filepath.Join(files, "q.cql")
	// The unqualified table is what makes -k needed: a history that qualifies every name
	// reads without it (TestQualifiedHistoryNeedsNoKeyspaceFlag).
	if err := os.WriteFile(schema, []byte("CREATE TABLE akka.messages (persistence_id text, partition_nr bigint, sequence_nr bigint, PRIMARY KEY ((persistence_id, partition_nr), sequence_nr));\nCREATE TABLE snapshots (persistence_id text PRIMARY KEY);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(queries, []byte("-- name: q\nSELECT * FROM akka.messages WHERE persistence_id = ? AND partition_nr = ?;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := migDir(t, map[string]string{"0001_m.cql": "CREATE TABLE IF NOT EXISTS akka.messages (persistence_id text PRIMARY KEY);\n", "0002_s.cql": "CREATE TABLE snapshots (persistence_id text PRIMARY KEY);\n"})
	for _, args := range [][]string{
		{"check", "--schema", schema, "--queries", queries},
		{"estimate", "--schema", schema, "--table", "akka.messages", "--rows", "100"},
		{"migrate", "validate", "--dir", dir},
	} {
		code, out, errOut := runEnv(t, nil, args...)
		if code != ExitBadInput || !strings.Contains(errOut, ":1:") || !strings.Contains(errOut, "-k/--keyspace akka") || !strings.Contains(errOut, "CREATE KEYSPACE akka") {
			t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s", args[0], code, out, errOut)
		}
	}
	// With the keyspace given, the same files load.
	if code, out, errOut := runEnv(t, nil, "check", "--schema", schema, "--queries", queries, "-k", "akka"); code == ExitBadInput {
		t.Errorf("check -k akka: exit %d %s %s", code, out, errOut)
	}
}
