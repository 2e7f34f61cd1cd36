// Package magazines is the design notes' magazine example: a magazine written to
// magazines_by_id and magazines_by_publisher with cql/denorm (Mappings, Store.Add), so Q1
// (Store.ByID) and Q2 (Store.OfPublisher) are each served by one partition, and a change of
// publisher moves its row in the same batch (Store.Update). It imports only public
// packages, so it can be copied into a service; its tests run against a real Cassandra
// node.
package magazines
