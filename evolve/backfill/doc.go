// Package backfill moves live data from one table into another: Run copies every row
// of a source table into a target table as a cql/derive program derives the target rows,
// and Verify checks the copy.
//
// Run keeps each cell's write time and remaining TTL, so a row a service's dual writes
// (cql/denorm) updated or deleted while the copy ran stays as the service left it. The ring
// is cut into token ranges, read at a bounded rate and split when a read fails; each range
// copied is recorded in ProgressTable in the target's keyspace, so a stopped run continues
// where it stopped, and copied under a lease in LeaseTable, so runs sharing one backfill
// never copy a range twice at once. Verify reads source rows (a sample, or all) and checks
// that each target row they derive is there with the same values, write times and TTLs,
// then walks the target for rows no source row derives.
//
// It is apart from cql/denorm because a service does not run it: a service's code writes
// and reads through cql/denorm on every request, and a backfill runs once per move between
// tables, from `cqlsize backfill`, with bookkeeping tables of its own. It sits beside
// evolve, which plans the move (the new table, its derive rules, the backfill's time) and
// imports no driver. It imports cql/denorm for what the writes of both share (the retry
// policy, which failures are transient, the resend of a request the driver cancelled, the
// schema errors), never the reverse; denorm.Derive compiles the rules it copies by, and
// denorm.MapValues writes by the same rules in the service.
package backfill
