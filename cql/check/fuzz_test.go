package check

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// FuzzCheck feeds arbitrary query files to the checker: whatever parses must be judged
// without a panic, with a verdict and an access path, and must render in every format.
// The seeds (the corpus and a few odd queries) run in every `go test`; explore with
// go test ./cql/check -run '^$' -fuzz FuzzCheck -fuzztime 2m
func FuzzCheck(f *testing.F) {
	schema, err := cql.LoadSchema(filepath.Join(corpusDir, "schema.cql"))
	if err != nil {
		f.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(corpusDir, "queries.cql"))
	if err != nil {
		f.Fatal(err)
	}
	for _, q := range strings.Split(string(src), ";") {
		f.Add(q + ";")
	}
	for _, q := range []string{
		"SELECT * FROM readings WHERE token(sensor_id, day) > ? AND sensor_id = ? AND day = ?",
		"SELECT * FROM messages WHERE room_id = ? AND (year, month) = (?, ?) AND (year, month) > (?, ?)",
		"SELECT * FROM messages WHERE room_id = ? AND (year) IN ((2024), (2025)) ORDER BY year",
		"SELECT * FROM products WHERE labels['k'] = 'v' AND colors CONTAINS 'x' AND colors CONTAINS 'y'",
		"SELECT ks.f(a), count(*) FROM corpus.users WHERE user_id IN () GROUP BY user_id, nope",
		"SELECT * FROM nosuch.users",
		"SELECT * FROM visits WHERE expr(visits_ms_sai, 'x')",
		"SELECT * FROM users WHERE user_id = ? PER PARTITION LIMIT ? LIMIT ?",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, text string) {
		qs, err := ParseQueries("fuzz.cql", []byte(text))
		if err != nil {
			return
		}
		for _, opts := range []Options{{}, {Unpaged: true, Keyspace: "corpus"}} {
			results, err := Check(schema, qs, opts)
			if err != nil {
				t.Fatalf("parsed queries must check: %v", err)
			}
			for _, r := range results {
				switch r.Verdict {
				case OK, NeedsFiltering, Invalid:
				default:
					t.Fatalf("%s: verdict %q", r.Query.Text, r.Verdict)
				}
				if r.Verdict == Invalid && len(r.Findings) == 0 && len(r.Query.NoLint) == 0 {
					t.Fatalf("%s: invalid without a finding saying why", r.Query.Text)
				}
			}
			for _, w := range []func(io.Writer, []Result) error{WriteText, WriteJSON, WriteMarkdown} {
				if err := w(io.Discard, results); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
