// Package sizing predicts how big a table's partitions get: rows, cells and the bytes Cassandra
// 5.0 writes to Data.db for each partition, under a declared workload (how many rows, how fast,
// how big the text, how many nulls and deletes, how skewed the keys).
//
// The byte model follows the BIG "nb" sstable format byte for byte (partition header, rows,
// cells, vint-encoded timestamp deltas) and is checked against a real node by
// internal/accuracy; the classic formula from the Cassandra docs is computed beside it for
// reference. The package imports no driver: the workload it sizes (package workload) comes from
// a YAML file (workload.Load), from the CLI's flags or from code.
package sizing
