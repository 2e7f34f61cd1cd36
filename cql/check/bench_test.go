package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// BenchmarkCheckCorpus checks every corpus query (parsed once) against the corpus schema.
// ns/op divided by the number of queries is the cost of judging one query.
func BenchmarkCheckCorpus(b *testing.B) {
	schema, err := cql.LoadSchema(filepath.Join(corpusDir, "schema.cql"))
	if err != nil {
		b.Fatal(err)
	}
	queries, err := LoadQueries(filepath.Join(corpusDir, "queries.cql"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Check(schema, queries, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(queries)), "ns/query")
}

// BenchmarkParseQueries reads the corpus queries file (204 named SELECTs).
func BenchmarkParseQueries(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(corpusDir, "queries.cql"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseQueries("queries.cql", src); err != nil {
			b.Fatal(err)
		}
	}
}
