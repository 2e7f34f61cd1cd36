// Package derive reads the rules that fill a query table's columns from the row of another
// table, such as month=month(created_at) for posts_by_user ((user_id, month), post_id) or
// hashtag=each(hashtags) for posts_by_hashtag, type-checks them against both tables, and
// applies them to a source row to give the target rows.
//
// A backfill copies an existing table into a new one keyed for another query; a service's
// dual writes fill the same table from the same entity. Both must agree on every derived
// value (the same bucket label, the same shard), so the rules live here, in one small pure
// package that imports no driver, and both read them.
package derive
