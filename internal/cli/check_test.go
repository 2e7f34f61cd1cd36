package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The example service the check tests run on lives with the check package's test data.
const checkData = "../../cql/check/testdata/cli"

func init() {
	// -update rewrites golden files; another test file of this package may define it too.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func runIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Do(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckFormatsGolden(t *testing.T) {
	schema, queries := filepath.Join(checkData, "schema.cql"), filepath.Join(checkData, "queries.cql")
	for _, format := range []string{"text", "json", "markdown"} {
		t.Run(format, func(t *testing.T) {
			code, out, errOut := runIn(t, "", "check", "--schema", schema, "--queries", queries, "--format", format)
			if code != ExitFindings {
				t.Errorf("exit %d, want %d (the example has fail findings); stderr %q", code, ExitFindings, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr %q, want nothing: findings go to stdout", errOut)
			}
			if format == "json" && !json.Valid([]byte(out)) {
				t.Fatalf("invalid JSON:\n%s", out)
			}
			golden := filepath.Join(checkData, "check.golden."+map[string]string{"text": "txt", "json": "json", "markdown": "md"}[format])
			if updating() {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/cli -run TestCheck -update)", err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s (run with -update to accept):\n%s", golden, out)
			}
		})
	}
}

// TestCheckJSONFields pins the documented JSON fields, which scripts depend on.
func TestCheckJSONFields(t *testing.T) {
	_, out, _ := runIn(t, "", "check", "--schema", filepath.Join(checkData, "schema.cql"),
		"--queries", filepath.Join(checkData, "queries.cql"), "--format", "json")
	var rep struct {
		Version int              `json:"version"`
		Queries []map[string]any `json:"queries"`
		Summary map[string]int   `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Version != 2 || len(rep.Queries) != 6 || rep.Summary["queries"] != 6 {
		t.Fatalf("version %d, %d queries, summary %v", rep.Version, len(rep.Queries), rep.Summary)
	}
	for _, field := range []string{"name", "pos", "table", "access", "partitions", "verdict", "needs_filtering", "filters",
		"index", "rate_per_second", "p99_ms", "findings", "existing_table", "suggested_table", "suggested_query"} {
		for _, q := range rep.Queries {
			if _, ok := q[field]; !ok {
				t.Errorf("query %v lacks field %q", q["name"], field)
			}
		}
	}
	byName := map[string]map[string]any{}
	for _, q := range rep.Queries {
		byName[q["name"].(string)] = q
	}
	if q := byName["user_quarter"]; q["access"] != "fan-out" || q["partitions"] != float64(3) {
		t.Errorf("user_quarter: access %v, partitions %v; want fan-out over 3", q["access"], q["partitions"])
	}
	if q := byName["login"]; q["needs_filtering"] != true || q["access"] != "scan" || q["suggested_table"] == nil {
		t.Errorf("login: %v", q)
	}
	if q := byName["user_by_name"]; q["index"] != "users_name_sai" {
		t.Errorf("user_by_name: index %v", q["index"])
	}
	f := byName["login"]["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"code", "severity", "message", "pos"} {
		if _, ok := f[k]; !ok {
			t.Errorf("finding lacks %q: %v", k, f)
		}
	}
	if f["code"] != "QF001" || f["severity"] != "fail" || !strings.HasSuffix(f["pos"].(string), "queries.cql:11:1") {
		t.Errorf("login's first finding: %v", f)
	}
}

func TestCheckFailOn(t *testing.T) {
	schema := filepath.Join(checkData, "schema.cql")
	warnOnly := "-- query: q\nSELECT * FROM posts_by_user WHERE user_id = ? AND month IN ?;\n"
	clean := "SELECT * FROM users WHERE user_id = ?;\n"
	for _, tc := range []struct {
		queries, failOn string
		want            int
	}{
		{warnOnly, "fail", ExitOK},
		{warnOnly, "warn", ExitFindings},
		{warnOnly, "never", ExitOK},
		{clean, "warn", ExitOK},
		{"SELECT * FROM users WHERE email = ?;", "fail", ExitFindings},
		{"SELECT * FROM users WHERE email = ?;", "never", ExitOK},
	} {
		code, out, errOut := runIn(t, tc.queries, "check", "--schema", schema, "--queries", "-", "--fail-on", tc.failOn)
		if code != tc.want {
			t.Errorf("%q --fail-on %s: exit %d, want %d\n%s%s", tc.queries, tc.failOn, code, tc.want, out, errOut)
		}
		if !strings.Contains(out, "1 queries:") {
			t.Errorf("%q: no report on stdout: %q", tc.queries, out)
		}
	}
}

func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string { return writeIn(t, dir, name, src) }
	schema := filepath.Join(checkData, "schema.cql")
	queries := filepath.Join(checkData, "queries.cql")
	brokenQueries := write("broken.cql", "-- query: a\nSELECT * FROM users WHERE user_id = ?;\n\nSELECT * FROM users WHERE email = 'x' OR name = 'y';\n")
	brokenSchema := write("schema.cql", "CREATE TABLE t (a int PRIMARY KEY, b);\n")
	notSelect := write("insert.cql", "TRUNCATE users;\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"syntax error in queries", []string{"--schema", schema, "--queries", brokenQueries}, "broken.cql:4:39: expected"},
		{"not a select", []string{"--schema", schema, "--queries", notSelect}, "insert.cql:1:1: expected SELECT, found TRUNCATE"},
		{"broken schema", []string{"--schema", brokenSchema, "--queries", queries}, "load schema: " + brokenSchema + ":1:"},
		{"missing queries file", []string{"--schema", schema, "--queries", filepath.Join(dir, "nope.cql")}, "nope.cql"},
		{"missing schema", []string{"--schema", filepath.Join(dir, "nope"), "--queries", queries}, "load schema"},
		{"no schema flag", []string{"--queries", queries}, "--schema is required"},
		{"no queries flag", []string{"--schema", schema}, "--queries is required"},
		{"bad format", []string{"--schema", schema, "--queries", queries, "--format", "yaml"}, `--format "yaml": want text, json or markdown`},
		{"bad fail-on", []string{"--schema", schema, "--queries", queries, "--fail-on", "sometimes"}, `--fail-on "sometimes": want warn, fail or never`},
		{"extra argument", []string{"--schema", schema, "--queries", queries, "extra"}, `unknown command "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runIn(t, "", append([]string{"check"}, tc.args...)...)
			if code != ExitBadInput {
				t.Errorf("exit %d, want %d", code, ExitBadInput)
			}
			if out != "" {
				t.Errorf("stdout %q: nothing that looks like a result may be printed on bad input", out)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q, want it to contain %q", errOut, tc.want)
			}
		})
	}
}

