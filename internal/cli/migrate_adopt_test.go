package cli

import (
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

// applyFile runs a migration file's statements directly in keyspace ks, as the other tool
// would have.
func applyFile(t *testing.T, s *gocql.Session, ks, path string) {
	t.Helper()
	m, err := migrations.Parse(path, mustRead(t, path))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range m.Statements {
		cassandratest.DDL(t, s, ks, st.Text)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golang-migrate's Cassandra driver keeps one row, the last version applied, in
// schema_migrations (version bigint PRIMARY KEY, dirty boolean). baseline --from records
// every file up to it; the next up runs the rest. A dirty version is refused.
func TestMigrateBaselineFromGolangMigrate(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, map[string]string{
		"1_users.up.cql":     "CREATE TABLE IF NOT EXISTS users (id uuid PRIMARY KEY, name text);\n",
		"1_users.down.cql":   "DROP TABLE users;\n",
		"2_bio.up.cql":       "ALTER TABLE users ADD bio text;\n",
		"2_bio.down.cql":     "ALTER TABLE users DROP bio;\n",
		"3_by_name.up.cql":   "CREATE TABLE IF NOT EXISTS users_by_name (name text, id uuid, PRIMARY KEY (name, id));\n",
		"3_by_name.down.cql": "DROP TABLE users_by_name;\n",
	})
	// What golang-migrate left: files 1 and 2 applied, its table at version 2.
	applyFile(t, s, ks, filepath.Join(dir, "1_users.up.cql"))
	applyFile(t, s, ks, filepath.Join(dir, "2_bio.up.cql"))
	cassandratest.DDL(t, s, ks,
		"CREATE TABLE IF NOT EXISTS schema_migrations (version bigint, dirty boolean, PRIMARY KEY(version))",
		"INSERT INTO schema_migrations (version, dirty) VALUES (2, false)",
	)
	code, out, errOut := runEnv(t, env, "migrate", "baseline", "--from", "golang-migrate", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "baseline "+filepath.Join(dir, "2_bio.up.cql")) || !strings.Contains(out, "recorded 2 migrations as applied") ||
		!strings.Contains(errOut, "ignoring 3 .down.cql files: cqlsize does not run down migrations") {
		t.Fatalf("baseline --from golang-migrate: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "applied 1 migration to keyspace "+ks) || !strings.Contains(out, "now at version 3") {
		t.Fatalf("up after adoption: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, _ = runEnv(t, env, "migrate", "status", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "1 applied, 2 baseline") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}

	// A dirty version: golang-migrate's run of it failed partway. Refused, saying what to do.
	s2, ks2 := cassandratest.Keyspace(t)
	applyFile(t, s2, ks2, filepath.Join(dir, "1_users.up.cql"))
	cassandratest.DDL(t, s2, ks2,
		"CREATE TABLE IF NOT EXISTS schema_migrations (version bigint, dirty boolean, PRIMARY KEY(version))",
		"INSERT INTO schema_migrations (version, dirty) VALUES (2, true)",
	)
	code, out, errOut = runEnv(t, env, "migrate", "baseline", "--from", "golang-migrate", "--dir", dir, "--keyspace", ks2)
	if code != ExitBadInput || !strings.Contains(errOut, "version 2 is dirty") || !strings.Contains(errOut, "force 2") {
		t.Fatalf("dirty: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var n int
	if err := s2.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'cqlsize_migrations'`, ks2).Scan(&n); err != nil || n != 0 {
		t.Errorf("a refused adoption created the bookkeeping (%d tables, %v)", n, err)
	}
}

// gocqlx/migrate keeps one row per file in gocqlx_migrate (name, checksum = md5 of the
// file, done = ';'-separated pieces run). baseline --from records each complete file; a
// file gocqlx stopped partway is refused.
func TestMigrateBaselineFromGocqlx(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	files := map[string]string{
		"001_users.cql": "-- users\nCREATE TABLE IF NOT EXISTS users (id uuid PRIMARY KEY, name text);\nCREATE TABLE IF NOT EXISTS users_by_name (name text, id uuid, PRIMARY KEY (name, id));\n",
		"002_bio.cql":   "ALTER TABLE users ADD bio text;\nALTER TABLE users ADD city text;\n",
		"003_tags.cql":  "ALTER TABLE users ADD tags set<text>;\n",
	}
	dir := migDir(t, files)
	const table = "CREATE TABLE IF NOT EXISTS gocqlx_migrate (name text, checksum text, done int, start_time timestamp, end_time timestamp, PRIMARY KEY(name))"
	record := func(s *gocql.Session, name string, done int) {
		t.Helper()
		sum := md5.Sum([]byte(files[name]))
		if err := s.Query(`INSERT INTO gocqlx_migrate (name, checksum, done, start_time, end_time) VALUES (?, ?, ?, ?, ?)`,
			name, hex.EncodeToString(sum[:]), done, time.Now(), time.Now()).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	applyFile(t, s, ks, filepath.Join(dir, "001_users.cql"))
	applyFile(t, s, ks, filepath.Join(dir, "002_bio.cql"))
	cassandratest.DDL(t, s, ks, table)
	record(s, "001_users.cql", 2)
	record(s, "002_bio.cql", 2)
	code, out, errOut := runEnv(t, env, "migrate", "baseline", "--from", "gocqlx", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "recorded 2 migrations as applied") {
		t.Fatalf("baseline --from gocqlx: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "applied 1 migration to keyspace "+ks) {
		t.Fatalf("up after adoption: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	// gocqlx stopped 002_bio.cql after its first statement: refused, nothing recorded.
	s2, ks2 := cassandratest.Keyspace(t)
	applyFile(t, s2, ks2, filepath.Join(dir, "001_users.cql"))
	cassandratest.DDL(t, s2, ks2, table)
	record(s2, "001_users.cql", 2)
	record(s2, "002_bio.cql", 1)
	code, out, errOut = runEnv(t, env, "migrate", "baseline", "--from", "gocqlx", "--dir", dir, "--keyspace", ks2)
	if code != ExitBadInput || !strings.Contains(errOut, "gocqlx stopped") || !strings.Contains(errOut, "002_bio.cql after 1 of its 2") {
		t.Fatalf("partial file: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// No table: the message says the tool has not run here.
	_, ks3 := cassandratest.Keyspace(t)
	code, _, errOut = runEnv(t, env, "migrate", "baseline", "--from", "gocqlx", "--dir", dir, "--keyspace", ks3)
	if code != ExitBadInput || !strings.Contains(errOut, "no table "+ks3+".gocqlx_migrate") {
		t.Fatalf("no table: exit %d %s", code, errOut)
	}
	if code, _, errOut := runEnv(t, env, "migrate", "baseline", "--from", "flyway", "--dir", dir, "--keyspace", ks3); code != ExitBadInput || !strings.Contains(errOut, "flyway") {
		t.Errorf("--from flyway: exit %d %s", code, errOut)
	}
	if code, _, errOut := runEnv(t, env, "migrate", "baseline", "2", "--from", "gocqlx", "--dir", dir, "--keyspace", ks3); code != ExitBadInput || !strings.Contains(errOut, "not both") {
		t.Errorf("VERSION and --from: exit %d %s", code, errOut)
	}
}
