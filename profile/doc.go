// Package profile measures tables that already hold data, so their sizing rests on what the
// cluster stores rather than on a workload someone guessed. It samples each table across the
// token ring (whole partitions, rate-limited, paged), measures rows per partition, value sizes,
// null fractions, collection items, TTLs and write times, fits key skew, and writes a workload
// file that `cqlsize estimate` reads unchanged.
//
// The statistics, the skew fit, the workload writer and the growth projection are pure (no
// driver in their files) and tested with table tests; run.go and partitions.go talk to the
// cluster.
package profile
