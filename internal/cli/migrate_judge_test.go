package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// judgeHistory is a history whose second file reads the table by a column that is not in
// its key, without ALLOW FILTERING: the node refuses that SELECT when it prepares it, so a
// run of up would stop there with the first file applied.
var judgeHistory = map[string]string{
	"0001_users.cql": "CREATE TABLE users (id int PRIMARY KEY, name text);\n",
	"0002_read.cql":  "INSERT INTO users (id, name) VALUES (1, 'a');\nSELECT * FROM users WHERE name = 'a';\n",
}

// refusalLine is the line of stderr that names the refused statement, by its position.
func refusalLine(stderr, at string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, at) {
			return l
		}
	}
	return ""
}

// TestMigrateValidatePlanUpJudgeAlike: validate, plan and up refuse the same history with
// the same exit status and the same refusal, naming the same statement (the SELECT at
// 0002_read.cql line 2). Before, only validate judged a SELECT as the node prepares it:
// plan printed the history and up applied its first file, then stopped at the SELECT.
func TestMigrateValidatePlanUpJudgeAlike(t *testing.T) {
	dir := migDir(t, judgeHistory)
	at := filepath.Join(dir, "0002_read.cql") + ":2:"
	want := ""
	judge := func(env map[string]string, args ...string) {
		t.Helper()
		code, out, errOut := runEnv(t, env, append(args, "--dir", dir)...)
		line := refusalLine(errOut, at)
		if code != ExitBadInput || line == "" || !strings.Contains(line, "ALLOW FILTERING") {
			t.Fatalf("%v: exit %d, want %d and a refusal at %s naming ALLOW FILTERING\nstdout: %s\nstderr: %s", args, code, ExitBadInput, at, out, errOut)
		}
		if want == "" {
			want = line
		} else if line != want {
			t.Errorf("%v refuses with\n\t%s\nvalidate with\n\t%s", args, line, want)
		}
	}
	judge(nil, "migrate", "validate", "--keyspace", "app", "--offline")
	judge(nil, "migrate", "plan", "--keyspace", "app", "--offline")
	if testing.Short() {
		return
	}
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	judge(env, "migrate", "validate", "--keyspace", ks)
	judge(env, "migrate", "plan", "--keyspace", ks)
	judge(env, "migrate", "up", "--timeout", "2m", "--keyspace", ks)
	// up refused before it ran anything: the first file's table is not on the node.
	if n := countRows(t, s, `SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'users'`, ks); n != 0 {
		t.Errorf("up created users before refusing the history")
	}
}
