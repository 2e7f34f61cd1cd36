// Package trending is a hot hashtag made to fit: its posts in posts_by_hashtag
// ((hashtag, day, shard), post_id), each day of a hashtag spread over the write shards the
// estimate's SZ102 asks for, written with cql/denorm and read back newest first by a
// sharded denorm.Timeline that merges the shards. Its tests run against a real Cassandra
// node.
package trending
