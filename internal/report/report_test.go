package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/tombstone"
	"github.com/cqlsize/cqlsize/workload"

	goldenfile "github.com/cqlsize/cqlsize/internal/golden"
)

// build makes the report every golden test renders: five tables (a skewed monthly time
// series, a TTL'd daily one on TWCS, a queue, single-row profiles, an unbounded log), their
// queries and the application's statements.
func build(t testing.TB) *report.Report {
	t.Helper()
	schema, err := cql.LoadSchema(filepath.Join("testdata", "schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Load(filepath.Join("testdata", "workload.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "queries.cql"))
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cql.ParseFile("testdata/queries.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	var queries []report.NamedQuery
	for _, st := range stmts {
		sel := st.(*cql.Select)
		name := strings.Fields(strings.TrimPrefix(strings.Split(sel.Doc, "\n")[0], "-- query:"))[0]
		queries = append(queries, report.NamedQuery{Name: name, Stmt: sel})
	}
	src, err = os.ReadFile(filepath.Join("testdata", "statements.cql"))
	if err != nil {
		t.Fatal(err)
	}
	writes, err := cql.ParseFile("testdata/statements.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(schema, w, report.Options{
		Tool: "cqlsize test", SchemaPath: "testdata/schema.cql", WorkloadPath: "testdata/workload.yaml",
		Queries: queries, Statements: writes, DeletesAt: tombstone.Head,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestGolden(t *testing.T) {
	r := build(t)
	for _, format := range report.Formats {
		t.Run(format, func(t *testing.T) {
			write, err := report.WriterFor(format)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := write(&b, r); err != nil {
				t.Fatal(err)
			}
			ext := map[string]string{"text": "txt", "json": "json", "markdown": "md", "html": "html"}[format]
			golden(t, filepath.Join("testdata", "golden."+ext), b.String())
		})
	}
}

func TestWriterForRejectsUnknownFormat(t *testing.T) {
	if _, err := report.WriterFor("yaml"); err == nil || !strings.Contains(err.Error(), "text, json, markdown, html") {
		t.Errorf("WriterFor(yaml) = %v, want an error listing the formats", err)
	}
}

// TestJSONContract holds the JSON to docs/estimate-json.md: every documented required field
// is there with its type, and every key the JSON has is documented.
func TestJSONContract(t *testing.T) {
	r := build(t)
	var b bytes.Buffer
	if err := report.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["version"] != float64(report.Version) {
		t.Errorf("version = %v, want %d", doc["version"], report.Version)
	}
	tables, _ := doc["tables"].([]any)
	if len(tables) != 5 {
		t.Fatalf("%d tables, want 5", len(tables))
	}
	for _, tt := range tables {
		tbl := tt.(map[string]any)
		if _, ok := tbl["name"].(string); !ok {
			t.Errorf("table without a name: %v", tbl)
		}
		for _, part := range []string{"typical", "p99", "largest"} {
			p, _ := tbl[part].(map[string]any)
			for _, k := range []string{"rows", "values", "bytes", "classic_bytes"} {
				if _, ok := p[k].(float64); !ok {
					t.Errorf("%s.%s.%s is not a number: %v", tbl["name"], part, k, p[k])
				}
			}
		}
		ts, _ := tbl["tombstones"].(map[string]any)
		if _, ok := ts["per_read"].(float64); !ok {
			t.Errorf("%s.tombstones.per_read is not a number", tbl["name"])
		}
		fs, _ := tbl["findings"].([]any)
		for _, f := range fs {
			m := f.(map[string]any)
			for _, k := range []string{"code", "severity", "message"} {
				if s, _ := m[k].(string); s == "" {
					t.Errorf("%s: finding without %s: %v", tbl["name"], k, m)
				}
			}
			if sev := m["severity"]; sev != "info" && sev != "warn" && sev != "fail" {
				t.Errorf("severity %q", sev)
			}
		}
	}
	spec, err := os.ReadFile(filepath.Join("..", "..", "docs", "estimate-json.md"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte(": null")) {
		t.Errorf("the JSON has a null; lists are [] when empty and optional fields are left out")
	}
	keys := map[string]bool{}
	collectKeys(doc, keys)
	var missing []string
	for k := range keys {
		if !bytes.Contains(spec, []byte("`"+k+"`")) {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/estimate-json.md does not document %v", missing)
	}
}

func collectKeys(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			into[k] = true
			if k == "per_table" {
				continue // keyed by table name
			}
			collectKeys(e, into)
		}
	case []any:
		for _, e := range x {
			collectKeys(e, into)
		}
	}
}

// TestHTMLIsSelfContained: the page must open offline and from a CI artifact: no script, no
// external stylesheet, image, font or link.
func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteHTML(&b, build(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<link", "<img", "@import", "url(", "src=", "href=\"http"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	urls := regexp.MustCompile(`https?://[^"'\s<]+`).FindAllString(page, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" {
			t.Errorf("the page refers to %s", u)
		}
	}
	if n := strings.Count(page, "<svg"); n != 15 {
		t.Errorf("%d charts, want 15 (bytes, values and tombstones for each of 5 tables)", n)
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{report.Count(0), "0"}, {report.Count(0.5), "0.5"}, {report.Count(9999), "9999"}, {report.Count(12345), "12.3k"},
		{report.Count(2e6), "2M"}, {report.Count(3.5e9), "3.5B"},
		{report.Duration(30), "30s"}, {report.Duration(3600), "60m"}, {report.Duration(86400), "24h"}, {report.Duration(30 * 86400), "30d"},
		{report.Duration(2 * 365.2425 * 86400), "2y"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	js, _ := json.Marshal(struct{ A, B, C report.Num }{0.1 + 0.2, 123456789.4, 1.0 / 3})
	if string(js) != `{"A":0.3,"B":123456789,"C":0.333333}` {
		t.Errorf("Num JSON = %s", js)
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Compare(t, path, []byte(got))
}

// ExampleWriteText sizes one table from a workload given in code and prints the report.
func ExampleWriteText() {
	schema := cql.NewSchema()
	stmts, _ := cql.ParseFile("schema.cql", []byte(`
		CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE app.events (id uuid, day date, at timeuuid, body text, PRIMARY KEY ((id, day), at))
		  WITH CLUSTERING ORDER BY (at DESC);`))
	for _, st := range stmts {
		if err := schema.Apply(st); err != nil {
			fmt.Println(err)
			return
		}
	}
	w, err := workload.Parse("workload.yaml", []byte("tables:\n  events: {partitions: 1000, write_rate: 10/min, bucket: day, avg: {body: 100}}\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := report.Build(schema, w, report.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := r.Tables[0]
	fmt.Printf("%s: %s rows, %s a partition (classic formula %s), %s tombstones a read: %s\n",
		t.Name, report.Count(t.Typical.Rows), sizing.FormatBytes(float64(t.Typical.Bytes)), sizing.FormatBytes(float64(t.Typical.ClassicBytes)),
		report.Count(t.Tombstones.PerRead), t.Verdict)
	// Output:
	// app.events: 14.4k rows, 1.85 MB a partition (classic formula 1.79 MB), 0 tombstones a read: ok
}

// TestOneTombstonesOnDiskFigure: a partition has one tombstones-on-disk figure. The typical
// partition's tombstones_on_disk is tombstones.on_disk (they once came from two models and
// disagreed: 28 beside 10 for posts_by_user), and a busier partition holds at least as many.
func TestOneTombstonesOnDiskFigure(t *testing.T) {
	r := build(t)
	for _, tb := range r.Tables {
		if tb.Typical.TombstonesOnDisk != tb.Tombstones.OnDisk {
			t.Errorf("%s: typical.tombstones_on_disk %v, tombstones.on_disk %v", tb.Name, tb.Typical.TombstonesOnDisk, tb.Tombstones.OnDisk)
		}
		if tb.P99.TombstonesOnDisk < tb.Typical.TombstonesOnDisk || tb.Largest.TombstonesOnDisk < tb.P99.TombstonesOnDisk {
			t.Errorf("%s: tombstones on disk typical %v, p99 %v, largest %v: not ordered by activity", tb.Name,
				tb.Typical.TombstonesOnDisk, tb.P99.TombstonesOnDisk, tb.Largest.TombstonesOnDisk)
		}
	}
}

// TestStoredAndClassicValues: every format names both value counts, and JSON's values is
// the classic one (version 1's meaning).
func TestStoredAndClassicValues(t *testing.T) {
	r := build(t)
	for _, tb := range r.Tables {
		if tb.Largest.Values != tb.Largest.ClassicValues {
			t.Errorf("%s: values %v, classic_values %v", tb.Name, tb.Largest.Values, tb.Largest.ClassicValues)
		}
	}
	for format, want := range map[string]string{"text": "VALUES max stored/classic", "markdown": "Values max stored / classic", "html": "stored values (classic ", "json": `"stored_values"`} {
		write, err := report.WriterFor(format)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := write(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s output does not name both value counts (%q)", format, want)
		}
	}
}
