// Package tombstone predicts how many tombstones a Cassandra 5.0 partition holds and how many
// a read counts against tombstone_warn_threshold (1000) and tombstone_failure_threshold
// (100000), from a table's write, delete and read pattern, and says which CQL statements
// create tombstones and of what kind.
//
// The read count follows org.apache.cassandra.db.ReadCommand's MetricRecording exactly: +1 per
// non-live cell (a cell tombstone, an element tombstone, an expired cell), +1 per deleted or
// expired row that has no live data and no such cell, +1 per range tombstone marker;
// partition deletions and complex (whole-collection) deletions are not counted, and nothing a
// read could purge (older than gc_grace_seconds) is counted. The package imports no driver.
package tombstone
