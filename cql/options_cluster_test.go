package cql_test

import (
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// TestOptionsCorpusAgainstCassandra runs every statement of the options corpus on a real
// Cassandra 5.0 node, which is the truth: the node must do what the corpus says, and the
// model must agree with the node both ways (no false refusal, no false acceptance).
func TestOptionsCorpusAgainstCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	cases := readOptionsCorpus(t)
	nodeAgrees(t, cases)
}

// nodeAgrees runs the cases on a real node, which is the truth: the node must do what the
// corpus says, and the model must agree with the node both ways (no false refusal, no false
// acceptance).
func nodeAgrees(t *testing.T, cases []corpusCase) {
	t.Helper()
	session, ks := cassandratest.Keyspace(t)
	model := newOptionsModel(t, ks)
	agree, refused := 0, 0
	for _, c := range cases {
		info := c.stmt.Info()
		nodeErr := exec(session, info.Text)
		if noVerdict(nodeErr) {
			t.Fatalf("%s (%s): the node gave no verdict: %v", info.Pos, c.note, nodeErr)
		}
		modelErr := model.Apply(c.stmt)
		if (nodeErr == nil) != c.accept {
			t.Errorf("%s (%s): the corpus says accepted=%v, the node says %v", info.Pos, c.note, c.accept, nodeErr)
		}
		switch {
		case nodeErr == nil && modelErr != nil:
			t.Errorf("%s (%s): false refusal: the node accepts, the model says %v", info.Pos, c.note, modelErr)
		case nodeErr != nil && modelErr == nil:
			t.Errorf("%s (%s): false acceptance: the node refuses (%v), the model accepts", info.Pos, c.note, nodeErr)
		default:
			agree++
		}
		if nodeErr != nil {
			refused++
		}
	}
	t.Logf("%d statements (%d accepted, %d refused by the node): the model agrees with the node on %d",
		len(cases), len(cases)-refused, refused, agree)
}
