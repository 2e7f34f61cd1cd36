package profile

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"
)

// sizeEstimates sums system.size_estimates for a table over the ranges the answering node
// records (its primary ranges), so on one node it is the whole table, flushed data only.
func sizeEstimates(ctx context.Context, s *gocql.Session, ks, table string) (float64, error) {
	iter := s.Query(`SELECT partitions_count FROM system.size_estimates WHERE keyspace_name = ? AND table_name = ?`, ks, table).
		WithContext(ctx).Consistency(gocql.One).Iter()
	var n int64
	var total float64
	for iter.Scan(&n) {
		total += float64(n)
	}
	if err := iter.Close(); err != nil {
		return 0, fmt.Errorf("read system.size_estimates for %s.%s: %w", ks, table, err)
	}
	return total, nil
}
