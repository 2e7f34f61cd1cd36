// Package liveschema reads what a running cluster holds in system_schema into the same
// cql.Schema model the parser builds from .cql files, and lists how two schemas differ.
//
// It is how cqlsize checks that migrations produced what their files say (migrate's
// acceptance test, `cqlsize migrate status`) and how `cqlsize estimate --hosts` sizes the
// tables a cluster really has instead of the ones a file claims.
package liveschema
