package check

import (
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/golden"

	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// checkGolden compares got with the golden file, or rewrites it under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Compare(t, path, got)
}

func corpusResults(t *testing.T) []Result {
	t.Helper()
	schema, err := cql.LoadSchema(filepath.Join(corpusDir, "schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	queries, err := LoadQueries(filepath.Join(corpusDir, "queries.cql"))
	if err != nil {
		t.Fatal(err)
	}
	results, err := Check(schema, queries, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return results
}

// TestCorpusReports pins the full report for the corpus, so every change to a message,
// an access path or a suggested table shows up in review.
func TestCorpusReports(t *testing.T) {
	results := corpusResults(t)
	var js, txt, md bytes.Buffer
	if err := WriteJSON(&js, results); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&txt, results); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, results); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(js.Bytes()) {
		t.Fatal("WriteJSON wrote invalid JSON")
	}
	checkGolden(t, filepath.Join(corpusDir, "report.golden.json"), js.Bytes())
	checkGolden(t, filepath.Join(corpusDir, "report.golden.txt"), txt.Bytes())
	checkGolden(t, filepath.Join(corpusDir, "report.golden.md"), md.Bytes())
}
