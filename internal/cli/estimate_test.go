package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The report package's fixtures: five tables and their workload, queries and statements.
var (
	estSchema     = filepath.Join("..", "report", "testdata", "schema.cql")
	estWorkload   = filepath.Join("..", "report", "testdata", "workload.yaml")
	estQueries    = filepath.Join("..", "report", "testdata", "queries.cql")
	estStatements = filepath.Join("..", "report", "testdata", "statements.cql")
)

func TestEstimateWorkloadFile(t *testing.T) {
	code, out, errOut := run(t, "estimate", "--schema", estSchema, "--workload", estWorkload,
		"--queries", estQueries, "--statements", estStatements, "--deletes-at", "head")
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d (the fixtures have failures); stderr %q", code, ExitFindings, errOut)
	}
	for _, want := range []string{"app.posts_by_user", "app.jobs", "TS002", "query next_jobs", "SZ002", "TS101", "batches"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("stderr %q", errOut)
	}
}

func TestEstimateQuickFlags(t *testing.T) {
	code, out, errOut := run(t, "estimate", "--schema", estSchema, "--table", "posts_by_user",
		"--rate", "50/day", "--bucket", "month", "--partitions", "2M", "--avg", "content=280", "--avg", "title=40",
		"--avg", "month=7", "--read-limit", "20", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	var r struct {
		Version int
		Tables  []struct {
			Name    string
			Typical struct{ Rows, Bytes float64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.Version != 1 || len(r.Tables) != 1 || r.Tables[0].Name != "app.posts_by_user" {
		t.Fatalf("report %+v", r)
	}
	// 50 rows a day for a month: about 1500 rows.
	if rows := r.Tables[0].Typical.Rows; rows < 1400 || rows > 1600 {
		t.Errorf("typical rows %.0f, want about 1500", rows)
	}
}

func TestEstimateFailOn(t *testing.T) {
	args := []string{"estimate", "--schema", estSchema, "--workload", estWorkload, "--table", "readings"}
	for _, tc := range []struct {
		failOn string
		want   int
	}{{"fail", ExitOK}, {"warn", ExitFindings}, {"never", ExitOK}} {
		code, _, errOut := run(t, append(args, "--fail-on", tc.failOn)...)
		if code != tc.want {
			t.Errorf("--fail-on %s: exit %d, want %d (stderr %q)", tc.failOn, code, tc.want, errOut)
		}
	}
}

func TestEstimateFormatsAndOutputFile(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"text", "json", "markdown", "html"} {
		path := filepath.Join(dir, "estimate."+format)
		code, out, errOut := run(t, "estimate", "--schema", estSchema, "--workload", estWorkload, "--format", format,
			"--output", path, "--fail-on", "never")
		if code != ExitOK {
			t.Fatalf("%s: exit %d, stderr %q", format, code, errOut)
		}
		if out != "" {
			t.Errorf("%s: --output given, yet stdout has %d bytes", format, len(out))
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) < 500 {
			t.Errorf("%s: %s: %d bytes, %v", format, path, len(data), err)
		}
		if !strings.Contains(errOut, "wrote "+path) {
			t.Errorf("%s: stderr %q does not say where the report went", format, errOut)
		}
	}
}

// TestEstimateBadInput: every kind of bad input is exit 2, a message naming the file, line
// and field (or the flag), and nothing on stdout.
func TestEstimateBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	brokenCQL := write("broken.cql", "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE app.t (id int PRIMARY KEY, v text\n")
	missingTable := write("missing.yaml", "version: 1\ntables:\n  posts_by_user:\n    rows_per_partition: 10\n  no_such_table:\n    rows_per_partition: 10\n")
	badColumn := write("badcol.yaml", "version: 1\ntables:\n  posts_by_user:\n    rows_per_partition: 10\n    avg: {nope: 12}\n")
	negative := write("negative.yaml", "version: 1\ntables:\n  posts_by_user:\n    rows_per_partition: -5\n")
	elementNoCollection := write("element.yaml", "version: 1\ntables:\n  audit:\n    write_rate: 10/day\n    deletes:\n      - kind: element\n        column: detail\n        rate: 1/day\n")
	badQueries := write("queries.cql", "SELECT * FROM app.jobs WHERE queue = ? LIMIT 10;\nINSERT INTO app.jobs (queue, job_id) VALUES (?, ?);\n")
	badRange := write("range.cql", "\n-- query: next_jobs rate=10/s range=lots\nSELECT * FROM app.jobs WHERE queue = ? LIMIT 10;\n")

	base := []string{"estimate", "--schema", estSchema}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"negative rows flag", append(base, "--table", "posts_by_user", "--rows", "-5"), []string{"--rows", "-5"}},
		{"unknown format", append(base, "--workload", estWorkload, "--format", "yaml"), []string{"--format", "yaml", "text, json, markdown, html"}},
		{"unknown target", append(base, "--workload", estWorkload, "--target", "mongodb"), []string{"--target", "mongodb"}},
		{"unknown fail-on", append(base, "--workload", estWorkload, "--fail-on", "sometimes"), []string{"--fail-on", "sometimes"}},
		{"unknown read order", append(base, "--workload", estWorkload, "--read-order", "sideways"), []string{"--read-order", "sideways"}},
		{"unknown placement", append(base, "--workload", estWorkload, "--deletes-at", "middle"), []string{"--deletes-at", "middle"}},
		{"negative read limit", append(base, "--workload", estWorkload, "--read-limit", "-1"), []string{"--read-limit"}},
		{"workload and flags", append(base, "--workload", estWorkload, "--rows", "5"), []string{"--rows", "--table", "without --workload"}},
		{"no workload", base, []string{"--workload", "--table"}},
		{"table without rows", append(base, "--table", "jobs"), []string{"--table jobs", "--rows", "--rate"}},
		{"no schema", []string{"estimate", "--table", "jobs", "--rows", "5"}, []string{"--schema is required"}},
		{"table not in the schema (flags)", append(base, "--table", "nope", "--rows", "5"), []string{"nope", "not in the schema"}},
		{"table not in the schema (file)", append(base, "--workload", missingTable), []string{missingTable + ":5:3", "no_such_table", "not in the schema"}},
		{"column not in the table", append(base, "--workload", badColumn), []string{badColumn + ":5:", "nope"}},
		{"negative number in the file", append(base, "--workload", negative), []string{negative + ":4:", "rows_per_partition"}},
		{"element delete without a collection", append(base, "--workload", elementNoCollection), []string{elementNoCollection + ":", "detail"}},
		{"broken CQL", []string{"estimate", "--schema", brokenCQL, "--table", "t", "--rows", "5"}, []string{brokenCQL + ":3:1", "expected ')'"}},
		{"missing schema file", []string{"estimate", "--schema", filepath.Join(dir, "nope.cql"), "--table", "t", "--rows", "5"}, []string{"nope.cql"}},
		{"missing workload file", append(base, "--workload", filepath.Join(dir, "nope.yaml")), []string{"nope.yaml"}},
		{"table not in the workload", append(base, "--workload", estWorkload, "--table", "users"), []string{"--table users", "posts_by_user"}},
		{"queries file with an INSERT", append(base, "--workload", estWorkload, "--queries", badQueries), []string{badQueries + ":2:1", "SELECT"}},
		// The header is read by check's parser, which names the statement and the setting.
		{"query header with a bad range", append(base, "--workload", estWorkload, "--queries", badRange), []string{badRange + ":3:1", "next_jobs", "range=lots", "7d"}},
		{"bad host", append(base, "--workload", estWorkload, "--hosts", "127.0.0.1:99999"), []string{"99999"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			if code != ExitBadInput {
				t.Errorf("exit %d, want %d; stderr %q", code, ExitBadInput, errOut)
			}
			if out != "" {
				t.Errorf("stdout not empty on bad input:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
			if strings.Contains(errOut, "panic") || strings.Contains(errOut, "internal error") {
				t.Errorf("stderr %q", errOut)
			}
		})
	}
}

// TestEstimateRefusesAbsurdNumbers: numbers no cluster could hold exit 2 with a message that
// names the flag and the bound, and nothing on stdout; the user's command that ended in a
// stack overflow (--rate 1e15/second --delete row:1e15/second) is one of them.
func TestEstimateRefusesAbsurdNumbers(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		want  []string
	}{
		{[]string{"--rate", "1e15/second", "--delete", "row:1e15/second"},
			[]string{"--rate: 1e+15/s is over the bound of 1e+09 a second", `--delete "row:1e15/second": 1e+15/s is over the bound of 1e+09 deletes a second`}},
		{[]string{"--rows", "1e13"}, []string{"--rows: 1e+13 rows is over the bound of 1e+12"}},
		{[]string{"--rows", "5", "--partitions", "1e16"}, []string{"--partitions: 1e+16 partition keys is over the bound of 1e+15"}},
		{[]string{"--rows", "5", "--avg", "content=3e9"}, []string{"--avg content: 3e+09 bytes is over the bound of 2 GiB"}},
		{[]string{"--rows", "5", "--delete", "range:1/day:2e12"}, []string{`--delete "range:1/day:2e12": 2e+12 rows is over the bound of 1e+12`}},
		{[]string{"--rate", "1e308k/s"}, []string{"--rate", "too large"}},
	} {
		args := append([]string{"estimate", "--schema", estSchema, "--table", "posts_by_user"}, tc.flags...)
		code, out, errOut := run(t, args...)
		if code != ExitBadInput || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want %d and nothing", tc.flags, code, out, ExitBadInput)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.flags, errOut, w)
			}
		}
	}
}

