// Package bucket chooses the time bucket and write shard that go into a Cassandra partition
// key, such as the month in posts_by_user ((user_id, month), post_id), so that a partition
// holds one bounded slice of time instead of growing for as long as the key lives.
//
// It also lists the buckets, and the (bucket, shard) partitions, that a read of a time range
// must visit, refusing rather than silently truncating when a careless range would mean
// millions of queries, and it reads the instant out of a timeuuid so a bucket can be chosen
// from an id. It imports only the standard library.
package bucket
