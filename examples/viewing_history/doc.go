// Package viewinghistory is the design notes' Netflix viewing history: plays written to a
// month-bucketed, TTL'd, TimeWindowCompactionStrategy history and to a per-show progress
// table with cql/denorm (Mappings, Store.Record), read back as "continue watching"
// (Store.ContinueWatching) and as the whole history across months (the History timeline).
// It imports only public packages, so it can be copied into a service; its tests run
// against a real Cassandra node.
package viewinghistory