func TestCheckListCodes(t *testing.T) {
	code, out, _ := runIn(t, "", "check", "--list-codes")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, c := range []string{"QF001", "QF002", "QF003", "QF014"} {
		if !strings.Contains(out, c) {
			t.Errorf("--list-codes lacks %s:\n%s", c, out)
		}
	}
}

func TestCheckHelp(t *testing.T) {
	code, out, _ := runIn(t, "", "check", "--help")
	if code != ExitOK || !strings.Contains(out, "cqlsize check --schema schema.cql --queries queries.cql") {
		t.Fatalf("check --help: exit %d\n%s", code, out)
	}
}

// TestCheckSuggestionsPassMigrateValidate runs the advice through the next command a user
// runs: every distinct table `cqlsize check` suggests for the node-verified query corpus
// goes into a migration after the corpus schema, and `cqlsize migrate validate` must accept
// the folder (exit 0) with no diagnostic at all on the suggestions' file: no error, no
// BK101 (a suggested time series carries its bucket), not even IF101.
func TestCheckSuggestionsPassMigrateValidate(t *testing.T) {
	corpus := "../../cql/check/testdata/corpus"
	code, out, errOut := runIn(t, "", "check", "--schema", filepath.Join(corpus, "schema.cql"),
		"--queries", filepath.Join(corpus, "queries.cql"), "--format", "json", "--fail-on", "never")
	if code != ExitOK {
		t.Fatalf("check: exit %d: %s", code, errOut)
	}
	var rep struct {
		Queries []struct {
			Name           string  `json:"name"`
			SuggestedTable *string `json:"suggested_table"`
		} `json:"queries"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// The corpus schema without its keyspace lines: --keyspace stands in for them.
	schema, err := os.ReadFile(filepath.Join(corpus, "schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(schema), "\n") {
		if !strings.HasPrefix(line, "CREATE KEYSPACE") && !strings.HasPrefix(line, "USE ") {
			kept = append(kept, line)
		}
	}
	// One statement per distinct design; two designs with one name get a suffix.
	const create = "CREATE TABLE IF NOT EXISTS "
	seen, names := map[string]bool{}, map[string]bool{}
	var suggested []string
	for _, q := range rep.Queries {
		if q.SuggestedTable == nil || seen[*q.SuggestedTable] {
			continue
		}
		ddl := *q.SuggestedTable
		seen[ddl] = true
		i := strings.Index(ddl, create)
		if i < 0 {
			t.Fatalf("%s: suggestion does not say %q:\n%s", q.Name, create, ddl)
		}
		name, _, _ := strings.Cut(ddl[i+len(create):], " ")
		unique := name
		for n := 2; names[unique]; n++ {
			unique = name + "_" + strconv.Itoa(n)
		}
		names[unique] = true
		suggested = append(suggested, strings.Replace(ddl, create+name+" ", create+unique+" ", 1)+";")
	}
	if len(suggested) < 20 {
		t.Fatalf("only %d distinct suggestions: the test proves little", len(suggested))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "0001_schema.cql"), []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "0002_suggested.cql"), []byte(strings.Join(suggested, "\n\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runIn(t, "", "migrate", "validate", "--offline", "-d", dir, "-k", "corpus", "--format", "json")
	if code != ExitOK {
		t.Fatalf("migrate validate: exit %d, want 0\nstderr: %s\nstdout: %s", code, errOut, out)
	}
	var val struct {
		Lint struct {
			Diagnostics []struct {
				File, Code, Message string
				Line                int
				Silenced            bool
			} `json:"diagnostics"`
		} `json:"lint"`
	}
	if err := json.Unmarshal([]byte(out), &val); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	// The one lint a suggestion may carry silenced is the bucket one (BK101), for a time
	// series check has no volume to size: the nolint line names what decides the bucket.
	silenced := 0
	for _, d := range val.Lint.Diagnostics {
		if !strings.HasSuffix(d.File, "0002_suggested.cql") {
			continue
		}
		if d.Silenced && d.Code == "BK101" {
			silenced++
			continue
		}
		t.Errorf("line %d: %s %s", d.Line, d.Code, d.Message)
	}
	if n := strings.Count(strings.Join(suggested, ""), "cqlsize:nolint BK101 unsized:"); n != silenced {
		t.Errorf("%d BK101 silenced, %d unsized suggestions say why", silenced, n)
	}
	t.Logf("%d distinct suggested tables: migrate validate exit 0, no diagnostic on them", len(suggested))
}
