package extest

import (
	"context"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/ringtest"
)

// RingKeyspace takes the 3-node fault ring for t alone (skipping without it, or failing
// when CQLSIZE_REQUIRE_RING=1), creates a keyspace of replication factor rf there, applies
// dir's migrations and waits until every node agrees on them. It returns a session on the
// keyspace, its name, and the ring's connection settings for a service of its own.
// The examples reach the project's ring control only through here, so an example's own
// code imports public packages alone.
func RingKeyspace(t testing.TB, rf int, dir string) (*gocql.Session, string, connect.Config) {
	t.Helper()
	ringtest.Hosts(t)
	ringtest.Lock(t)
	s, ks := ringtest.Keyspace(t, rf)
	Migrate(t, s, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	if err := s.AwaitSchemaAgreement(ctx); err != nil {
		t.Fatal(err)
	}
	return s, ks, ringtest.Config(t)
}

// RingKillFor SIGKILLs ring node n, leaves it down for d and starts it again. It returns
// when the kill was sent and when the node answered CQL again.
func RingKillFor(t testing.TB, n int, d time.Duration) (killed, up time.Time) {
	t.Helper()
	killed = time.Now()
	ringtest.Kill(t, n)
	time.Sleep(d)
	ringtest.Start(t, n)
	return killed, time.Now()
}
