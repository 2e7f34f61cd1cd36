// Package workload is the workload file cqlsize estimates from: per table, how many
// partitions, how many rows or how fast they arrive, how big the values, how many nulls,
// deletes and overwrites, how skewed the keys. It holds the file's types, its quantities
// (counts, fractions, durations, rates, bucket spans), the YAML reader (Load, Parse), the
// checks a workload passes on its own and against a schema, and what a declared Zipf skew
// means for the key of each rank.
//
// It is a package of its own so a tool can read, write or check a workload without the byte
// model, and the byte model (package sizing) imports it, not the reverse. It imports no
// driver.
package workload
