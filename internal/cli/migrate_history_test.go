package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// historyKeyspace is the keyspace name testdata/history uses; each test renames it.
const historyKeyspace = "hist_ks"

// copyHistory copies a testdata folder with its keyspace renamed to a fresh one, which is
// dropped when t ends. The keyspace does not exist: the history creates it.
func copyHistory(t *testing.T, admin *gocql.Session, from string) (dir, ks string) {
	t.Helper()
	ks = cassandratest.KeyspaceName(t.Name())
	dir = t.TempDir()
	files, err := filepath.Glob(filepath.Join(from, "*.cql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %d files, %v", from, len(files), err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), []byte(strings.ReplaceAll(string(src), historyKeyspace, ks)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if err := admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Logf("drop %s: %v", ks, err)
		}
	})
	return dir, ks
}

func countRows(t *testing.T, s *gocql.Session, stmt string, args ...any) int {
	t.Helper()
	var n int
	if err := s.Query(stmt, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return n
}

// A full history on a fresh node with `migrate up` and no lint flags: its first file
// creates the keyspace (no --replication), later files drop tables and columns earlier
// files created, and it has TTL tables, entity-id timeuuids and count-bucketed tables.
// Nothing in it can lose data on a fresh cluster, so nothing stops it: no DS1xx fires (what
// it drops, it created), and BK101 is a warning without a workload.
func TestMigrateUpFullHistoryOnFreshNode(t *testing.T) {
	admin := cassandratest.Session(t)
	env := clusterEnv(t)
	dir, ks := copyHistory(t, admin, "testdata/history")
	code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "applied 7 migrations to keyspace "+ks) || !strings.Contains(out, "now at version 7") {
		t.Fatalf("up: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "keyspace "+ks+" does not exist and "+filepath.Join(dir, "0001_keyspace.cql")+":2:1 creates it") {
		t.Errorf("up does not say it ran the keyspace file first:\n%s", errOut)
	}
	code, out, _ = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "up to date, at version 7") {
		t.Fatalf("second up: exit %d %s", code, out)
	}
	code, out, _ = runEnv(t, env, "migrate", "status", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "7 applied") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	tables := func(name string) int {
		return countRows(t, admin, `SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, ks, name)
	}
	for name, want := range map[string]int{"import_scratch": 0, "journal": 1, "journal_tags": 1, "events_by_device": 1, "segments_by_schedule": 1, "accounts_by_email": 1, "cqlsize_migrations": 1} {
		if got := tables(name); got != want {
			t.Errorf("%s.%s: %d tables, want %d", ks, name, got, want)
		}
	}
	if n := countRows(t, admin, `SELECT count(*) FROM system_schema.columns WHERE keyspace_name = ? AND table_name = 'accounts' AND column_name = 'import_flag'`, ks); n != 0 {
		t.Errorf("accounts.import_flag still exists")
	}
	if n := countRows(t, admin, `SELECT count(*) FROM system_schema.columns WHERE keyspace_name = ? AND table_name = 'accounts_by_email' AND column_name = 'verified'`, ks); n != 1 {
		t.Errorf("accounts_by_email was not re-created with its new column")
	}
	// Statement 1 of the first file (the CREATE KEYSPACE) is recorded as done.
	var applied int
	var state string
	if err := admin.Query(`SELECT applied, state FROM `+ks+`.cqlsize_migrations WHERE target = ? AND version = 1`, ks).Scan(&applied, &state); err != nil || applied != 1 || state != "applied" {
		t.Errorf("version 1: applied %d state %q (%v)", applied, state, err)
	}
}

// A file with a compaction sub-option the node refuses (a template placeholder left in) is
// refused with file:line:col before anything runs: not even the keyspace the first file
// creates is on the node.
func TestMigrateUpBadCompactionRefusedBeforeAnything(t *testing.T) {
	admin := cassandratest.Session(t)
	env := clusterEnv(t)
	dir, ks := copyHistory(t, admin, "testdata/history")
	bad := "CREATE TABLE IF NOT EXISTS spans (trace_id blob, span_id bigint, PRIMARY KEY (trace_id, span_id));\n" +
		"CREATE TABLE IF NOT EXISTS spans_by_service (service text, day date, at timestamp, trace_id blob, PRIMARY KEY ((service, day), at))\n" +
		"  WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': '${compaction_window_unit}'};\n"
	if err := os.WriteFile(filepath.Join(dir, "0008_spans.cql"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitBadInput || !strings.Contains(errOut, filepath.Join(dir, "0008_spans.cql")+":3:") || !strings.Contains(errOut, "nothing was applied") {
		t.Fatalf("up: exit %d, want 2 naming 0008_spans.cql:3:col\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if n := countRows(t, admin, `SELECT count(*) FROM system_schema.keyspaces WHERE keyspace_name = ?`, ks); n != 0 {
		t.Fatalf("keyspace %s exists: something ran before the refusal", ks)
	}
}

// Files that qualify names with a keyspace nothing creates: up says how to get it, and
// runs nothing.
func TestMigrateUpKeyspaceNeverCreated(t *testing.T) {
	_, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	missing := "akka_" + ks[len(ks)-8:]
	dir := migDir(t, map[string]string{
		"0001_local.cql":   "CREATE TABLE IF NOT EXISTS local (k int PRIMARY KEY);\n",
		"0002_journal.cql": "CREATE TABLE IF NOT EXISTS " + missing + ".messages (persistence_id text PRIMARY KEY);\n",
	})
	code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	for _, want := range []string{"0002_journal.cql:1:", "no keyspace " + missing, "--keyspace " + missing + " --replication", "CREATE KEYSPACE " + missing, "nothing was applied"} {
		if code != ExitBadInput || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, stderr lacks %q\nstdout: %s\nstderr: %s", code, want, out, errOut)
		}
	}
}
