package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// treeDir writes files (paths with sub-folders) into a fresh folder.
func treeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func tableCount(t *testing.T, s *gocql.Session, ks string, names ...string) int {
	t.Helper()
	n := 0
	for _, name := range names {
		var c int
		if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, ks, name).Scan(&c); err != nil {
			t.Fatal(err)
		}
		n += c
	}
	return n
}

var flywayFiles = map[string]string{
	"V1__users.cql":  "CREATE TABLE IF NOT EXISTS users (id uuid PRIMARY KEY, name text);\n",
	"V1.1__bio.cql":  "ALTER TABLE users ADD bio text;\n",
	"V1.2__city.cql": "ALTER TABLE users ADD city text;\n",
}

// A Flyway history with dotted versions applies in Flyway's order and shows its versions
// as written; a file slipped in before an applied one is refused, nothing applied.
func TestMigrateFlywayLayoutOnCluster(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, flywayFiles)
	code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "applied 3 migrations to keyspace "+ks) || !strings.Contains(out, "now at version 1.2") {
		t.Fatalf("up: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, _ = runEnv(t, env, "migrate", "status", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "1.1 ") || !strings.Contains(out, "V1.1__bio.cql") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "V1.0.5__mid.cql"), []byte("CREATE TABLE IF NOT EXISTS mid (k int PRIMARY KEY);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitBadInput || !strings.Contains(errOut, "V1.1__bio.cql was applied as version 2 and is version 3 now") {
		t.Fatalf("a file before an applied one: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if n := tableCount(t, s, ks, "mid"); n != 0 {
		t.Fatalf("the refused run created table mid")
	}
}

// Flyway's Cassandra support keeps flyway_schema_history: one partition ('flyway'), a row
// per run. baseline --from flyway records the versions its successful runs applied, after
// checking each file against Flyway's checksum; the next up runs the rest. A failed run and
// a changed file are refused.
func TestMigrateBaselineFromFlyway(t *testing.T) {
	env := clusterEnv(t)
	dir := migDir(t, flywayFiles)
	// Flyway's table as its Cassandra support creates it, and rows as it writes them; the
	// checksums were computed apart from cqlsize (Python's zlib.crc32 over each file with
	// its line endings removed, as a signed 32-bit number).
	const table = `CREATE TABLE IF NOT EXISTS flyway_schema_history (installed_rank int, version text, partition text,
		description text, type text, script text, checksum int, installed_by text, installed_on timestamp,
		execution_time int, success boolean, PRIMARY KEY ((partition), installed_rank))`
	const row = `INSERT INTO flyway_schema_history (installed_rank, version, partition, description, type, script, checksum,
		installed_by, installed_on, execution_time, success) VALUES (?, ?, 'flyway', ?, 'SQL', ?, ?, 'cassandra', toTimestamp(now()), 12, ?)`
	setup := func(s *gocql.Session, ks string, rows [][]any) {
		t.Helper()
		applyFile(t, s, ks, filepath.Join(dir, "V1__users.cql"))
		applyFile(t, s, ks, filepath.Join(dir, "V1.1__bio.cql"))
		cassandratest.DDL(t, s, ks, table)
		for _, r := range rows {
			if err := s.Query(row, r...).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, ks := cassandratest.Keyspace(t)
	setup(s, ks, [][]any{{1, "1", "users", "V1__users.cql", -1532270413, true}, {2, "1.1", "bio", "V1.1__bio.cql", -1128168086, true}})
	code, out, errOut := runEnv(t, env, "migrate", "baseline", "--from", "flyway", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "recorded 2 migrations as applied") || !strings.Contains(out, "baseline "+filepath.Join(dir, "V1.1__bio.cql")) {
		t.Fatalf("baseline --from flyway: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "applied 1 migration to keyspace "+ks) || !strings.Contains(out, "now at version 1.2") {
		t.Fatalf("up after adoption: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	for _, c := range []struct {
		name string
		rows [][]any
		want []string
	}{
		{"a failed run", [][]any{{1, "1", "users", "V1__users.cql", -1532270413, true}, {2, "1.1", "bio", "V1.1__bio.cql", -1128168086, false}},
			[]string{"Flyway's run of V1.1__bio.cql (version 1.1) failed", "flyway repair"}},
		{"a changed file", [][]any{{1, "1", "users", "V1__users.cql", -1532270413, true}, {2, "1.1", "bio", "V1.1__bio.cql", 12345, true}},
			[]string{"V1.1__bio.cql changed since Flyway applied it (checksum 12345 recorded, -1128168086 now)"}},
		{"a version with no file", [][]any{{1, "1", "users", "V1__users.cql", -1532270413, true}, {2, "1.7", "gone", "V1.7__gone.cql", 1, true}},
			[]string{"Flyway applied version 1.7 (V1.7__gone.cql), which no file in the folder has"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, ks := cassandratest.Keyspace(t)
			setup(s, ks, c.rows)
			code, out, errOut := runEnv(t, env, "migrate", "baseline", "--from", "flyway", "--dir", dir, "--keyspace", ks)
			if code != ExitBadInput {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if n := tableCount(t, s, ks, "cqlsize_migrations"); n != 0 {
				t.Errorf("a refused adoption created the bookkeeping")
			}
		})
	}
}

// gocqlx's folder runs in file-name order when asked for; its -- CALL lines cannot run
// from the CLI: refused before anything runs, or skipped by name with --skip-calls.
func TestMigrateGocqlxLayoutOnCluster(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, map[string]string{
		"001-init.cql": "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\n",
		"v2.0.0.cql":   "CREATE TABLE IF NOT EXISTS b (k int PRIMARY KEY);\n-- CALL fill_b;\nCREATE TABLE IF NOT EXISTS c (k int PRIMARY KEY);\n",
	})
	code, _, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitBadInput || !strings.Contains(errOut, "--layout gocqlx") {
		t.Fatalf("unversioned names without --layout: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runEnv(t, env, "migrate", "up", "--layout", "gocqlx", "--dir", dir, "--keyspace", ks)
	if code != ExitBadInput || !strings.Contains(errOut, "v2.0.0.cql:2:1: -- CALL fill_b; calls a function that is not registered: nothing was applied") ||
		!strings.Contains(errOut, "--skip-calls") {
		t.Fatalf("an unregistered call: exit %d\n%s", code, errOut)
	}
	if n := tableCount(t, s, ks, "a", "b", "c"); n != 0 {
		t.Fatalf("the refused run created %d tables", n)
	}
	code, out, errOut := runEnv(t, env, "migrate", "up", "--layout", "gocqlx", "--skip-calls", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "applied 2 migrations") || !strings.Contains(errOut, "skipped -- CALL fill_b;") {
		t.Fatalf("--skip-calls: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if n := tableCount(t, s, ks, "a", "b", "c"); n != 3 {
		t.Fatalf("%d of 3 tables", n)
	}
	if code, out, _ := runEnv(t, env, "migrate", "status", "--layout", "gocqlx", "--dir", dir, "--keyspace", ks); code != ExitOK || !strings.Contains(out, "v2.0.0 ") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	if code, _, errOut := runEnv(t, env, "migrate", "up", "--layout", "liquibase", "--dir", dir, "--keyspace", ks); code != ExitBadInput || !strings.Contains(errOut, `--layout "liquibase": unknown migration layout`) {
		t.Fatalf("--layout liquibase: exit %d %s", code, errOut)
	}
}

// Version folders with a manifest.json apply in version order, each listed file in turn.
func TestMigrateManifestLayoutOnCluster(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := treeDir(t, map[string]string{
		"v0.1/manifest.json":  `{"CurrVersion": "0.1", "MinCompatibleVersion": "0.1", "Description": "base", "SchemaUpdateCqlFiles": ["base.cql"]}`,
		"v0.1/base.cql":       "CREATE TABLE IF NOT EXISTS events (id uuid PRIMARY KEY, at timestamp);\n",
		"v0.2/manifest.json":  `{"CurrVersion": "0.2", "Description": "kinds", "SchemaUpdateCqlFiles": ["kind.cql", "by_kind.cql"]}`,
		"v0.2/kind.cql":       "ALTER TABLE events ADD kind text;\n",
		"v0.2/by_kind.cql":    "CREATE TABLE IF NOT EXISTS events_by_kind (kind text, at timestamp, id uuid, PRIMARY KEY (kind, at, id));\n",
		"v0.10/manifest.json": `{"CurrVersion": "0.10", "Description": "ten", "SchemaUpdateCqlFiles": ["ten.cql"]}`,
		"v0.10/ten.cql":       "ALTER TABLE events ADD source text;\n",
	})
	code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "applied 4 migrations to keyspace "+ks) || !strings.Contains(out, "now at version 0.10") {
		t.Fatalf("up: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.columns WHERE keyspace_name = ? AND table_name = 'events'`, ks).Scan(&n); err != nil || n != 4 {
		t.Fatalf("events has %d columns (%v), want 4", n, err)
	}
}
