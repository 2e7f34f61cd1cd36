package check

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

const twoKeyspaces = `
CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE KEYSPACE b WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE a.events (id uuid, at timestamp, kind text, PRIMARY KEY (id, at)) WITH default_time_to_live = 86400;
CREATE TABLE b.events (id uuid PRIMARY KEY, kind text);
CREATE TABLE a.counters_by_day (day date, name text, hits int, PRIMARY KEY (day, name));
CREATE MATERIALIZED VIEW a.events_by_kind AS SELECT * FROM a.events
    WHERE kind IS NOT NULL AND id IS NOT NULL AND at IS NOT NULL PRIMARY KEY (kind, id, at);
`

func schemaOf(t *testing.T, src string) *cql.Schema {
	t.Helper()
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(src)); err != nil {
		t.Fatal(err)
	}
	return s
}

func checkOne(t *testing.T, s *cql.Schema, src string, opts Options) Result {
	t.Helper()
	qs, err := ParseQueries("q.cql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 {
		t.Fatalf("%d queries in %q", len(qs), src)
	}
	r, err := CheckQuery(s, qs[0], opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func codes(r Result) string {
	var cs []string
	for _, f := range r.Findings {
		cs = append(cs, f.Severity.String()+" "+f.Code)
	}
	return strings.Join(cs, ", ")
}

func TestCheckCases(t *testing.T) {
	s := schemaOf(t, twoKeyspaces)
	for _, tc := range []struct {
		name, query string
		opts        Options
		verdict     Verdict
		access      Access
		table       string
		codes       string
	}{
		{"qualified", "SELECT * FROM a.events WHERE id = ?", Options{}, OK, SinglePartition, "a.events", ""},
		{"ambiguous", "SELECT * FROM events WHERE id = ?", Options{}, Invalid, "", "", "fail QF011"},
		{"keyspace option", "SELECT * FROM events WHERE id = ?", Options{Keyspace: "b"}, OK, SinglePartition, "b.events", ""},
		{"unique unqualified", "SELECT * FROM counters_by_day WHERE day = ?", Options{}, OK, SinglePartition, "a.counters_by_day", ""},
		{"no keyspace", "SELECT * FROM c.events", Options{}, Invalid, "", "", "fail QF011"},
		{"view", "SELECT * FROM a.events_by_kind WHERE kind = ?", Options{}, OK, SinglePartition, "a.events_by_kind", ""},
		{"view scan", "SELECT * FROM a.events_by_kind WHERE id = ? ALLOW FILTERING", Options{}, OK, Scan, "a.events_by_kind", "warn QF002, warn QF009"},
		{"order by with IN, paged", "SELECT * FROM a.events WHERE id IN (?, ?) ORDER BY at DESC", Options{}, Invalid, FanOut, "a.events", "fail QF013"},
		{"order by with IN, unpaged", "SELECT * FROM a.events WHERE id IN (?, ?) ORDER BY at DESC", Options{Unpaged: true}, OK, FanOut, "a.events", "warn QF003"},
		{"order by with IN, aggregate pages anyway", "SELECT count(*) FROM a.events WHERE id IN (?, ?) ORDER BY at DESC", Options{Unpaged: true}, Invalid, FanOut, "a.events", "fail QF013"},
		{"needless allow filtering", "SELECT * FROM a.events WHERE id = ? ALLOW FILTERING", Options{}, OK, SinglePartition, "a.events", "info QF010"},
		{"filter in one-row partitions", "SELECT * FROM b.events WHERE id = ? AND kind = 'x' ALLOW FILTERING", Options{}, OK, SinglePartition, "b.events", "info QF009"},
		{"filter in wide partitions", "SELECT * FROM a.events WHERE id = ? AND kind = 'x' ALLOW FILTERING", Options{}, OK, SinglePartition, "a.events", "warn QF009"},
		{"token scan", "SELECT * FROM a.events WHERE token(id) > ?", Options{}, OK, Scan, "a.events", "warn QF002"},
		{"scan of a table --small names", "SELECT * FROM a.events", Options{Small: []string{"a.events"}}, OK, Scan, "a.events", "info QF002"},
		{"scan of a table --small names bare", "SELECT * FROM a.events", Options{Small: []string{"events"}}, OK, Scan, "a.events", "info QF002"},
		{"scan of a big table", "SELECT * FROM a.events", Options{TableRows: rowsOf(5001)}, OK, Scan, "a.events", "fail QF002"},
		{"scan of a table of one page", "SELECT * FROM a.events", Options{TableRows: rowsOf(5000)}, OK, Scan, "a.events", "info QF002"},
		{"filtering scan of a big table", "SELECT * FROM a.events_by_kind WHERE id = ? ALLOW FILTERING", Options{TableRows: rowsOf(1e6)}, OK, Scan, "a.events_by_kind", "fail QF002, fail QF009"},
		{"IN with one value", "SELECT * FROM a.events WHERE id IN (?)", Options{}, OK, SinglePartition, "a.events", ""},
		{"nolint", "-- cqlsize:nolint QF002\nSELECT * FROM a.events", Options{}, OK, Scan, "a.events", ""},
		{"nolint other code", "-- cqlsize:nolint QF003\nSELECT * FROM a.events", Options{}, OK, Scan, "a.events", "warn QF002"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := checkOne(t, s, tc.query, tc.opts)
			if r.Verdict != tc.verdict || r.Access != tc.access || r.Table != tc.table || codes(r) != tc.codes {
				t.Errorf("got verdict %s, access %q, table %q, findings [%s]; want %s, %q, %q, [%s]\n%v",
					r.Verdict, r.Access, r.Table, codes(r), tc.verdict, tc.access, tc.table, tc.codes, r.Findings)
			}
		})
	}
}

func TestAmbiguousTableMessage(t *testing.T) {
	r := checkOne(t, schemaOf(t, twoKeyspaces), "SELECT * FROM events", Options{})
	want := "table events is in several keyspaces (a, b): qualify it as keyspace.events or pass a keyspace"
	if len(r.Findings) != 1 || !strings.Contains(r.Findings[0].Message, want) || r.Findings[0].Pos.String() != "q.cql:1:15" {
		t.Errorf("findings %v, want one at q.cql:1:15 saying %q", r.Findings, want)
	}
}

func TestSuggestion(t *testing.T) {
	s := schemaOf(t, twoKeyspaces)
	r := checkOne(t, s, "SELECT id, at FROM a.events WHERE kind = ? AND at > ? ORDER BY at DESC ALLOW FILTERING", Options{})
	wantTable := `-- kind is a key column here: changing it means deleting the row and inserting it again
CREATE TABLE IF NOT EXISTS a.events_by_kind_2 (
    kind text,
    at timestamp,
    id uuid,
    PRIMARY KEY ((kind), at, id)
) WITH CLUSTERING ORDER BY (at DESC, id ASC)
    AND default_time_to_live = 86400`
	if r.SuggestedTable != wantTable {
		t.Errorf("suggested table:\n%s\nwant:\n%s", r.SuggestedTable, wantTable)
	}
	// The view a.events_by_kind cannot serve it (id comes before at in its key), and the
	// new table does not take its name.
	if want := "SELECT id, at FROM a.events_by_kind_2 WHERE kind = ? AND at > ? ORDER BY at DESC"; r.SuggestedQuery != want {
		t.Errorf("suggested query %q, want %q", r.SuggestedQuery, want)
	}
	// Nothing to look up by equality, a deliberate token scan, an index that serves it:
	// no table to suggest.
	for _, q := range []string{
		"SELECT * FROM a.events WHERE at > ? ALLOW FILTERING",
		"SELECT * FROM a.events WHERE token(id) > ?",
		"SELECT * FROM a.events WHERE id = ?",
	} {
		if r := checkOne(t, s, q, Options{}); r.SuggestedTable != "" {
			t.Errorf("%s: suggested %s", q, r.SuggestedTable)
		}
	}
}

func TestExistingTable(t *testing.T) {
	s := schemaOf(t, twoKeyspaces)
	r := checkOne(t, s, "SELECT id, at FROM a.events WHERE kind = ? ALLOW FILTERING", Options{})
	if r.ExistingTable != "a.events_by_kind" || r.SuggestedTable != "" ||
		r.SuggestedQuery != "SELECT id, at FROM a.events_by_kind WHERE kind = ?" {
		t.Errorf("existing %q, suggested table %q, query %q", r.ExistingTable, r.SuggestedTable, r.SuggestedQuery)
	}
}

func TestCheckQueryWithoutParse(t *testing.T) {
	s := schemaOf(t, twoKeyspaces)
	r, err := CheckQuery(s, Query{Name: "adhoc", Text: "SELECT * FROM a.events WHERE kind = 'x'"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != NeedsFiltering || !r.NeedsFiltering || r.Query.Pos.String() != "1:1" {
		t.Errorf("verdict %s, pos %s", r.Verdict, r.Query.Pos)
	}
	if _, err := CheckQuery(s, Query{Text: "SELEC * FROM a.events"}, Options{}); err == nil {
		t.Error("a query that does not parse must be an error")
	}
	if _, err := CheckQuery(s, Query{Text: "DELETE FROM a.events WHERE id = ?"}, Options{}); err == nil {
		t.Error("a statement that is not a SELECT must be an error")
	}
}

func TestSeverity(t *testing.T) {
	for _, s := range []string{"info", "warn", "fail"} {
		sev, err := ParseSeverity(s)
		if err != nil || sev.String() != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", s, sev, err)
		}
	}
	if _, err := ParseSeverity("loud"); err == nil {
		t.Error("ParseSeverity accepted loud")
	}
}

// TestCodesListed keeps Codes() complete and the codes unique and in order.
func TestCodesListed(t *testing.T) {
	all := []string{CodeNeedsFiltering, CodeScan, CodeFanOut, CodeClustering, CodeOrderBy, CodeGroupBy, CodeDistinct,
		CodeIndexScan, CodeFilters, CodeNeedlessFilter, CodeUnknownName, CodeUnsupported, CodeOrderByIn, CodeInvalid, CodeIndexFilters, CodeDuplicateName}
	list := Codes()
	if len(list) != len(all) {
		t.Fatalf("Codes() has %d entries, want %d", len(list), len(all))
	}
	for i, c := range list {
		if c.Code != all[i] || c.Summary == "" {
			t.Errorf("Codes()[%d] = %+v, want code %s with a summary", i, c, all[i])
		}
	}
}

// rowsOf is a TableRows that gives every table n rows, as a workload would.
func rowsOf(n float64) func(*cql.Table) (float64, string, bool) {
	return func(*cql.Table) (float64, string, bool) { return n, "the workload says so", true }
}
