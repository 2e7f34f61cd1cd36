package check

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/golden"
)

// update is -update (internal/golden): it also re-records the node's answers below.
var update = golden.Update

const (
	corpusDir     = "testdata/corpus"
	verdictsFile  = "verdicts.golden"
	verdictHeader = `# What Apache Cassandra 5.0 answered to each query of queries.cql (schema.cql applied to a
# fresh keyspace, every bind marker bound to a value of its type, the driver's default paging).
# Recorded by TestCorpusAgainstCassandra; rewrite with:
#   CASSANDRA_HOSTS=127.0.0.1 go test ./cql/check -run TestCorpusAgainstCassandra -update
#
# name | verdict as written | verdict with ALLOW FILTERING toggled (added when absent, removed
# when present) | the server's message for the query as written, <ks> standing for the keyspace;
# an indented "toggled:" line gives the message for the toggled query when it differs.
# Verdicts: ok, filtering (rejected; the message asks for ALLOW FILTERING), invalid (rejected
# for any other reason). An indented "index:" line names the secondary index the node read
# (from the query's trace: "Index mean cardinalities are ... Scanning with ..."), for the
# form of the query that runs; "one of a, b" when the node's estimates tie and it may read
# either.
`
)

// TestCorpusAgainstCassandra runs every corpus query on the real node and compares what it
// says with verdicts.golden, so the golden file the checker is judged against is always
// what Cassandra 5.0 really does.
func TestCorpusAgainstCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test")
	}
	start := time.Now()
	s, ks := cassandratest.Keyspace(t)
	schema, err := os.ReadFile(filepath.Join(corpusDir, "schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cql.ParseFile("schema.cql", schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		switch st.(type) {
		case *cql.CreateKeyspace, *cql.Use:
			continue // the test's own keyspace stands in for it
		}
		cassandratest.DDL(t, s, ks, st.Info().Text)
	}
	t.Logf("schema applied after %v", time.Since(start))
	queries, err := LoadQueries(filepath.Join(corpusDir, "queries.cql"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []verdictRecord
	for _, q := range queries {
		v, msg := runVerdict(t, s, q.Text)
		fv, fmsg := runVerdict(t, s, toggleAllowFiltering(q.Text))
		// Which index the node reads, for the form of the query it runs.
		var index string
		switch {
		case v == "ok":
			index = tracedIndex(t, s, q.Text)
		case fv == "ok":
			index = tracedIndex(t, s, toggleAllowFiltering(q.Text))
		}
		recs = append(recs, verdictRecord{Name: q.Name, Verdict: v, Toggled: fv, Index: index,
			Message: strings.ReplaceAll(msg, ks, "<ks>"), ToggledMessage: strings.ReplaceAll(fmsg, ks, "<ks>")})
	}
	t.Logf("queries run after %v", time.Since(start))
	got := formatVerdicts(recs)
	path := filepath.Join(corpusDir, verdictsFile)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if want, err := os.ReadFile(path); err != nil {
		t.Errorf("%v (run with -update to record it)", err)
	} else if got != string(want) {
		t.Errorf("Cassandra's answers differ from %s (run with -update to accept them):\n%s", path, lineDiff(string(want), got))
	}
	t.Run("suggestions", func(t *testing.T) { checkSuggestions(t, s) })
}

// runVerdict executes stmt (prepared, every marker bound) and classifies the answer.
func runVerdict(t *testing.T, s *gocql.Session, stmt string) (verdict, msg string) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		err := s.Bind(stmt, bindValues).Exec()
		if err == nil {
			return "ok", ""
		}
		var reqErr gocql.RequestError
		if !errors.As(err, &reqErr) {
			t.Fatalf("%s: not an answer from the server: %v", stmt, err)
		}
		msg = reqErr.Message()
		// A fresh SAI index may still be building on a busy node; wait for it.
		if strings.Contains(msg, "not yet available") || strings.Contains(msg, "is not queryable") {
			if attempt < 60 {
				time.Sleep(500 * time.Millisecond)
				continue
			}
		}
		if reqErr.Code() != gocql.ErrCodeInvalid && reqErr.Code() != gocql.ErrCodeSyntax {
			t.Fatalf("%s: unexpected error code 0x%04x: %s", stmt, reqErr.Code(), msg)
		}
		if strings.Contains(msg, "use ALLOW FILTERING") {
			return "filtering", msg
		}
		return "invalid", msg
	}
}

