// Package disk predicts what a table costs on disk: it lays sampled partitions out as
// Cassandra 5.0 writes them in a BIG "nb" Data.db, compresses that byte stream in chunks with
// the table's own compressor, and adds the other sstable components (index, bloom filter,
// summary, compression offsets, statistics) that "Space used (live)" counts.
//
// Compression depends on the bytes next to each other, not on averages, so the layout is
// built byte for byte from the values the driver returns, and the ratio measured on the
// sample is applied to the table. The package is pure: no driver, no network.
package disk
