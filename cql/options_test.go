package cql_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

const optionsCorpus = "testdata/options/corpus.cql"

// corpusCase is one statement of a node-checked corpus (options, DML) with what a 5.0 node
// does with it.
type corpusCase struct {
	stmt   cql.Statement
	accept bool
	note   string
}

// readOptionsCorpus parses the options corpus.
func readOptionsCorpus(t *testing.T) []corpusCase { return readCorpus(t, optionsCorpus) }

// readCorpus parses a corpus file: every statement has a "-- ok: ..." or "-- refused: ..."
// comment right above it saying what a 5.0 node does with it.
func readCorpus(t *testing.T, path string) []corpusCase {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cql.ParseFile(path, src)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusCase
	for _, st := range stmts {
		lines := strings.Split(strings.TrimSpace(st.Info().Doc), "\n")
		last := strings.TrimSpace(strings.TrimPrefix(lines[len(lines)-1], "--"))
		switch {
		case strings.HasPrefix(last, "ok:"):
			out = append(out, corpusCase{st, true, strings.TrimSpace(last[3:])})
		case strings.HasPrefix(last, "refused:"):
			out = append(out, corpusCase{st, false, strings.TrimSpace(last[8:])})
		default:
			t.Fatalf("%s: the statement needs a comment \"-- ok: ...\" or \"-- refused: ...\" right above it", st.Info().Pos)
		}
	}
	return out
}

// modelAgrees applies the cases in order to model and holds it to the corpus: accepted
// statements apply, refused ones are refused with a *cql.Error placed inside the statement
// in file. It returns how many were accepted and refused.
func modelAgrees(t *testing.T, model *cql.Schema, cases []corpusCase, file string) (accepted, refused int) {
	t.Helper()
	for _, c := range cases {
		info := c.stmt.Info()
		err := model.Apply(c.stmt)
		switch {
		case c.accept && err != nil:
			t.Errorf("%s (%s): the model refuses what 5.0 accepts: %v", info.Pos, c.note, err)
		case !c.accept && err == nil:
			t.Errorf("%s (%s): the model accepts what 5.0 refuses:\n%s", info.Pos, c.note, info.Text)
		case !c.accept:
			refused++
			var e *cql.Error
			if !errors.As(err, &e) {
				t.Errorf("%s: error %v is not a *cql.Error with a position", info.Pos, err)
				continue
			}
			if e.Pos.File != file || e.Pos.Line < info.Pos.Line || e.Pos.Line > info.End.Line {
				t.Errorf("%s: error at %s, outside the statement: %v", info.Pos, e.Pos, err)
			}
		default:
			accepted++
		}
	}
	return accepted, refused
}

// newOptionsModel is a schema with the keyspace the corpus runs in.
func newOptionsModel(t *testing.T, ks string) *cql.Schema {
	t.Helper()
	model := cql.NewSchema()
	header := fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; USE %s;", ks, ks)
	if err := model.ApplyFile("header.cql", []byte(header)); err != nil {
		t.Fatal(err)
	}
	return model
}

// TestOptionsCorpus checks the model against what the corpus says a 5.0 node does (which
// TestOptionsCorpusAgainstCassandra checks on a node): every accepted statement applies,
// every refused one is refused with a position inside the statement.
func TestOptionsCorpus(t *testing.T) {
	cases := readOptionsCorpus(t)
	if len(cases) < 60 {
		t.Fatalf("the options corpus has %d statements, want at least 60", len(cases))
	}
	_, refused := modelAgrees(t, newOptionsModel(t, "opts"), cases, optionsCorpus)
	t.Logf("%d statements: %d accepted, %d refused", len(cases), len(cases)-refused, refused)
}

// TestOptionsErrorsNameTheSubOption checks that a refused sub-option is reported at its
// own value, not at the start of the map, and that the message says what 5.0 accepts.
func TestOptionsErrorsNameTheSubOption(t *testing.T) {
	tests := []struct {
		stmt, want string
	}{
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {\n  'class': 'TimeWindowCompactionStrategy',\n  'compaction_window_unit': '${unit}'}",
			`f.cql:3:29: compaction sub-option compaction_window_unit: "${unit}" is not a window unit: 5.0 accepts MINUTES, HOURS or DAYS (upper case)`},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'max_sstable_age_days': '10'}",
			"f.cql:1:96: compaction sub-option max_sstable_age_days is not understood by TimeWindowCompactionStrategy (a DateTieredCompactionStrategy option"},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'foo': 'bar'}",
			"f.cql:1:96: compaction sub-option foo is not understood by SizeTieredCompactionStrategy; 5.0 accepts bucket_high, bucket_low, class, enabled"},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': '12'}",
			"f.cql:1:104: compression sub-option chunk_length_in_kb: must be a power of 2 (got 12)"},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH caching = {'keys': 'SOME'}",
			`f.cql:1:60: caching sub-option keys: must be 'ALL' or 'NONE', not "SOME"`},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {'class': 'DateTieredCompactionStrategy'}",
			"f.cql:1:64: compaction sub-option class: DateTieredCompactionStrategy was removed in Cassandra 5.0"},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH speculative_retry = '50s'",
			"f.cql:1:61: invalid value '50s' for speculative_retry: 5.0 accepts NEVER, NONE, ALWAYS"},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH dclocal_read_repair_chance = 0.1",
			"f.cql:1:41: table property dclocal_read_repair_chance was removed in Cassandra 4.0"},
	}
	for _, tt := range tests {
		model := newOptionsModel(t, "ks")
		err := model.ApplyFile("f.cql", []byte(tt.stmt))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s\n error %v\n want  %s...", tt.stmt, err, tt.want)
		}
	}
}
