package bucket

import (
	"errors"
	"fmt"
	"time"
)

// Shard returns the write shard, 0 to shards-1, that key belongs to, so that the writes to
// one hot partition spread over shards partitions per bucket, as in
// posts_by_user ((user_id, month, shard), post_id).
//
// Hash something that differs from row to row, such as the row's id: hashing the partition
// key itself (the user id) would send every write of the hot user to the same shard.
// Because the hash is deterministic, a row rewritten later lands on the same shard, and a
// read that knows the id can go straight to its partition; a read of a time range must visit
// every shard of every bucket (see Scheme.Partitions).
//
// The algorithm, to reproduce in other languages, is 64-bit FNV-1a over the key's bytes (a
// string's UTF-8 bytes), taken modulo shards as unsigned 64-bit integers. A UUID can be
// hashed as its 16 bytes or as its text; every writer and reader must pick the same.
//
//	h := uint64(14695981039346656037)
//	for each byte c of key: h ^= uint64(c); h *= 1099511628211
//	shard := h % uint64(shards)
//
// Shard fails, wrapping ErrInvalidShards, when shards is below 1.
func Shard[K ~string | ~[]byte](key K, shards int) (int, error) {
	if shards < 1 {
		return 0, fmt.Errorf("bucket: %w %d: must be at least 1", ErrInvalidShards, shards)
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return int(h % uint64(shards)), nil
}

// A Partition is one bucket and one shard: the time and shard parts of one partition key.
type Partition struct {
	Bucket Bucket
	Shard  int
}

// Partitions returns the partitions a read of the half-open range [from, to) must visit when
// each bucket's writes are spread over shards shards (see Shard): every shard of every
// bucket, buckets oldest first as Between lists them, shards 0 to shards-1 within each.
//
// Like Between it refuses, wrapping ErrTooManyBuckets, rather than return more than limit
// partitions, and wraps ErrInvalidRange when to is before from; it wraps ErrInvalidShards
// when shards is below 1.
func (s Scheme) Partitions(from, to time.Time, shards, limit int) ([]Partition, error) {
	if shards < 1 {
		return nil, fmt.Errorf("bucket: %w %d: must be at least 1", ErrInvalidShards, shards)
	}
	buckets, err := s.Between(from, to, limit/shards)
	if errors.Is(err, ErrTooManyBuckets) {
		n := s.For(to.Add(-time.Nanosecond)).key - s.For(from).key + 1
		return nil, fmt.Errorf("bucket: %w: %s to %s needs %d %s buckets × %d shards, more than the limit of %d partitions",
			ErrTooManyBuckets, from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano), n, s.width, shards, limit)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Partition, 0, len(buckets)*shards)
	for _, b := range buckets {
		for i := range shards {
			out = append(out, Partition{Bucket: b, Shard: i})
		}
	}
	return out, nil
}
