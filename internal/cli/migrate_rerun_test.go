package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// A history interrupted partway and run again: the first up stops in its second file at a
// statement the node refuses (an index on a column the table lacks, past the model with
// --skip-model-check, as a node that went away mid-run would stop it); the error names
// the statement, what ran before it and what to do. Once the statement is fixed, the rerun
// is judged as the first run was: the third file drops a table and a column the stopped
// run created, and no DS lint fires (before, the rerun stopped at exit 1 on DS102 and
// DS103). A table a finished run created is data: its drop still reports.
func TestMigrateRerunAfterInterruptedHistory(t *testing.T) {
	_, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, map[string]string{
		"0001_keep.cql": "CREATE TABLE keep (id int PRIMARY KEY, x text);\n",
		"0002_work.cql": "CREATE TABLE scratch (id int PRIMARY KEY, c text);\nALTER TABLE keep ADD y text;\nCREATE INDEX ON scratch (nosuch);\nCREATE TABLE after (id int PRIMARY KEY);\n",
		"0003_tidy.cql": "DROP TABLE scratch;\nALTER TABLE keep DROP y;\n",
	})
	// A finished run releases 0001: keep may hold data from here on.
	if code, out, errOut := runEnv(t, env, "migrate", "up", "--timeout", "2m", "--dir", dir, "-k", ks, "--to", "1"); code != ExitOK {
		t.Fatalf("up --to 1: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runEnv(t, env, "migrate", "up", "--timeout", "2m", "--dir", dir, "-k", ks, "--skip-model-check")
	work := filepath.Join(dir, "0002_work.cql")
	for _, want := range []string{
		work + ":3:1: statement 3 of 4 failed (2 applied, recorded; the next run continues from statement 3)",
		"the statement (3:1): CREATE INDEX ON scratch (nosuch)",
		"applied before it: statements 1-2 (the last at 2:1); the next run skips them",
		"to do: the node refused it, so it did not run and will fail again as written: fix statement 3 in " + work + ", then run up again; it continues from statement 3",
	} {
		if code != ExitBadInput || !strings.Contains(errOut, want) {
			t.Fatalf("first up: exit %d, want %d and %q\nstdout: %s\nstderr: %s", code, ExitBadInput, want, out, errOut)
		}
	}
	// Fix the statement that failed; the two that ran stay as they were.
	if err := os.WriteFile(work, []byte("CREATE TABLE scratch (id int PRIMARY KEY, c text);\nALTER TABLE keep ADD y text;\nCREATE INDEX ON scratch (c);\nCREATE TABLE after (id int PRIMARY KEY);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// plan judges the rerun as up does.
	if code, out, errOut := runEnv(t, env, "migrate", "plan", "--dir", dir, "-k", ks); code != ExitOK || strings.Contains(errOut, "DS10") {
		t.Fatalf("plan of the rerun: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = runEnv(t, env, "migrate", "up", "--timeout", "2m", "--dir", dir, "-k", ks)
	if code != ExitOK || strings.Contains(errOut, "DS10") || !strings.Contains(out, "now at version 3") {
		t.Fatalf("rerun: exit %d, want 0 with no DS lint\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	admin := cassandratest.Session(t)
	if n := countRows(t, admin, `SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'scratch'`, ks); n != 0 {
		t.Errorf("scratch still exists after the rerun")
	}
	// keep was released by a finished run: dropping it, or its column x, reports.
	if err := os.WriteFile(filepath.Join(dir, "0004_drop.cql"), []byte("ALTER TABLE keep DROP x;\nDROP TABLE keep;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runEnv(t, env, "migrate", "up", "--timeout", "2m", "--dir", dir, "-k", ks)
	if code != ExitFindings || !strings.Contains(errOut, "0004_drop.cql:1:23: DS103") || !strings.Contains(errOut, "0004_drop.cql:2:1: DS102") {
		t.Fatalf("drop of a released table: exit %d, want %d with DS103 and DS102\nstdout: %s\nstderr: %s", code, ExitFindings, out, errOut)
	}
}
