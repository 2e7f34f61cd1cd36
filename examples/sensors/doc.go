// Package sensors is the design notes' time-series example: readings written to a
// sensor-and-day table and a latest-reading table with cql/denorm in concurrent mode, each
// with its reading time as the write timestamp. Its test runs against a real Cassandra node.
package sensors
