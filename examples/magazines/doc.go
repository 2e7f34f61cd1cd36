// Package magazines is the design notes' magazine example: a magazine written to
// magazines_by_id and magazines_by_publisher with cql/denorm, so Q1 and Q2 are each served
// by one partition. Its test runs against a real Cassandra node.
package magazines
