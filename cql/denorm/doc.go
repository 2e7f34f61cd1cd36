// Package denorm writes one entity to every query table that serves it, and reads a
// timeline back across time buckets.
//
// A query-first schema stores the same entity several times: a post in posts_by_id, in
// posts_by_user under its month bucket, and once per hashtag in posts_by_hashtag. A Model
// describes how an entity becomes rows of each table; Insert, Update and Delete then keep
// every copy in step in one LOGGED batch (or concurrent idempotent writes), with a
// client-side timestamp so a retry is harmless, never a null (unset instead, so no
// tombstone), and the batch's size measured the way Cassandra measures it for
// batch_size_warn_threshold before anything is sent. Timeline reads the newest rows for a
// key across its time buckets (and its write shards), with a signed page token.
//
// A mapping is a row function (Map), or, for a service whose rows are already gocqlx
// models, the struct itself (MapStruct): fields become columns by gocqlx's tag rules, with
// options for a derived bucket column, a fan-out over a slice and reading the entity back.
// A mapping can also be derived: Derive compiles cql/derive rules (month=month(created_at))
// between two tables, MapValues writes by them, and a WritePlan (`cqlsize design`'s
// writeplan.yaml) gives every entity's mappings so, its home (the table holding every row
// once by the entity's key, source: true) read back by Load, UpdateStored and DeleteByKey; a
// plan that could drop rows is refused.
//
// A table whose keys are skewed can put them on tiers (TierPlan, from a write plan's
// tiers:): a key's bucket width and shards are a row of a tier table, read and cached by
// Tiers for the writes, changed by Promote at a bucket boundary of both schemes, and read
// back by TieredTimeline period by period with the scheme each period had.
//
// A Transition moves an access pattern from one table to another in four stages (old-only,
// dual-write, read-new, new-only), each a change of a service's configuration: the stage
// decides which tables the Model's writes reach and which one readers use (Choose, Reads).
//
// The cluster settings the writes rely on are here too: ConfigureCluster and its retry
// policy (idempotent statements only, with backoff), Transient to tell a failure another
// attempt may not meet, SpeculativeReads, and ResendCancelled for an idempotent request the
// driver cancelled on its own.
//
// Copying the rows written before dual writes began, and verifying the copy, is not here:
// that is evolve/backfill, which imports this package for the derived rows and the cluster
// settings, never the reverse.
//
// This package and its tests talk to a cluster through gocql; the pure parts (Plan, the
// batch size) need none.
package denorm