// TestEstimateHotKeyFarOverLimits: a hot key 10^22 times over the limits is estimated (exit
// 1, FAIL) with a write-shard finding that says shards cannot fix it, not a shard count
// that overflowed to -9223372036854775808.
func TestEstimateHotKeyFarOverLimits(t *testing.T) {
	code, out, errOut := run(t, "estimate", "--schema", estSchema, "--table", "posts_by_user",
		"--partitions", "1e15", "--skew", "zipf:3", "--rate", "1e6/second", "--avg", "content=200", "--avg", "title=40", "--avg", "month=7")
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d; stderr %q", code, ExitFindings, errOut)
	}
	if strings.Contains(out, "-9223372036854775808") || !strings.Contains(out, "SZ102") || !strings.Contains(out, "a read visits every shard") {
		t.Errorf("output:\n%s", out)
	}
}

// TestEstimateHelpNamesTheBounds: --help says which numbers are refused.
func TestEstimateHelpNamesTheBounds(t *testing.T) {
	code, out, _ := run(t, "estimate", "--help")
	if code != ExitOK || !strings.Contains(out, "Numbers no cluster could hold are bad input") || !strings.Contains(out, "10^9 writes, deletes or overwrites a second") {
		t.Errorf("estimate --help: exit %d:\n%s", code, out)
	}
}

