package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/nodesettings"
)

// A public-style history on a node with masking and SASI at their 5.0 defaults (off, as on
// the development node): up, plan and validate refuse it before anything runs, naming
// both settings and both statements, and the keyspace its first file creates is not
// created. The node's own refusal of each statement is checked first, so the test does not
// take the node's behaviour from the code it tests.
func TestMigrateRefusesWhatTheNodeSettingsRefuse(t *testing.T) {
	admin := cassandratest.Session(t)
	scratch, sks := cassandratest.Keyspace(t)
	for _, stmt := range []string{
		"CREATE TABLE %s.users (id uuid PRIMARY KEY, email text MASKED WITH mask_default())",
		"CREATE TABLE %s.plain (id uuid PRIMARY KEY, email text)",
		"CREATE CUSTOM INDEX ON %s.plain (email) USING 'org.apache.cassandra.index.sasi.SASIIndex'",
	} {
		err := scratch.Query(fmt.Sprintf(stmt, sks)).Exec()
		if strings.Contains(stmt, "MASKED") || strings.Contains(stmt, "SASI") {
			if err == nil {
				t.Fatalf("the test node accepts %q: it has masking or SASI on; this test needs them off (the 5.0 default)", stmt)
			}
		} else if err != nil {
			t.Fatal(err)
		}
	}

	ks := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	dir := migDir(t, map[string]string{
		"V1__keyspace.cql": "CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n",
		"V2__users.cql":    "CREATE TABLE IF NOT EXISTS users (\n  id uuid PRIMARY KEY,\n  email text MASKED WITH mask_default()\n);\n",
		"V3__search.cql":   "CREATE TABLE IF NOT EXISTS posts (id uuid PRIMARY KEY, title text);\n-- search by title\nCREATE CUSTOM INDEX IF NOT EXISTS posts_title ON posts (title) USING 'org.apache.cassandra.index.sasi.SASIIndex';\n",
	})
	env := clusterEnv(t)
	for _, cmd := range []string{"up", "plan", "validate"} {
		code, out, errOut := runEnv(t, env, "migrate", cmd, "--dir", dir, "--keyspace", ks)
		for _, want := range []string{"V2__users.cql:3:3", "dynamic_data_masking_enabled = false", "V3__search.cql:3:1", "sasi_indexes_enabled = false", "nothing was applied"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("migrate %s: stderr lacks %q", cmd, want)
			}
		}
		if code != ExitBadInput {
			t.Errorf("migrate %s: exit %d, want 2\nstdout: %s\nstderr: %s", cmd, code, out, errOut)
		}
	}
	var name string
	err := admin.Query("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).Scan(&name)
	if err != gocql.ErrNotFound {
		t.Errorf("keyspace %s after the refused runs: %q, %v; want it not created", ks, name, err)
	}
}

// settingsRefusalErr lists every refusal, in order, as one exit-2 error.
func TestSettingsRefusalErr(t *testing.T) {
	if settingsRefusalErr(nil) != nil {
		t.Fatal("no refusal is no error")
	}
	err := settingsRefusalErr([]nodesettings.Refusal{{Setting: "a_enabled", Value: "false", Why: "first"}, {Setting: "b", Value: "3", Why: "second"}})
	if exitCode(err) != ExitBadInput || strings.Index(err.Error(), "first") > strings.Index(err.Error(), "second") || !strings.Contains(err.Error(), "b = 3") {
		t.Errorf("exit %d: %v", exitCode(err), err)
	}
}
