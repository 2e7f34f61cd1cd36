package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/evolve"
)

// evolveArgs plans the posts example's addition of posts_by_hashtag, offline.
var evolveArgs = []string{"evolve", "plan", "--from", "posts.posts_by_id",
	"--to", "../../examples/posts/testdata/evolve/posts_by_hashtag.cql",
	"--schema", "../../examples/posts/testdata/evolve/migrations", "--keep-from",
	"--workload", "../../examples/posts/workload.yaml"}

func TestEvolvePlanOffline(t *testing.T) {
	code, out, errOut := run(t, evolveArgs...)
	if code != ExitOK || errOut != "" {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"cqlsize backfill -k posts --from posts_by_id --to posts_by_hashtag --derive 'hashtag=each(hashtags)' --derive 'month=month(post_id)'\n",
		"examples/posts/testdata/evolve/migrations/0002_create_posts_by_hashtag.cql",
		"100M rows of posts_by_id, 200M rows of posts_by_hashtag",
		" 6. End the transition:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, append(evolveArgs, "--format", "json", "--copy-rate", "2000")...)
	var p evolve.Plan
	if err := json.Unmarshal([]byte(out), &p); code != ExitOK || err != nil {
		t.Fatalf("json: code %d, %v", code, err)
	}
	if len(p.Steps) != 6 || p.Backfill.Seconds != 100_000 || p.Backfill.RateFrom != "--copy-rate" || p.Sizes == nil {
		t.Errorf("json plan: %d steps, %v s, rate from %q, sizes %v", len(p.Steps), p.Backfill.Seconds, p.Backfill.RateFrom, p.Sizes)
	}
}

// Bad input is exit 2 with nothing on stdout, naming the flag or file:line:col.
func TestEvolvePlanBadInput(t *testing.T) {
	if code, _, errOut := run(t, "evolve"); code != ExitBadInput || !strings.Contains(errOut, "evolve needs a subcommand: plan") {
		t.Errorf("evolve alone: %d %q", code, errOut)
	}
	dir := t.TempDir()
	write := func(name, src string) string { return writeIn(t, dir, name, src) }
	broken := write("broken.cql", "CREATE TABLE posts_by_hashtag (\n  hashtag text,\n  month text PRIMARY KEY (hashtag)\n")
	needs := write("needs.cql", "CREATE TABLE posts_by_owner (\n  owner uuid,\n  post_id timeuuid,\n  PRIMARY KEY (owner, post_id)\n);\n")
	hashtag := "../../examples/posts/testdata/evolve/posts_by_hashtag.cql"
	schema := "../../examples/posts/testdata/evolve/migrations"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", hashtag, "--schema", schema}, "--from is required"},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag, "--schema", schema, "--keep"}, "unknown flag: --keep"},
		{[]string{"--from", "posts_by_id", "--to", hashtag, "--schema", schema}, `--from "posts_by_id": want keyspace.table`},
		{[]string{"--from", "posts.nosuch", "--to", hashtag, "--schema", schema}, "--from posts.nosuch: no such table in " + schema},
		{[]string{"--from", "posts.posts_by_id", "--schema", schema}, "--to is required"},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag}, "no schema: pass --schema"},
		{[]string{"--from", "posts.posts_by_id", "--to", filepath.Join(dir, "none.cql"), "--schema", schema}, "read --to: open "},
		{[]string{"--from", "posts.posts_by_id", "--to", broken, "--schema", schema}, broken + ":3:"},
		{[]string{"--from", "posts.posts_by_id", "--to", needs, "--schema", schema}, needs + ":2:3: owner needs a --derive: posts_by_id has no column owner"},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag, "--schema", schema, "--derive", "month=month(content)"},
			`--derive "month=month(content)": col 7: month() needs a timestamp, date or timeuuid column; content is text`},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag, "--schema", schema, "--format", "xml"}, `--format "xml"`},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag, "--schema", schema, "--copy-rate", "0"}, "--copy-rate 0"},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag, "--schema", schema, "--rows", "lots"}, `--rows "lots"`},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag, "--schema", schema, "--copy-rate", "NaN"}, "--copy-rate NaN"},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag, "--schema", schema, "--copy-rate", "Inf"}, "--copy-rate +Inf"},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag, "--schema", schema, "--hosts", "127.0.0.1"}, "--schema and --hosts"},
		{[]string{"--from", "posts.posts_by_id", "--to", hashtag, "--schema", schema, "--workload", broken}, broken + ":1:"},
		{[]string{"--from", "posts.posts_by_id", "--to", schema + "/0001_posts.cql", "--schema", schema}, "0001_posts.cql:11:1: a second CREATE TABLE"},
	} {
		code, out, errOut := run(t, append([]string{"evolve", "plan"}, tc.args...)...)
		if code != ExitBadInput || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// A plan for a table so large that its copy outlasts any clock says so: the duration of
// 1e30 rows is not "about 0s" (a time.Duration overflow).
func TestEvolvePlanHugeRowsDuration(t *testing.T) {
	code, out, errOut := run(t, "evolve", "plan", "--from", "posts.posts_by_id", "--to", "../../examples/posts/testdata/evolve/posts_by_hashtag.cql",
		"--schema", "../../examples/posts/testdata/evolve/migrations", "--rows", "1e30")
	if code != ExitOK || strings.Contains(out, "about 0s") || !strings.Contains(out, "about over 100 years") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// A schema file that creates its own keyspace loads as it is: --from's keyspace is used only
// for files of unqualified names, not made up front (which made CREATE KEYSPACE a duplicate).
func TestEvolvePlanSchemaFileCreatesItsKeyspace(t *testing.T) {
	dir := t.TempDir()
	schema := writeIn(t, dir, "schema.cql", "CREATE KEYSPACE iot WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"+
		"CREATE TABLE iot.readings (device_id uuid, read_at timestamp, temp double, PRIMARY KEY ((device_id), read_at));\n")
	to := writeIn(t, dir, "to.cql", "CREATE TABLE iot.readings_by_day (device_id uuid, day date, read_at timestamp, temp double, PRIMARY KEY ((device_id, day), read_at));\n")
	code, out, errOut := run(t, "evolve", "plan", "--from", "iot.readings", "--to", to, "--schema", schema, "--rows", "1M")
	if code != ExitOK || !strings.Contains(out, "day=day(read_at)") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}