// TestEstimateMaxRate is a chat application's messages table: 200 messages a day a conversation, Zipf 1.1 over a
// million conversations, one partition a conversation a day. Uncapped, the busiest gets
// 24.8M rows a day; --max-rate 10/s (the application's limiter) caps it at 864,000, in the
// JSON largest partition. The same cap in a workload file that also declares
// rows_per_partition is refused at its file:line:col (exit 2), and so is an unreadable rate.
func TestEstimateMaxRate(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schema, []byte("CREATE KEYSPACE chat WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"+
		"CREATE TABLE chat.messages (conversation_id uuid, day date, message_id timeuuid, body text, PRIMARY KEY ((conversation_id, day), message_id));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	largest := func(extra ...string) float64 {
		t.Helper()
		args := append([]string{"estimate", "--schema", schema, "--table", "messages", "--rate", "200/day", "--partitions", "1M",
			"--skew", "zipf:1.1", "--avg", "body=100", "--format", "json", "--fail-on", "never"}, extra...)
		code, out, errOut := run(t, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d; stderr %q", extra, code, errOut)
		}
		var r struct {
			Tables []struct{ Largest struct{ Rows float64 } }
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Tables) != 1 {
			t.Fatalf("not a one-table report: %v\n%s", err, out)
		}
		return r.Tables[0].Largest.Rows
	}
	if got := largest(); got < 24.7e6 || got > 24.9e6 {
		t.Errorf("uncapped: largest partition %.0f rows a day, want about 24.8M", got)
	}
	if got := largest("--max-rate", "10/s"); got != 864000 {
		t.Errorf("--max-rate 10/s: largest partition %.0f rows a day, want 864000", got)
	}

	w := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(w, []byte("tables:\n  messages:\n    rows: 500\n    skew: {zipf: 1.1, max_rate: 10/s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "estimate", "--schema", schema, "--workload", w)
	if code != ExitBadInput || !strings.Contains(errOut, "w.yaml:4:33:") || !strings.Contains(errOut, "skew.max_rate caps a key's write_rate") {
		t.Errorf("max_rate with rows_per_partition: exit %d, stderr %q; want 2 naming w.yaml:4:33", code, errOut)
	}
	code, _, errOut = run(t, "estimate", "--schema", schema, "--table", "messages", "--rate", "1/s", "--max-rate", "fast")
	if code != ExitBadInput || !strings.Contains(errOut, "--max-rate") {
		t.Errorf("--max-rate fast: exit %d, stderr %q; want 2 naming --max-rate", code, errOut)
	}
}
