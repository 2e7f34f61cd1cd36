package migrations_test

import (
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

// A keyspace that asks for more replicas than the cluster has nodes can never reach
// QUORUM: the node's "Cannot achieve consistency level QUORUM" is named as such, with the
// replication and the node count; a keyspace that fits the cluster is left to the retry.
func TestImpossibleQuorumNamesTheReplication(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	if len(cassandratest.Hosts(t)) != 1 {
		t.Skip("needs a one-node cluster: replication factor 3 must exceed the nodes")
	}
	ctx := ctxT(t)
	wide := ks[:len(ks)-4] + "_rf3"
	cassandratest.DDL(t, s, ks,
		"CREATE KEYSPACE IF NOT EXISTS "+wide+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
		"CREATE TABLE IF NOT EXISTS "+wide+".t (k int PRIMARY KEY)",
	)
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + wide).Exec() })
	err := s.Query("SELECT k FROM " + wide + ".t WHERE k = 1").Consistency(gocql.Quorum).Exec()
	if err == nil {
		t.Fatal("QUORUM over replication factor 3 on one node succeeded")
	}
	got := migrations.ImpossibleQuorum(ctx, s, err, ks, wide)
	if got == nil || !strings.Contains(got.Error(), "no retry can fix this: keyspace "+wide+" has replication {'class': 'SimpleStrategy', 'replication_factor': '3'} and the cluster has 1 node(s) for replication factor 3 (a quorum is 2)") {
		t.Fatalf("ImpossibleQuorum(%v) = %v", err, got)
	}
	if got := migrations.ImpossibleQuorum(ctx, s, err, ks); got != nil {
		t.Errorf("a keyspace that fits the cluster was judged impossible: %v", got)
	}
}
