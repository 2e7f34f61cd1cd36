// Package backfillcheck is the independent proof of a backfill: a generator of source rows,
// a mutator that behaves as a service making dual writes while the copy runs, a hand-written
// reference copy, and a checker that reads every row of the source and of the targets and
// compares them cell by cell (values, write times, remaining TTLs).
//
// It shares no code with the backfill it judges: it imports only the standard library and
// the gocql driver (a test checks it), and it computes the expected target rows with its
// own month and day buckets and its own fan-out over set elements. A checker that borrowed
// the engine's mapping would agree with any mistake in it.
//
// The tables are a posts source keyed by user, as a service starts with, and the two tables
// a later design adds: posts_by_month, re-keyed with a month bucket derived from created_at,
// and posts_by_tag_day, one row per hashtag of a post in a day bucket.
package backfillcheck
