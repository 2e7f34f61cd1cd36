package liveschema_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
)

func TestTorn(t *testing.T) {
	whole := func() *cql.Schema {
		s := cql.NewSchema()
		err := s.ApplyFile("t.cql", []byte(`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE ks.a (k int PRIMARY KEY, v text);
CREATE MATERIALIZED VIEW ks.a_by_v AS SELECT k, v FROM ks.a WHERE k IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, k);`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		tear  func(*cql.Schema)
		wants string
	}{
		{"whole", func(*cql.Schema) {}, ""},
		{"empty keyspace", func(s *cql.Schema) {
			s.Keyspaces["ks"].Tables = map[string]*cql.Table{}
			s.Keyspaces["ks"].Views = map[string]*cql.View{}
		}, ""},
		{"table without columns", func(s *cql.Schema) {
			s.Keyspaces["ks"].Tables["b"] = &cql.Table{Keyspace: "ks", Name: "b"}
		}, "table ks.b without a partition key column"},
		{"view without columns", func(s *cql.Schema) {
			s.Keyspaces["ks"].Views["a_by_v"].Table = &cql.Table{Keyspace: "ks", Name: "a_by_v"}
		}, "view ks.a_by_v without a partition key column"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := whole()
			tc.tear(s)
			if got := liveschema.Torn(s); got != tc.wants {
				t.Errorf("Torn = %q, want %q", got, tc.wants)
			}
		})
	}
}

// TestReadWhileTablesComeAndGo reads the keyspace on the node while another session
// creates and drops tables in it: a read that straddles a change sees a table row without
// its columns, and Read must never return such a schema (an independent check: every
// table it returns has a partition key column), nor fail while the changes go on at this pace.
func TestReadWhileTablesComeAndGo(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var changes atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load() && i < 30; i++ {
			name := fmt.Sprintf("t%02d", i%6)
			for _, stmt := range []string{
				fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (k int, c int, v text, PRIMARY KEY (k, c))", ks, name),
				fmt.Sprintf("DROP TABLE IF EXISTS %s.%s", ks, name),
			} {
				if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
					t.Errorf("%s: %v", stmt, err)
					return
				}
				changes.Add(1)
			}
		}
	}()
	reads := 0
	for changes.Load() < 40 && ctx.Err() == nil {
		got, err := liveschema.Read(ctx, s, ks)
		if err != nil {
			stop.Store(true)
			t.Fatalf("read %d: %v", reads+1, err)
		}
		reads++
		for name, tb := range got.Keyspaces[ks].Tables {
			if len(tb.PartitionKey) == 0 || len(tb.Columns) < 3 {
				stop.Store(true)
				t.Fatalf("read %d returned table %s with columns %d, partition key %d", reads, name, len(tb.Columns), len(tb.PartitionKey))
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d reads during %d schema changes, none torn", reads, changes.Load())
}
