package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

const designCases = "../../design/testdata/cases"

// TestDesignCasesPassTheirOwnChecks runs `cqlsize design` on each seed case and holds the
// result to the tool's other commands, as a user would run them next: the migration passes
// `migrate validate` with no diagnostic left unsilenced, every rewritten query passes
// `check` with no warning, and `estimate` on the design's own workload has no warning.
func TestDesignCasesPassTheirOwnChecks(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(designCases, "*", "entities.cql"))
	if len(dirs) < 4 {
		t.Fatalf("cases: %v", dirs)
	}
	for _, file := range dirs {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			// A keyspace name of this test's own: with a cluster in the environment,
			// migrate validate compares the files with the live keyspace of that name.
			ks := cassandratest.KeyspaceName(t.Name())
			out := t.TempDir()
			code, stdout, stderr := runIn(t, "", "design", "-k", ks, "--schema", file, "--queries", filepath.Join(dir, "queries.cql"),
				"--workload", filepath.Join(dir, "workload.yaml"), "--out", out, "--format", "json")
			if code != ExitOK {
				t.Fatalf("design: exit %d\n%s%s", code, stdout, stderr)
			}
			var rep struct {
				Queries []struct {
					Name, Table, Bucket string
					Shards              int
				}
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Queries) == 0 {
				t.Fatalf("json: %v\n%s", err, stdout)
			}
			mig := filepath.Join(out, "migrations")
			code, stdout, stderr = runIn(t, "", "migrate", "validate", "--dir", mig, "--keyspace", ks)
			if code != ExitOK || !strings.Contains(stdout+stderr, "0 errors, 0 warnings") {
				t.Errorf("migrate validate: exit %d\n%s%s", code, stdout, stderr)
			}
			code, stdout, stderr = runIn(t, "", "check", "-k", ks, "--schema", mig, "--queries", filepath.Join(out, "queries.cql"), "--fail-on", "warn")
			if code != ExitOK {
				t.Errorf("check: exit %d\n%s%s", code, stdout, stderr)
			}
			code, stdout, stderr = runIn(t, "", "estimate", "-k", ks, "--schema", mig, "--workload", filepath.Join(out, "workload.yaml"), "--fail-on", "warn")
			if code != ExitOK {
				t.Errorf("estimate: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// TestDesignBadInput holds every bad input the command can meet to exit 2 and a message
// naming the file and line at fault.
func TestDesignBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	entities := write("entities.cql", "CREATE TABLE orders (order_id timeuuid PRIMARY KEY, customer_id uuid, created_at timestamp, note text, tags set<text>);\n"+
		"CREATE TABLE likes (post_id uuid PRIMARY KEY, n counter);\n")
	good := "version: 1\ntables:\n  orders:\n    rows: 50k/day\n    retention: 5y\n    columns:\n      customer_id: {distinct: 10M}\n"
	for _, tc := range []struct {
		name, queries, workload, want string
	}{
		{"a column no entity has", "-- query: q1\nSELECT * FROM orders WHERE store_id = ?;\n", good, "queries.cql:2:28: query q1: entity orders has no column store_id"},
		{"a table no entity is", "-- query: q1\nSELECT * FROM carts WHERE id = ?;\n", good, "queries.cql:2:15: query q1: no entity carts"},
		{"a volume for a column that does not exist", "-- query: q1\nSELECT * FROM orders WHERE customer_id = ?;\n",
			good + "      store_id: {distinct: 2000}\n", "workload.yaml:8:7: workload: orders: columns: no column store_id"},
		{"distinct above the rows", "-- query: q1\nSELECT * FROM orders WHERE customer_id = ?;\n",
			"version: 1\ntables:\n  orders:\n    rows: 10/day\n    retention: 1y\n    columns:\n      customer_id: {distinct: 10M}\n", "workload.yaml:7:31: workload: orders: columns: customer_id: distinct 10M is more than the 3652 rows"},
		{"an OR", "-- query: q1\nSELECT * FROM orders WHERE customer_id = ? OR note = ?;\n", good, "queries.cql:2:44: expected end of statement, found OR: a query with OR asks for two keys at once"},
		{"a full-text match", "-- query: q1\nSELECT * FROM orders WHERE note LIKE ?;\n", good, "queries.cql:2:28: query q1: note LIKE ?: LIKE is a text match"},
		{"two ranges", "-- query: q1\nSELECT * FROM orders WHERE customer_id = ? AND created_at > ? AND note > ?;\n", good, "queries.cql:2:67: query q1: note > ?: ranges on created_at and note"},
		{"no volume decides the key", "-- query: q1\nSELECT * FROM orders WHERE note = ?;\n", good, "workload.yaml:7:7: workload: orders: columns: note: {distinct: N} is needed"},
		{"a collection's distinct without its elements per row", "-- query: q1\nSELECT * FROM orders WHERE tags CONTAINS ?;\n", good + "      tags: {distinct: 100}\n",
			"workload: orders: items: tags: is needed (elements per row)"},
		{"an entity with a counter", "-- query: q1\nSELECT n FROM likes WHERE post_id = ?;\n", good + "  likes:\n    rows: 1k/day\n    retention: 1y\n    columns:\n      post_id: {distinct: 365k}\n",
			"queries.cql:2:15: query q1: entity likes has counter column n: counters cannot be denormalized"},
		{"an entity without a volume", "-- query: q1\nSELECT * FROM orders WHERE customer_id = ?;\n", "version: 1\ntables:\n  other:\n    rows: 1/day\n    retention: 1y\n",
			"workload.yaml:3:3: workload: other: no entity table of that name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := write("queries.cql", tc.queries)
			w := write("workload.yaml", tc.workload)
			code, stdout, stderr := runIn(t, "", "design", "-k", "app", "--schema", entities, "--queries", q, "--workload", w, "--out", filepath.Join(dir, "out"))
			if code != ExitBadInput || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit %d, want 2 with %q\nstdout: %s\nstderr: %s", code, tc.want, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Errorf("bad input left files in the output folder")
			}
		})
	}
}

// TestDesignMigrationNumbering: the first design goes to 0001_design.cql, the same design
// run again writes no second copy, and a changed design takes the next free number.
func TestDesignMigrationNumbering(t *testing.T) {
	out := t.TempDir()
	run := func(c string) {
		t.Helper()
		dir := filepath.Join(designCases, c)
		code, stdout, stderr := runIn(t, "", "design", "-k", "app", "--schema", filepath.Join(dir, "entities.cql"), "--queries", filepath.Join(dir, "queries.cql"),
			"--workload", filepath.Join(dir, "workload.yaml"), "--out", out)
		if code != ExitOK {
			t.Fatalf("design %s: exit %d\n%s%s", c, code, stdout, stderr)
		}
	}
	files := func() string {
		entries, _ := os.ReadDir(filepath.Join(out, "migrations"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	run("sensors")
	run("sensors")
	if got := files(); got != "0001_design.cql" {
		t.Errorf("after the same design twice: %s", got)
	}
	run("magazines")
	if got := files(); got != "0001_design.cql 0002_design.cql" {
		t.Errorf("after another design: %s", got)
	}
}
