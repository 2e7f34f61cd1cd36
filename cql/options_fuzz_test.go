package cql

import "testing"

// FuzzApplyOptions applies any input to a schema that has a keyspace: the option checks
// must never panic, and every refusal must carry a valid position in the input (an option
// error points at the sub-option it is about).
func FuzzApplyOptions(f *testing.F) {
	seedFuzz(f)
	for _, s := range []string{
		"CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {'class': 'LeveledCompactionStrategy', 'fanout_size': '2147483647'}",
		"CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'T99999999999'}",
		"CREATE TABLE t (k int PRIMARY KEY) WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': '-2147483648'}",
		"CREATE TABLE t (k int PRIMARY KEY) WITH speculative_retry = 'MIN(.p,.ms)'",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		stmts, err := ParseFile("f.cql", src)
		if err != nil {
			return
		}
		s := NewSchemaIn("ks")
		for _, st := range stmts {
			checkErr(t, src, s.Apply(st))
		}
	})
}
