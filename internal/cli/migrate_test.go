package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/nodecontainer"
)

// runEnv runs cqlsize in-process with exactly the given environment.
func runEnv(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = DoContext(context.Background(), args, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	return code, out.String(), errb.String()
}

func migDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var goodSet = map[string]string{
	"0001_users.cql": "CREATE TABLE IF NOT EXISTS users (id uuid PRIMARY KEY, name text);\n",
	"0002_posts.cql": "-- posts by user and month\nCREATE TABLE IF NOT EXISTS posts (user_id uuid, month text, id timeuuid, body text, PRIMARY KEY ((user_id, month), id));\n" +
		"INSERT INTO users (id, name) VALUES (5b6962dd-3f90-4c93-8f61-eabfa4a803e2, 'semi;colon');\n",
}

func TestMigrateOfflineValidateAndPlan(t *testing.T) {
	dir := migDir(t, goodSet)
	none := map[string]string{}
	code, out, errOut := runEnv(t, none, "migrate", "validate", "--dir", dir, "--keyspace", "app")
	if code != ExitOK || !strings.Contains(out, "validated 2 files, 3 statements (offline") {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runEnv(t, none, "migrate", "plan", "--dir", dir)
	for _, want := range []string{"-- offline plan", filepath.Join(dir, "0002_posts.cql") + ":3:1 (statement 2/2)", "'semi;colon');", "-- 3 statements in 2 files"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("plan: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	code, out, _ = runEnv(t, none, "migrate", "plan", "--dir", dir, "--to", "1")
	if code != ExitOK || strings.Contains(out, "posts") {
		t.Errorf("plan --to 1 includes version 2: %s", out)
	}
	code, _, errOut = runEnv(t, none, "migrate", "plan", "--dir", dir, "--to", "7")
	if code != ExitBadInput || !strings.Contains(errOut, "7") {
		t.Errorf("plan --to 7: exit %d %s", code, errOut)
	}
}

func TestMigrateValidateFindings(t *testing.T) {
	dir := migDir(t, map[string]string{
		"0001_a.cql": "CREATE TABLE IF NOT EXISTS events (k uuid, day date, at timestamp, v text, PRIMARY KEY ((k, day), at));\n",
		"0002_b.cql": "DROP TABLE events;\n",
		"0003_c.cql": "CREATE TABLE IF NOT EXISTS notes (k int PRIMARY KEY, v text);\nSELECT * FROM notes WHERE v = 'x' ALLOW FILTERING;\n",
	})
	// Offline, nothing exists before the first file: dropping a table an earlier file of
	// the same set created loses nothing, so DS102 stays quiet; AF101 still reports.
	code, out, _ := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app")
	if code != ExitFindings || !strings.Contains(out, "0003_c.cql:2:1: AF101 error") || strings.Contains(out, "DS102") {
		t.Fatalf("validate: exit %d\n%s", code, out)
	}
	code, out, _ = runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app", "--format", "json", "--allow-lint", "AF101")
	var rep validateJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if code != ExitOK || rep.Files != 3 || rep.Lint.Errors != 0 || rep.Lint.Silenced != 1 || rep.Lint.Diagnostics[0].Line != 2 {
		t.Fatalf("json with allowed codes: exit %d %+v", code, rep)
	}
	code, out, _ = runEnv(t, nil, "migrate", "validate", "--list-lints")
	for _, c := range []string{"DS101", "DS102", "DS103", "DS104", "DS105", "BK101", "TT101", "AF101", "IX101", "MV101", "CS101", "IF101"} {
		if code != ExitOK || !strings.Contains(out, "| "+c+" |") {
			t.Errorf("--list-lints lacks %s", c)
		}
	}
}

func TestMigrateBadInput(t *testing.T) {
	good := migDir(t, goodSet)
	broken := migDir(t, map[string]string{"0001_ok.cql": "CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY);\n", "0002_bad.cql": "CREATE TABLE x (k int PRIMARY KEY);\nSELEC * FROM x;\n"})
	badName := migDir(t, map[string]string{"create_users.cql": "SELECT * FROM t;"})
	dup := migDir(t, map[string]string{"0001_a.cql": "", "1_b.cql": ""})
	use := migDir(t, map[string]string{"0001_use.cql": "USE other;\n"})
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want []string
	}{
		{"no subcommand", nil, []string{"migrate"}, []string{"needs a subcommand"}},
		{"parse error", nil, []string{"migrate", "validate", "--dir", broken}, []string{filepath.Join(broken, "0002_bad.cql") + ":2:1"}},
		{"up parses before connecting", map[string]string{"CASSANDRA_HOSTS": "127.0.0.1:1"}, []string{"migrate", "up", "--dir", broken, "--keyspace", "k"}, []string{"0002_bad.cql:2:1"}},
		{"file name", nil, []string{"migrate", "validate", "--dir", badName}, []string{"create_users.cql", "version number"}},
		{"duplicate versions", nil, []string{"migrate", "validate", "--dir", dup}, []string{"0001_a.cql", "1_b.cql", "same version"}},
		{"USE of a keyspace nothing creates", nil, []string{"migrate", "validate", "--dir", use, "-k", "app"}, []string{"0001_use.cql:1:5", "keyspace other does not exist"}},
		{"missing folder", nil, []string{"migrate", "validate", "--dir", filepath.Join(good, "nope")}, []string{"nope"}},
		{"no hosts", nil, []string{"migrate", "up", "--dir", good, "--keyspace", "k"}, []string{"no Cassandra hosts", "CASSANDRA_HOSTS"}},
		{"no keyspace", map[string]string{"CASSANDRA_HOSTS": "127.0.0.1"}, []string{"migrate", "status", "--dir", good}, []string{"--keyspace"}},
		{"lock ttl", map[string]string{"CASSANDRA_HOSTS": "127.0.0.1"}, []string{"migrate", "up", "--dir", good, "--keyspace", "k", "--lock-ttl", "1s"}, []string{"lock TTL 1s"}},
		{"bad keyspace name", map[string]string{"CASSANDRA_HOSTS": "127.0.0.1"}, []string{"migrate", "up", "--dir", good, "--keyspace", "no-dash"}, []string{`"no-dash"`}},
		{"unknown lint", nil, []string{"migrate", "up", "--dir", good, "--keyspace", "k", "--allow-lint", "ZZ999"}, []string{"ZZ999"}},
		{"bad consistency", map[string]string{"CASSANDRA_HOSTS": "127.0.0.1"}, []string{"migrate", "status", "--dir", good, "--keyspace", "k", "--consistency", "MOST"}, []string{"MOST"}},
		{"bad version", nil, []string{"migrate", "baseline", "x1", "--dir", good}, []string{`"x1"`}},
		{"keep without container", nil, []string{"migrate", "up", "--keep", "--dir", good, "--keyspace", "k"}, []string{"--keep goes with --container"}},
		{"bad replication", map[string]string{"CASSANDRA_HOSTS": "127.0.0.1"}, []string{"migrate", "up", "--dir", good, "--keyspace", "k", "--replication", "3"}, []string{"replication"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runEnv(t, tc.env, tc.args...)
			if code != ExitBadInput {
				t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

func TestMigrateUnreachableNamesHostsAndHidesPassword(t *testing.T) {
	dir := migDir(t, goodSet)
	env := map[string]string{"CASSANDRA_HOSTS": "127.0.0.1:1", "CASSANDRA_USERNAME": "app", "CASSANDRA_PASSWORD": "s3cret-pw"}
	code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", "k", "--connect-timeout", "2s")
	if code != ExitRetry || !strings.Contains(errOut, "127.0.0.1:1") || !strings.Contains(errOut, "CASSANDRA_HOSTS") {
		t.Fatalf("exit %d, stderr %q: want 3 (safe to retry) naming the host and where it came from", code, errOut)
	}
	if strings.Contains(out+errOut, "s3cret-pw") {
		t.Fatal("the password was printed")
	}
}

func TestMigrateContainerWithoutDocker(t *testing.T) {
	if nodecontainer.EngineAnswers(context.Background()) {
		t.Skip("a Docker engine answers here; this checks the message when none does")
	}
	dir := migDir(t, goodSet)
	code, _, errOut := runEnv(t, nil, "migrate", "up", "--dir", dir, "--keyspace", "k", "--container", "cassandra:5.0")
	if code != ExitBadInput || !strings.Contains(errOut, "Docker") || !strings.Contains(errOut, "CASSANDRA_HOSTS") || !strings.Contains(errOut, "make cassandra-up") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestMigrateNew(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db", "migrations")
	code, out, errOut := runEnv(t, nil, "migrate", "new", "Create users!", "--dir", dir)
	if code != ExitOK || strings.TrimSpace(out) != filepath.Join(dir, "0001_create_users.cql") {
		t.Fatalf("new: exit %d %q %q", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "00010_later.cql"), []byte("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY);"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runEnv(t, nil, "migrate", "new", "add_tags", "--dir", dir)
	if code != ExitOK || strings.TrimSpace(out) != filepath.Join(dir, "00011_add_tags.cql") {
		t.Fatalf("second new: exit %d %q", code, out)
	}
	src, _ := os.ReadFile(strings.TrimSpace(out))
	if !strings.HasPrefix(string(src), "-- add_tags\n") {
		t.Errorf("template: %q", src)
	}
	if code, _, errOut := runEnv(t, nil, "migrate", "new", "!!!", "--dir", dir); code != ExitBadInput || !strings.Contains(errOut, "!!!") {
		t.Errorf("new !!!: exit %d %q", code, errOut)
	}
	// The created files are templates (comments only): validate, plan and up refuse them,
	// each named, until they are filled in (applied, one would be recorded as done).
	code, out, errOut = runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app")
	if code != ExitBadInput || out != "" || !strings.Contains(errOut, "0001_create_users.cql has no statement: it is the `migrate new` template, unfilled: fill it in or delete it") ||
		!strings.Contains(errOut, "00011_add_tags.cql has no statement") {
		t.Errorf("validate after new: exit %d %s %s", code, out, errOut)
	}
	for _, name := range []string{"0001_create_users.cql", "00011_add_tags.cql"} {
		p := filepath.Join(dir, name)
		src, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(src, "CREATE TABLE IF NOT EXISTS t"+name[:4]+" (k int PRIMARY KEY);\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errOut := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app"); code != ExitOK {
		t.Errorf("validate after filling in: exit %d %s %s", code, out, errOut)
	}
}

// clusterEnv is the environment of the cluster tests: the test cluster's hosts.
func clusterEnv(t *testing.T) map[string]string {
	return map[string]string{"CASSANDRA_HOSTS": strings.Join(cassandratest.Hosts(t), ",")}
}

func TestMigrateUpStatusChecksumAcceptOnCluster(t *testing.T) {
	_, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, goodSet)
	code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "applied 2 migrations to keyspace "+ks) || !strings.Contains(errOut, "0002_posts.cql (2 statements) in ") {
		t.Fatalf("up: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, _ = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "up to date, at version 2") {
		t.Fatalf("second up: exit %d %s", code, out)
	}
	code, out, _ = runEnv(t, env, "migrate", "status", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || strings.Count(out, " applied ") < 2 || !strings.Contains(out, "at version 2, 2 applied") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}

	// Edit an applied file: status flags it (exit 1), up refuses (exit 2) with both checksums.
	if err := os.WriteFile(filepath.Join(dir, "0001_users.cql"), []byte("-- reworded\n"+goodSet["0001_users.cql"]), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runEnv(t, env, "migrate", "status", "--dir", dir, "--keyspace", ks, "--format", "json")
	var rows []statusJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != ExitFindings || rows[0].State != "changed" || rows[0].Recorded == rows[0].Checksum {
		t.Fatalf("status after edit: exit %d %v %+v", code, err, rows)
	}
	code, _, errOut = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitBadInput || !strings.Contains(errOut, rows[0].Recorded) || !strings.Contains(errOut, rows[0].Checksum) || !strings.Contains(errOut, "accept-checksum 1") {
		t.Fatalf("up after edit: exit %d %s", code, errOut)
	}
	code, out, _ = runEnv(t, env, "migrate", "validate", "--dir", dir, "--keyspace", ks)
	if code != ExitFindings || !strings.Contains(out, "1 changed") {
		t.Fatalf("validate against the cluster: exit %d %s", code, out)
	}
	code, out, _ = runEnv(t, env, "migrate", "accept-checksum", "1", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "accepted checksum "+rows[0].Checksum) {
		t.Fatalf("accept-checksum: exit %d %s", code, out)
	}
	if code, out, _ = runEnv(t, env, "migrate", "status", "--dir", dir, "--keyspace", ks); code != ExitOK {
		t.Fatalf("status after accept: exit %d %s", code, out)
	}
}

func TestMigrateUpRefusesOnLintAndModel(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, map[string]string{
		"0001_t.cql":    "CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY);\n",
		"0002_drop.cql": "DROP TABLE t;\n",
	})
	// t exists on the node before the run that drops it: DS102 stops that run.
	if code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks, "--to", "1"); code != ExitOK {
		t.Fatalf("up --to 1: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitFindings || !strings.Contains(errOut, "0002_drop.cql:1:1: DS102 error") || !strings.Contains(errOut, "nothing was applied") {
		t.Fatalf("up with a lint error: exit %d\n%s%s", code, out, errOut)
	}
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 't'`, ks).Scan(&n); err != nil || n != 1 {
		t.Fatalf("table t count %d (%v): the drop ran despite the lint error", n, err)
	}
	code, out, errOut = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks, "--allow-lint", "DS102")
	if code != ExitOK || !strings.Contains(out, "applied 1 migration") {
		t.Fatalf("up --allow-lint DS102: exit %d\n%s%s", code, out, errOut)
	}

	// A statement on a table that does not exist is refused by the model of the live
	// schema before anything of the file runs.
	if err := os.WriteFile(filepath.Join(dir, "0003_alter.cql"), []byte("CREATE TABLE IF NOT EXISTS u (k int PRIMARY KEY);\nALTER TABLE nope ADD x int;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitBadInput || !strings.Contains(errOut, "0003_alter.cql:2:13") || !strings.Contains(errOut, "nothing was applied") {
		t.Fatalf("up with a missing table: exit %d %s", code, errOut)
	}
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'u'`, ks).Scan(&n); err != nil || n != 0 {
		t.Fatalf("table u exists: the file was half applied")
	}
}

func TestMigrateBaselineAndPlanOnCluster(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, goodSet)
	cassandratest.DDL(t, s, ks, strings.TrimSpace(goodSet["0001_users.cql"]))
	code, out, errOut := runEnv(t, env, "migrate", "baseline", "1", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "recorded 1 migration as applied up to version 1") {
		t.Fatalf("baseline: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runEnv(t, env, "migrate", "plan", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || strings.Contains(out, "0001_users.cql") || !strings.Contains(out, "0002_posts.cql:2:1 (statement 1/2)") {
		t.Fatalf("plan after baseline: exit %d\n%s", code, out)
	}
	code, out, _ = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "applied 1 migration to keyspace") {
		t.Fatalf("up after baseline: exit %d %s", code, out)
	}
	code, out, _ = runEnv(t, env, "migrate", "status", "--dir", dir, "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, "1 applied, 1 baseline") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
}

func TestMigrateValidateWithWorkload(t *testing.T) {
	dir := migDir(t, map[string]string{"0001_q.cql": "CREATE TABLE IF NOT EXISTS jobs (shard int, day date, at timeuuid, job text, PRIMARY KEY ((shard, day), at));\n"})
	wl := filepath.Join(t.TempDir(), "workload.yaml")
	if err := os.WriteFile(wl, []byte("version: 1\ntables:\n  jobs:\n    partitions: 16\n    write_rate: 50/s\n    bucket: day\n    deletes:\n      - kind: row\n        rate: 50/s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app")
	if code != ExitOK {
		t.Fatalf("without the workload: exit %d %s %s", code, out, errOut)
	}
	code, out, errOut = runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app", "--workload", wl)
	for _, want := range []string{"0001_q.cql:1:1: WL104 error: app.jobs", "TT101 warning"} {
		if code != ExitFindings || !strings.Contains(out, want) {
			t.Errorf("with the workload: exit %d, output lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
	code, _, errOut = runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app", "--workload", filepath.Join(dir, "nope.yaml"))
	if code != ExitBadInput || !strings.Contains(errOut, "nope.yaml") {
		t.Errorf("missing workload: exit %d %s", code, errOut)
	}
}
