// Package migrations applies versioned .cql files to a Cassandra cluster so that every
// instance of a service can run them at start-up, deploys may overlap, and a run killed
// halfway through a file is finished by the next one without applying anything twice.
//
// Files (0001_create_users.cql, ... in a folder or an embed.FS) are split with the cql
// lexer and parsed before anything runs; a cluster-wide lease taken with a lightweight
// transaction serializes runs; a bookkeeping table records each file's checksum and each
// statement's progress; and the runner waits for schema agreement after every DDL statement.
package migrations
