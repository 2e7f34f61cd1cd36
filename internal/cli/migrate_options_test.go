package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// optionsHistory is a history whose third file has a compaction sub-option Cassandra 5.0
// refuses (a template placeholder left in, as a user's history had): the node would run
// files 1 and 2, then fail on file 3.
var optionsHistory = map[string]string{
	"0001_users.cql": "CREATE TABLE IF NOT EXISTS users (id uuid PRIMARY KEY, name text);\n",
	"0002_orders.cql": "CREATE TABLE IF NOT EXISTS orders (id uuid PRIMARY KEY, user_id uuid, total decimal)\n" +
		"  WITH compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': '160'};\n",
	"0003_audit.cql": "-- audit entries expire after 30 days\n" +
		"CREATE TABLE IF NOT EXISTS audit (user_id uuid, day date, id timeuuid, what text, PRIMARY KEY ((user_id, day), id))\n" +
		"  WITH default_time_to_live = 2592000\n" +
		"  AND compaction = {'class': 'TimeWindowCompactionStrategy',\n" +
		"                    'compaction_window_unit': '${compaction_window_unit}'};\n",
}

// The bad value is on line 5 of 0003_audit.cql, column 47.
const optionsHistoryWant = "0003_audit.cql:5:47: compaction sub-option compaction_window_unit"

func TestMigrateValidateRefusesBadCompactionSubOption(t *testing.T) {
	dir := migDir(t, optionsHistory)
	code, out, errOut := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app")
	if code != ExitBadInput || !strings.Contains(errOut, filepath.Join(dir, optionsHistoryWant)) || !strings.Contains(errOut, "MINUTES, HOURS or DAYS") {
		t.Fatalf("validate: exit %d, want %d and %s\nstdout: %s\nstderr: %s", code, ExitBadInput, optionsHistoryWant, out, errOut)
	}
}

// TestMigrateUpRefusesBadCompactionSubOption is a history that a node would apply only
// halfway (the compaction sub-option is refused after earlier statements ran): up must
// refuse the set before its first statement runs, name the sub-option's file:line:col, and
// leave the keyspace as it was (checked in system_schema on the node).
func TestMigrateUpRefusesBadCompactionSubOption(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, optionsHistory)
	code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitBadInput || !strings.Contains(errOut, filepath.Join(dir, optionsHistoryWant)) || !strings.Contains(errOut, "nothing was applied") {
		t.Fatalf("up: exit %d, want %d and %s\nstdout: %s\nstderr: %s", code, ExitBadInput, optionsHistoryWant, out, errOut)
	}
	for _, table := range []string{"users", "orders", "audit"} {
		var n int
		if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, ks, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("table %s exists: the history was applied halfway", table)
		}
	}
}

// --serial takes cluster or local, and local only with the DC it means: anything else is
// refused as bad usage (exit 2) before any connection, naming the flag.
func TestMigrateSerialFlag(t *testing.T) {
	dir := migDir(t, map[string]string{"0001_t.cql": "CREATE TABLE IF NOT EXISTS t (id int PRIMARY KEY);\n"})
	env := map[string]string{"CASSANDRA_HOSTS": "127.0.0.1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--serial", "each"}, `--serial "each": want cluster`},
		{[]string{"--serial", "local"}, "--serial local takes the lock in one datacenter: name it with --local-dc"},
	} {
		args := append([]string{"migrate", "up", "--dir", dir, "--keyspace", "app"}, tc.args...)
		code, out, errOut := runEnv(t, env, args...)
		if code != ExitBadInput || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q\nstdout: %s\nstderr: %s", tc.args, code, ExitBadInput, tc.want, out, errOut)
		}
	}
}

// TestMigrateValidateRefusesASelectTheNodeRefuses: a SELECT in a history is judged as the
// node prepares it (cql/check), against the schema the files before it build: one that
// needs ALLOW FILTERING is refused, at its restriction, before up would stop at it; the
// same read by the key passes.
func TestMigrateValidateRefusesASelectTheNodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		read string
		code int
	}{
		{"SELECT * FROM users WHERE id = 1;\n", ExitOK},
		{"SELECT * FROM users WHERE name = 'x';\n", ExitBadInput},
	} {
		dir := migDir(t, map[string]string{
			"0001_users.cql": "CREATE TABLE users (id int PRIMARY KEY, name text);\n",
			"0002_read.cql":  tc.read,
		})
		code, out, errOut := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app", "--offline")
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", tc.read, code, tc.code, out, errOut)
		}
		if tc.code != ExitOK && !strings.Contains(errOut, filepath.Join(dir, "0002_read.cql:1:")) {
			t.Errorf("%s: the refusal does not name the statement: %s", tc.read, errOut)
		}
	}
}
