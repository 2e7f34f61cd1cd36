// Package cql reads CQL the way Cassandra 5.0 does and models the schema it produces.
//
// The lexer and statement splitter (Lex, SplitStatements) never break on a ';' inside a
// string, a comment, a $$ body or a BEGIN BATCH ... APPLY BATCH block, and never drop a
// statement that follows a comment; every token, statement and error carries file:line:col.
// Parse and ParseFile turn statements into an AST (*Select, *CreateTable, ...) that keeps
// the position of every name and restriction. Schema.Apply, LoadSchema and LoadSchemaFS
// apply statements in order (a file, or a folder of migrations) the way a 5.0 node would,
// rejecting what it rejects, and yield a Schema: keyspaces, tables with each column's role,
// type and position, options, indexes, views and user types. The package imports no
// driver, so sizing and linting run without a cluster; its acceptance test checks the
// model against system_schema on a real node.
package cql