// toggleAllowFiltering removes a trailing ALLOW FILTERING, or appends one.
func toggleAllowFiltering(stmt string) string {
	trimmed := strings.TrimSpace(stmt)
	fields := strings.Fields(trimmed)
	if n := len(fields); n >= 2 && strings.EqualFold(fields[n-2], "allow") && strings.EqualFold(fields[n-1], "filtering") {
		upper := strings.ToUpper(trimmed)
		return strings.TrimSpace(trimmed[:strings.LastIndex(upper, "ALLOW")])
	}
	return trimmed + " ALLOW FILTERING"
}

// rawValue is a value already in its serialized form.
type rawValue []byte

func (r rawValue) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

// bindValues gives every bind marker a valid value of its type. The values do not matter
// to the verdict: Cassandra checks restrictions when it prepares the statement.
func bindValues(q *gocql.QueryInfo) ([]interface{}, error) {
	out := make([]interface{}, len(q.Args))
	for i, a := range q.Args {
		v, err := sampleValue(a.TypeInfo, i)
		if err != nil {
			return nil, fmt.Errorf("bind marker %d (%s): %w", i+1, a.Name, err)
		}
		out[i] = v
	}
	return out, nil
}

func sampleValue(ti gocql.TypeInfo, i int) (interface{}, error) {
	switch ti.Type() {
	case gocql.TypeInt:
		return int32(i + 1), nil
	case gocql.TypeBigInt, gocql.TypeCounter:
		return int64(i), nil
	case gocql.TypeSmallInt:
		return int16(i + 1), nil
	case gocql.TypeTinyInt:
		return int8(i + 1), nil
	case gocql.TypeVarchar, gocql.TypeText, gocql.TypeAscii:
		return fmt.Sprintf("v%d", i), nil
	case gocql.TypeBlob:
		return []byte{byte(i)}, nil
	case gocql.TypeBoolean:
		return true, nil
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		return gocql.TimeUUID(), nil
	case gocql.TypeTimestamp, gocql.TypeDate:
		return time.Date(2025, 1, 15, i, 0, 0, 0, time.UTC), nil
	case gocql.TypeDouble:
		return float64(i) + 0.5, nil
	case gocql.TypeFloat:
		return float32(i) + 0.5, nil
	case gocql.TypeDecimal:
		return rawValue{0, 0, 0, 0, byte(i + 1)}, nil // scale 0, unscaled i+1
	case gocql.TypeVarint:
		return rawValue{byte(i + 1)}, nil
	case gocql.TypeList, gocql.TypeSet:
		ct := ti.(gocql.CollectionType)
		a, err := sampleValue(ct.Elem, i)
		if err != nil {
			return nil, err
		}
		b, _ := sampleValue(ct.Elem, i+1)
		return []interface{}{a, b}, nil
	case gocql.TypeMap:
		ct := ti.(gocql.CollectionType)
		k, err := sampleValue(ct.Key, i)
		if err != nil {
			return nil, err
		}
		v, err := sampleValue(ct.Elem, i)
		if err != nil {
			return nil, err
		}
		m := map[interface{}]interface{}{k: v}
		return m, nil
	case gocql.TypeTuple:
		tt := ti.(gocql.TupleTypeInfo)
		vals := make([]interface{}, len(tt.Elems))
		for j, e := range tt.Elems {
			v, err := sampleValue(e, i+j)
			if err != nil {
				return nil, err
			}
			vals[j] = v
		}
		return vals, nil
	}
	return nil, fmt.Errorf("no sample value for type %s", ti.Type())
}

// verdictRecord is one line of verdicts.golden.
type verdictRecord struct {
	Name    string
	Verdict string // ok, filtering, invalid
	Toggled string // the verdict with ALLOW FILTERING toggled
	Message string
	// ToggledMessage is the server's message for the toggled query, when it differs from
	// Message; it is written on a continuation line.
	ToggledMessage string
	// Index is the index the node read for the form of the query that runs (as written
	// when it runs, else toggled): empty when none.
	Index string
}

