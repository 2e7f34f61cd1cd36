// Package posts is the design notes' social posts example made real: a post written to
// posts_by_id, posts_by_user and posts_by_hashtag in one logged batch with cql/denorm, the
// two timelines read back across month buckets, and an HTTP service over them
// (cmd/postsvc). Its tests and benchmarks run against a real Cassandra node.
package posts
