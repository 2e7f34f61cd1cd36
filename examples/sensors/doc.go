// Package sensors is the design notes' time-series example: readings written to a
// sensor-and-day table and a latest-reading table with cql/denorm in concurrent mode, each
// with its reading time as the write timestamp (Mappings, Store.Record), and read back as
// the latest reading (Store.Latest), a day's readings since a moment (Store.Since) and a
// history across days (the History timeline). It imports only public packages, so it can
// be copied into a service; its tests run against a real Cassandra node.
package sensors
