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
//
// What is exact and what is not (cluster_test.go checks each on a real node): counts of row,
// range, cell, element, null and expired tombstones per read, per page and on disk after a
// flush are exact for deletions at the head or the tail of a read and for cells on every
// row; deletions scattered among the rows give the expected count, within one gap between
// live rows of the real layout. Two adjacent range deletions share a bound (3 markers, not
// 4): the model counts 2 a range, an upper bound. On disk it counts what a flushed or fully
// compacted partition holds; compaction may keep tombstones longer than gc_grace_seconds
// plus Compaction.Linger, so OnDisk is a lower bound.
package tombstone
