// Package cql reads CQL the way Cassandra 5.0 does and models the schema it produces.
//
// The lexer and statement splitter never break on a ';' inside a string, a comment or a
// $$ body, and never drop a statement that follows a comment; every token and error carries
// file:line:col. Applying statements in order (a file, or a folder of migrations) yields a
// Schema: keyspaces, tables with each column's role, type and position, options, indexes,
// views and user types. The package imports no driver, so sizing and linting run without a
// cluster.
package cql
