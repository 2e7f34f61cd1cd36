package migrations_test

import (
	"context"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

// BenchmarkUpToDate is what every instance pays at start-up when nothing is pending: the
// bookkeeping tables are checked and read, and no lock is taken.
//
//	CASSANDRA_HOSTS=127.0.0.1 go test -run '^$' -bench UpToDate ./migrations
func BenchmarkUpToDate(b *testing.B) {
	s, ks := cassandratest.Keyspace(b)
	ctx := context.Background()
	migs, err := migrations.LoadDir("testdata/set")
	if err != nil {
		b.Fatal(err)
	}
	m, err := migrations.New(s, migs, migrations.Options{Keyspace: ks})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.Baseline(ctx, migs[len(migs)-1].Version); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := m.Up(ctx)
		if err != nil || len(res.Applied) != 0 {
			b.Fatalf("%+v, %v", res, err)
		}
	}
}

// BenchmarkLockCycle takes and releases the lease, two lightweight transactions (INSERT
// ... IF NOT EXISTS, DELETE ... IF owner), around a read of the bookkeeping: what Baseline
// of an already-baselined version does.
//
//	CASSANDRA_HOSTS=127.0.0.1 go test -run '^$' -bench LockCycle ./migrations
func BenchmarkLockCycle(b *testing.B) {
	s, ks := cassandratest.Keyspace(b)
	ctx := context.Background()
	migs, err := migrations.LoadDir("testdata/set")
	if err != nil {
		b.Fatal(err)
	}
	m, err := migrations.New(s, migs, migrations.Options{Keyspace: ks})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.Baseline(ctx, 1); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Baseline(ctx, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadSet lexes, parses and checksums the 22-file test set.
//
//	go test -run '^$' -bench LoadSet ./migrations
func BenchmarkLoadSet(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := migrations.LoadDir("testdata/set"); err != nil {
			b.Fatal(err)
		}
	}
}
