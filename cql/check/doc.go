// Package check judges the SELECT statements of a service against the schema before they
// reach Cassandra: for each named query it says which table it reads, whether one partition,
// a fan-out over N partitions or only a scan serves it, whether Cassandra 5.0 would reject it
// for needing ALLOW FILTERING or as invalid, and which table would serve it well.
//
// The rules are Cassandra 5.0's own (org.apache.cassandra.cql3.restrictions), checked
// against a real node by the corpus in testdata/corpus. The package imports no driver.
package check
