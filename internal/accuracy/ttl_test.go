package accuracy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/sizing"
)

// TestTTLLimitMatchesCassandra checks sizing's 2038 expiry limit (SZ006) against the node: a
// TTL a minute short of sizing.MaxExpiry2038 is accepted, a minute past it rejected.
func TestTTLLimitMatchesCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("writes to Cassandra; skipped with -short")
	}
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks, `CREATE TABLE t (id int PRIMARY KEY, v int)`)
	// The writes' time starts once the table is there (DDL has its own budget).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	max := int(time.Until(sizing.MaxExpiry2038()).Seconds())
	if err := s.Query(`INSERT INTO t (id, v) VALUES (1, 1) USING TTL ?`, max-60).WithContext(ctx).Exec(); err != nil {
		t.Errorf("TTL %d (expiring a minute before %s): %v", max-60, sizing.MaxExpiry2038(), err)
	}
	err := s.Query(`INSERT INTO t (id, v) VALUES (1, 1) USING TTL ?`, max+60).WithContext(ctx).Exec()
	if err == nil || !strings.Contains(err.Error(), "exceeds maximum supported expiration date") {
		t.Errorf("TTL %d (expiring a minute after %s): %v, want a rejection", max+60, sizing.MaxExpiry2038(), err)
	}
}
