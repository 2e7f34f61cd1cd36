// Package accuracy checks the sizing model against a real Cassandra 5.0 node: for each
// reference workload it writes exactly the declared data, flushes and compacts the table,
// reads every partition's size, rows, cells and tombstones with sstablepartitions, and sets
// them beside the model's estimate and the classic formula's.
//
// It is the acceptance test of the sizing package (go test ./internal/accuracy: within 10% on
// every reference workload) and the source of the accuracy table in the README
// (go run ./internal/accuracy/cmd). It needs the node scripts/cassandra runs on this machine,
// because it reads the node's sstables.
package accuracy
