// Package lint checks CQL statements, and the schema they produce, for changes that are
// unsafe to deploy or designs that fail in production: destructive DDL, time-series
// tables whose partitions grow forever, secondary indexes on high-cardinality columns,
// ALLOW FILTERING, materialized views, COMPACT STORAGE.
//
// Each analyzer has a stable code (DS101, BK101, ...) that CI output, JSON reports and
// "-- cqlsize:nolint CODE" directives refer to; Analyzers documents them. The package is
// pure: it reads parsed statements and a cql.Schema and never talks to a cluster.
package lint
