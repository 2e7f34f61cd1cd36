package bucket

import (
	"errors"
	"fmt"
	"hash/fnv"
	"testing"
)

// Test vectors for other languages: FNV-1a 64 of the key's bytes, mod the shard count.
func TestShardVectors(t *testing.T) {
	postID := [16]byte{0xc2, 0x32, 0xab, 0x00, 0x94, 0x14, 0x11, 0xec, 0xb3, 0xc8, 0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46}
	tests := []struct {
		key             []byte
		hash            uint64
		of16, of10, of7 int
	}{
		{[]byte(""), 0xcbf29ce484222325, 5, 7, 2},
		{[]byte("a"), 0xaf63dc4c8601ec8c, 12, 6, 5},
		{[]byte("foobar"), 0x85944171f73967e8, 8, 8, 6},
		{[]byte("user:42"), 0x6c151ea4dcd221c2, 2, 0, 0},
		{[]byte("café"), 0x48e8823acfa40d89, 9, 3, 0}, // UTF-8 bytes
		{postID[:], 0x9704d5f94f8e9e84, 4, 8, 0},      // c232ab00-9414-11ec-b3c8-9f6bdeced846, raw bytes
	}
	for _, tt := range tests {
		h := fnv.New64a()
		h.Write(tt.key)
		if h.Sum64() != tt.hash {
			t.Fatalf("vector for %q: hash/fnv says %#x, table says %#x", tt.key, h.Sum64(), tt.hash)
		}
		for n, want := range map[int]int{16: tt.of16, 10: tt.of10, 7: tt.of7, 1: 0} {
			got, err := Shard(tt.key, n)
			if err != nil || got != want {
				t.Errorf("Shard(%q, %d) = %d, %v, want %d", tt.key, n, got, err, want)
			}
			if s, _ := Shard(string(tt.key), n); s != got {
				t.Errorf("Shard(string %q, %d) = %d, but %d for the bytes", tt.key, n, s, got)
			}
		}
	}
}

// Any string or byte-slice type works, and agrees with hash/fnv for every shard count.
func TestShardAgreesWithHashFNV(t *testing.T) {
	type postID string
	for i := range 2000 {
		key := postID(fmt.Sprintf("post-%d", i))
		h := fnv.New64a()
		h.Write([]byte(key))
		for _, n := range []int{1, 2, 3, 16, 1000, 1<<31 - 1} {
			if got, _ := Shard(key, n); got != int(h.Sum64()%uint64(n)) {
				t.Fatalf("Shard(%q, %d) = %d, want %d", key, n, got, h.Sum64()%uint64(n))
			}
		}
	}
}

// Ids spread evenly, which is the point of sharding a hot key.
func TestShardSpreads(t *testing.T) {
	const shards, keys = 16, 160_000
	var count [shards]int
	for i := range keys {
		s, _ := Shard(fmt.Sprintf("%08d", i), shards)
		count[s]++
	}
	for s, c := range count {
		if c < keys/shards*95/100 || c > keys/shards*105/100 {
			t.Errorf("shard %d got %d of %d keys, want about %d", s, c, keys, keys/shards)
		}
	}
}

func TestShardRejectsBadCounts(t *testing.T) {
	for _, n := range []int{0, -1, -1 << 62} {
		_, err := Shard("post-1", n)
		if !errors.Is(err, ErrInvalidShards) {
			t.Errorf("Shard(_, %d) error = %v, want ErrInvalidShards", n, err)
		}
	}
	_, err := Shard([]byte("x"), 0)
	if want := "bucket: invalid shard count 0: must be at least 1"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}
