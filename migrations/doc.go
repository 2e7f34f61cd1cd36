// Package migrations applies versioned .cql files to a Cassandra cluster so that every
// instance of a service can run them at start-up, deploys may overlap, and a run killed
// halfway through a file is finished by the next one without applying anything twice.
//
// Files (0001_create_users.cql, ... in a folder or an embed.FS; golang-migrate's
// 1_create_users.up.cql too, its .down.cql files left out) are split with the cql lexer
// and parsed before anything runs; LoadSet returns them with the schema model they
// produce, from the same parse. A folder with no migration is an error, so a deploy
// pointed at the wrong one fails instead of applying nothing. A cluster-wide lease taken
// with a lightweight transaction serializes runs; a bookkeeping table records each file's
// checksum and each statement's progress; and the runner waits for schema agreement after
// every DDL statement. A history whose first statement creates the target keyspace runs
// it first, before the bookkeeping that lives there. Adopt takes over the history that
// golang-migrate, gocqlx/migrate or Flyway kept in the keyspace.
package migrations
