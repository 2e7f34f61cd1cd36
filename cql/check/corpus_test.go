package check

import (
	"github.com/cqlsize/cqlsize/cql"

	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readVerdicts parses verdicts.golden.
func readVerdicts(t *testing.T) map[string]verdictRecord {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, verdictsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]verdictRecord{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var last string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "    index: ") {
			r := out[last]
			r.Index = strings.TrimPrefix(line, "    index: ")
			out[last] = r
			continue
		}
		if strings.HasPrefix(line, "    toggled: ") {
			r := out[last]
			r.ToggledMessage = strings.TrimPrefix(line, "    toggled: ")
			out[last] = r
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			t.Fatalf("%s: malformed line %q", verdictsFile, line)
		}
		r := verdictRecord{Name: fields[0], Verdict: fields[1], Toggled: fields[2]}
		if len(fields) > 3 {
			r.Message = strings.Join(fields[3:], " ")
		}
		out[r.Name] = r
		last = r.Name
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func goldenVerdict(s string) Verdict {
	switch s {
	case "ok":
		return OK
	case "filtering":
		return NeedsFiltering
	}
	return Invalid
}

// TestCorpusVerdicts is the acceptance test: for every corpus query the checker gives the
// verdict Cassandra 5.0 gave (verdicts.golden), both as written and with ALLOW FILTERING
// toggled. So exactly the queries Cassandra rejects for needing ALLOW FILTERING are the
// ones the checker says need it, and exactly the invalid ones are flagged invalid.
func TestCorpusVerdicts(t *testing.T) {
	schema, err := cql.LoadSchema(filepath.Join(corpusDir, "schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	queries, err := LoadQueries(filepath.Join(corpusDir, "queries.cql"))
	if err != nil {
		t.Fatal(err)
	}
	want := readVerdicts(t)
	results, err := Check(schema, queries, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(want) {
		t.Errorf("%d queries, %d recorded verdicts: re-record with -update against a node", len(results), len(want))
	}
	bad := 0
	for _, r := range results {
		w, ok := want[r.Query.Name]
		if !ok {
			t.Errorf("%s: no recorded verdict", r.Query.Name)
			continue
		}
		// The index the node read (for the form of the query that runs) is the one the
		// checker names; when the node's estimates tie, the checker names every candidate.
		if (w.Verdict == "ok" || w.Toggled == "ok") && r.Index != strings.TrimPrefix(w.Index, "one of ") {
			bad++
			t.Errorf("%s (%s):\n  cassandra read index %q\n  checker names     %q", r.Query.Name, r.Query.Text, w.Index, r.Index)
		}
		if r.Verdict != goldenVerdict(w.Verdict) || r.WithFilteringToggled != goldenVerdict(w.Toggled) {
			bad++
			var msgs []string
			for _, f := range r.Findings {
				msgs = append(msgs, f.Code+" "+f.Message)
			}
			t.Errorf("%s (%s):\n  cassandra: %s / toggled %s: %s\n  checker:   %s / toggled %s: %s",
				r.Query.Name, r.Query.Text, w.Verdict, w.Toggled, w.Message, r.Verdict, r.WithFilteringToggled, strings.Join(msgs, " | "))
		}
	}
	if bad > 0 {
		t.Logf("%d of %d queries disagree", bad, len(results))
	}
}
