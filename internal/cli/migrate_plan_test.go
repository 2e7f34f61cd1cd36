package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// plan is up's dry run: it lints the pending files against the live schema as up does, so a
// drop of a table the node holds is reported (exit 1, plan still printed) and a drop of a
// table an earlier pending file creates is not (exit 0).
func TestMigratePlanLintsAgainstLiveSchema(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, map[string]string{
		"0001_keep.cql": "CREATE TABLE IF NOT EXISTS keep (k int PRIMARY KEY, v text);\n",
	})
	if code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks); code != ExitOK {
		t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Pending: a table created and dropped within the pending files: nothing to lose.
	write("0002_scratch.cql", "CREATE TABLE IF NOT EXISTS scratch (k int PRIMARY KEY, v text);\nALTER TABLE scratch DROP v;\n")
	write("0003_drop_scratch.cql", "DROP TABLE scratch;\n")
	code, out, errOut := runEnv(t, env, "migrate", "plan", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || strings.Contains(errOut, "DS10") || !strings.Contains(out, "0003_drop_scratch.cql:1:1 (statement 1/1)") {
		t.Fatalf("plan with drops of what the pending files create: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	// A drop of a table on the node: DS102 in plan as in up, exit 1, the plan still printed.
	write("0004_drop_keep.cql", "DROP TABLE keep;\n")
	code, out, errOut = runEnv(t, env, "migrate", "plan", "--dir", dir, "--keyspace", ks)
	if code != ExitFindings || !strings.Contains(errOut, "0004_drop_keep.cql:1:1: DS102 error") ||
		!strings.Contains(errOut, "up would refuse") || strings.Count(errOut, "DS102 error") != 1 ||
		!strings.Contains(out, "-- 4 statements in 3 files") {
		t.Fatalf("plan with a drop of a live table: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	upCode, _, upErr := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if upCode != code || !strings.Contains(upErr, "0004_drop_keep.cql:1:1: DS102 error") {
		t.Fatalf("up disagrees with plan: exit %d\n%s", upCode, upErr)
	}
	// --allow-lint acts on plan as on up.
	if code, _, errOut = runEnv(t, env, "migrate", "plan", "--dir", dir, "--keyspace", ks, "--allow-lint", "DS102"); code != ExitOK {
		t.Fatalf("plan --allow-lint DS102: exit %d\n%s", code, errOut)
	}
	// Plan applied nothing.
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name IN ('keep', 'scratch')`, ks).Scan(&n); err != nil || n != 1 {
		t.Fatalf("after plan: %d of keep/scratch exist (%v), want keep alone", n, err)
	}

	// Offline, nothing exists before the run: the same drops report nothing.
	code, out, errOut = runEnv(t, map[string]string{}, "migrate", "plan", "--offline", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || strings.Contains(errOut, "DS10") || !strings.Contains(out, "-- offline plan") {
		t.Fatalf("offline plan: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// Offline plan runs the model check validate runs: a statement 5.0 refuses is exit 2 at its
// file:line:col with nothing on stdout.
func TestMigratePlanOfflineModelCheck(t *testing.T) {
	dir := migDir(t, map[string]string{
		"0001_t.cql": "CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY);\n",
		"0002_u.cql": "ALTER TABLE t WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': '${unit}'};\n",
	})
	code, out, errOut := runEnv(t, map[string]string{}, "migrate", "plan", "--offline", "--dir", dir, "--keyspace", "app")
	if code != ExitBadInput || out != "" || !strings.Contains(errOut, "0002_u.cql:1:") || !strings.Contains(errOut, "compaction_window_unit") {
		t.Fatalf("offline plan of a refused statement: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// Up to the good file, it plans.
	if code, out, errOut = runEnv(t, map[string]string{}, "migrate", "plan", "--offline", "--dir", dir, "--keyspace", "app", "--to", "1"); code != ExitOK {
		t.Fatalf("offline plan --to 1: exit %d\n%s%s", code, out, errOut)
	}
}

// up with --replication and a target keyspace that does not exist yet: a lint error or a
// statement the model refuses stops the run before the keyspace is created, so a refused run
// leaves nothing on the node, not even an empty keyspace.
func TestMigrateUpRefusalCreatesNoKeyspace(t *testing.T) {
	admin := cassandratest.Session(t)
	env := clusterEnv(t)
	ks := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	repl := "{'class': 'SimpleStrategy', 'replication_factor': 1}"
	for _, tc := range []struct {
		name, file string
		code       int
		want       string
	}{
		{"lint error", "CREATE TABLE IF NOT EXISTS kv (k int, c int, v text, PRIMARY KEY (k, c)) WITH COMPACT STORAGE;\n", ExitFindings, "CS101 error"},
		{"model refusal", "CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY) WITH compaction = {'class': 'LeveledCompactionStrategy', 'foo': 'bar'};\n", ExitBadInput, "foo"},
	} {
		dir := migDir(t, map[string]string{"0001_a.cql": "CREATE TABLE IF NOT EXISTS ok (k int PRIMARY KEY);\n", "0002_b.cql": tc.file})
		code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks, "--replication", repl)
		if code != tc.code || !strings.Contains(errOut, "0002_b.cql:1:") || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "nothing was applied") {
			t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", tc.name, code, tc.code, out, errOut)
		}
		var n int
		if err := admin.Query(`SELECT count(*) FROM system_schema.keyspaces WHERE keyspace_name = ?`, ks).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s: keyspace %s exists after a refused run (%v)", tc.name, ks, err)
		}
	}
	// Without the bad file the same run creates the keyspace and applies.
	dir := migDir(t, map[string]string{"0001_a.cql": "CREATE TABLE IF NOT EXISTS ok (k int PRIMARY KEY);\n"})
	if code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks, "--replication", repl); code != ExitOK {
		t.Fatalf("good run: exit %d\n%s%s", code, out, errOut)
	}
}
