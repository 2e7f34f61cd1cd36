package check_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/check"
)

// TestRejectionANN: a vector search needs an SAI index on the vector and a LIMIT of at most
// 1000, and no restriction of the partition key (the index answers across partitions).
func TestRejectionANN(t *testing.T) {
	s := cql.NewSchemaIn("app")
	schema := `CREATE TABLE e (id int PRIMARY KEY, v vector<float, 2>, w vector<float, 2>, n int);
CREATE INDEX e_v ON e (v) USING 'sai';
CREATE INDEX e_w ON e (w);`
	if err := s.ApplyFile("s.cql", []byte(schema)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, want string }{ // want "" when the node runs it
		{"SELECT id FROM e ORDER BY v ANN OF [1.0, 2.0] LIMIT 10", ""},
		{"SELECT id FROM e ORDER BY v ANN OF [1.0, 2.0] LIMIT 1000", ""},
		{"SELECT id FROM e ORDER BY v ANN OF [1.0, 2.0]", "requires a LIMIT that is not greater than 1000. LIMIT was NO LIMIT"},
		{"SELECT id FROM e ORDER BY v ANN OF [1.0, 2.0] LIMIT 1001", "LIMIT was 1001"},
		{"SELECT id FROM e ORDER BY w ANN OF [1.0, 2.0] LIMIT 5", "needs a storage-attached index on w"},
		{"SELECT id FROM e ORDER BY n ANN OF [1.0, 2.0] LIMIT 5", "only supported on float vector indexes"},
		{"SELECT id FROM e ORDER BY v ANN OF [1.0, 2.0, 3.0] LIMIT 5", "expected 2 elements, but given 3"},
		// Not a vector search: a clustering order needs the partition key restricted.
		{"SELECT id FROM e ORDER BY n DESC", "ORDER BY is only supported when the partition key is restricted"},
	} {
		st, err := cql.Parse("q.cql", []byte(tc.q))
		if err != nil {
			t.Fatal(err)
		}
		err = check.Rejection(s, st.(*cql.Select))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: the node runs it, Rejection says %v", tc.q, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: want %q, got %v", tc.q, tc.want, err)
		}
	}
}