func formatVerdicts(recs []verdictRecord) string {
	var b strings.Builder
	b.WriteString(verdictHeader)
	for _, r := range recs {
		line := fmt.Sprintf("%-45s %-9s %-9s %s", r.Name, r.Verdict, r.Toggled, r.Message)
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
		if r.ToggledMessage != "" && r.ToggledMessage != r.Message {
			fmt.Fprintf(&b, "    toggled: %s\n", r.ToggledMessage)
		}
		if r.Index != "" {
			fmt.Fprintf(&b, "    index: %s\n", r.Index)
		}
	}
	return b.String()
}

// lineDiff lists the lines that differ, for a readable failure.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// checkSuggestions creates every table the checker suggests for the corpus on the real
// node, in the keyspace that holds the corpus schema, and runs the rewritten query against
// it; queries pointed to an existing table run against that table. Cassandra must accept
// every table and every query without ALLOW FILTERING.
func checkSuggestions(t *testing.T, s *gocql.Session) {
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
	created := map[string]string{} // CREATE TABLE text -> the name it was created under
	n := 0
	existing := 0
	for _, r := range results {
		if r.ExistingTable != "" {
			if v, msg := runVerdict(t, s, r.SuggestedQuery); v != "ok" {
				t.Errorf("%s: Cassandra answers %s to the query rewritten for %s: %q: %s", r.Query.Name, v, r.ExistingTable, r.SuggestedQuery, msg)
			}
			existing++
		}
		if r.SuggestedTable == "" {
			continue
		}
		name, ok := created[r.SuggestedTable]
		if !ok {
			// Two queries may get tables with the same name and different keys: give each
			// design a name of its own on the node.
			name = fmt.Sprintf("s%d", len(created)+1)
			ddl := strings.Replace(r.SuggestedTable, "CREATE TABLE IF NOT EXISTS ", "CREATE TABLE IF NOT EXISTS "+name+"_", 1)
			if err := s.Query(ddl).Exec(); err != nil {
				t.Errorf("%s: Cassandra rejects the suggested table: %v\n%s", r.Query.Name, err, ddl)
				continue
			}
			created[r.SuggestedTable] = name
		}
		query := strings.Replace(r.SuggestedQuery, " FROM ", " FROM "+name+"_", 1)
		if v, msg := runVerdict(t, s, query); v != "ok" {
			t.Errorf("%s: Cassandra answers %s to the rewritten query %q: %s", r.Query.Name, v, query, msg)
		}
		n++
	}
	if n < 20 {
		t.Errorf("only %d suggestions in the corpus; the test proves little", n)
	}
	if existing == 0 {
		t.Error("no corpus query is pointed to an existing table")
	}
	t.Logf("%d suggested tables (%d distinct) and %d existing tables, every rewritten query accepted", n, len(created), existing)
}

// idTracer keeps the trace id of the query it traces.
type idTracer struct{ id []byte }

func (t *idTracer) Trace(id []byte) { t.id = append([]byte(nil), id...) }

// tracedIndex runs stmt with tracing on and returns the index the node read for it, from
// the trace event "Index mean cardinalities are A:0,B:0. Scanning with A."; empty when
// the node read no index.
func tracedIndex(t *testing.T, s *gocql.Session, stmt string) string {
	t.Helper()
	tr := &idTracer{}
	if err := s.Bind(stmt, bindValues).Trace(tr).Exec(); err != nil {
		t.Fatalf("%s: traced run: %v", stmt, err)
	}
	if tr.id == nil {
		t.Fatalf("%s: the node returned no trace id", stmt)
	}
	// The node writes the trace asynchronously: wait for the session to record its
	// duration, then for the events to stop coming.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var dur int
		err := s.Query(`SELECT duration FROM system_traces.sessions WHERE session_id = ?`, tr.id).Scan(&dur)
		if err == nil && dur > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: trace %x not complete after 30 s (last error: %v)", stmt, tr.id, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var activities []string
	for last := -1; ; {
		activities = activities[:0]
		iter := s.Query(`SELECT activity FROM system_traces.events WHERE session_id = ?`, tr.id).Iter()
		var a string
		for iter.Scan(&a) {
			activities = append(activities, a)
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("%s: read trace events: %v", stmt, err)
		}
		if len(activities) == last {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: trace %x events still coming after 30 s", stmt, tr.id)
		}
		last = len(activities)
		time.Sleep(50 * time.Millisecond)
	}
	for _, a := range activities {
		if strings.HasPrefix(a, indexChoicePrefix) {
			index, err := parseIndexChoice(a)
			if err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
			return index
		}
	}
	return ""
}
