package migrations_test

import (
	"fmt"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

// TestUpRunsUseByQualifying: on the node, a file that creates a second keyspace, USEs it
// and creates a table there lands that table (and its row) in the second keyspace, and the
// next file's table in the target keyspace.
func TestUpRunsUseByQualifying(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	other := ks + "_use"
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + other).Exec() })
	migs := load(t, map[string]string{
		"0001_a.cql": fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"+
			"USE %s;\nCREATE TABLE t (k int PRIMARY KEY);\nINSERT INTO t (k) VALUES (7);\n", other, other),
		"0002_b.cql": "CREATE TABLE u (k int PRIMARY KEY);\n",
	})
	m, _ := newMigrator(t, s, ks, migs, migrations.Options{})
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	var k int
	if err := s.Query("SELECT k FROM " + other + ".t").WithContext(ctx).Scan(&k); err != nil || k != 7 {
		t.Fatalf("want the row k=7 in %s.t, got %d, %v", other, k, err)
	}
	for _, tc := range []struct{ ks, table string }{{other, "t"}, {ks, "u"}} {
		n := 0
		if err := s.Query("SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", tc.ks, tc.table).WithContext(ctx).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("table %s.%s: want it on the node, found %d", tc.ks, tc.table, n)
		}
	}
}
