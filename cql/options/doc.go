// Package options checks the WITH options of a table or materialized view as Cassandra 5.0
// validates them (TableAttributes, TableParams.validate, CompactionParams,
// CompressionParams, CachingParams and the speculative retry policies), so that a migration
// the node would refuse halfway is refused by the schema model (package cql) before its
// first statement runs. Values are read as the node reads them, with Java's number parsers
// and Cassandra's size and percent parsers.
//
// A refusal is an *Error naming the option and the part of it at fault (its name, its
// value, a sub-option's key or value); package cql turns it into a file:line:col error.
// Every rule was checked against a 5.0.9 node: cql/testdata/options/corpus.cql holds one
// statement per rule, accepted and refused, and TestOptionsCorpusAgainstCassandra in
// package cql runs it on the node.
package options
