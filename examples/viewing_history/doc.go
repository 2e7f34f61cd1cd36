// Package viewinghistory is the design notes' Netflix viewing history: plays written to a
// month-bucketed, TTL'd, TimeWindowCompactionStrategy history and to a per-show progress
// table with cql/denorm. Its test runs against a real Cassandra node.
package viewinghistory
