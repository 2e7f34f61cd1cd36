package cql_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// The schema rules of each release, statement by statement. Each rule's source: 4.1's
// CompressionParams.fromMap reads sstable_compression, chunk_length_kb and crc_check_chance
// (deprecated, with a warning) and 5.0 refuses them (the 5.0.9 dev node: "Missing sub-option
// 'class'", "Unknown compression options"); DTCS was removed by CASSANDRA-18043 in 5.0; UCS
// (CEP-26), SAI (CEP-7), vector types (CEP-30) and dynamic data masking (CEP-20) are new in
// 5.0. The 5.0 refusals are checked on the node by the options and grammar corpora.
func TestReleaseRules(t *testing.T) {
	for _, tc := range []struct {
		stmt       string
		on50, on41 string // "" accepted, else a substring of the refusal
	}{
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compression = {'sstable_compression': 'LZ4Compressor'}", "sstable_compression is the legacy name of 'class', removed in Cassandra 5.0", ""},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compression = {'class': 'LZ4Compressor', 'chunk_length_kb': 64}", "legacy name of 'chunk_length_in_kb'", ""},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compression = {'class': 'LZ4Compressor', 'crc_check_chance': 0.5}", "crc_check_chance is a table option now", ""},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {'class': 'DateTieredCompactionStrategy'}", "removed in Cassandra 5.0", ""},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {'class': 'UnifiedCompactionStrategy'}", "", "UnifiedCompactionStrategy is new in Cassandra 5.0"},
		{"CREATE TABLE t (k int PRIMARY KEY, v vector<float, 3>)", "", "vector types are new in Cassandra 5.0"},
		{"CREATE TABLE t (k int PRIMARY KEY, v text MASKED WITH DEFAULT)", "", "dynamic data masking"},
		{"CREATE TYPE u (v vector<float, 2>)", "", "vector types are new"},
		{"CREATE TABLE t (k int PRIMARY KEY) WITH read_repair_chance = 0.1", "removed in Cassandra 4.0", "removed in Cassandra 4.0"},
	} {
		for _, rel := range []struct {
			r    cql.Release
			want string
		}{{cql.Release50, tc.on50}, {cql.Release41, tc.on41}} {
			s := cql.NewSchemaIn("ks")
			s.Release = rel.r
			err := s.ApplyFile("f.cql", []byte(tc.stmt))
			switch {
			case rel.want == "" && err != nil:
				t.Errorf("%q on %q: refused: %v", rel.r, tc.stmt, err)
			case rel.want != "" && (err == nil || !strings.Contains(err.Error(), rel.want)):
				t.Errorf("%q on %q: %v, want a refusal holding %q", rel.r, tc.stmt, err, rel.want)
			}
		}
	}
	// An SAI index needs a table first.
	s := cql.NewSchemaIn("ks")
	s.Release = cql.Release41
	err := s.ApplyFile("f.cql", []byte("CREATE TABLE t (k int PRIMARY KEY, v text); CREATE CUSTOM INDEX ON t (v) USING 'StorageAttachedIndex';"))
	if err == nil || !strings.Contains(err.Error(), "SAI) is new in Cassandra 5.0") {
		t.Errorf("SAI on 4.1: %v", err)
	}
}
