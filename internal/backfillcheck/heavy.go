package backfillcheck

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/gocql/gocql"
)

// UUIDToken is the Murmur3Partitioner token of a uuid partition key: the first half of
// MurmurHash3 x64 128 (seed 0) of its 16 bytes. A 16-byte key is exactly one block, so the
// Java implementation's signed tail bytes never come into it. Tests check it against the
// node's token().
func UUIDToken(u gocql.UUID) int64 {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	k1 := binary.LittleEndian.Uint64(u[0:8])
	k2 := binary.LittleEndian.Uint64(u[8:16])
	var h1, h2 uint64
	k1 *= c1
	k1 = bits.RotateLeft64(k1, 31)
	k1 *= c2
	h1 ^= k1
	h1 = bits.RotateLeft64(h1, 27)
	h1 += h2
	h1 = h1*5 + 0x52dce729
	k2 *= c2
	k2 = bits.RotateLeft64(k2, 33)
	k2 *= c1
	h2 ^= k2
	h2 = bits.RotateLeft64(h2, 31)
	h2 += h1
	h2 = h2*5 + 0x38495ab5
	h1 ^= 16
	h2 ^= 16
	h1 += h2
	h2 += h1
	h1, h2 = fmix(h1), fmix(h2)
	h1 += h2
	return int64(h1)
}

func fmix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// Heavy says where and how many tombstones HeavyRange writes.
type Heavy struct {
	Range       TokenRange // the users' tokens fall in it
	Users       int        // partitions
	DeadRows    int        // per partition: rows whose cells are all deleted (2 cell tombstones each)
	LiveRows    int        // per partition: rows the copy must find among them
	Consistency gocql.Consistency
	Seed        uint64
}

// HeavyRange writes, into the source table, partitions whose tokens all fall in h.Range,
// each holding h.DeadRows rows of nothing but cell tombstones (content and likes set to
// null, no row marker) and h.LiveRows live posts. A read of the range scans every tombstone
// before it can fill a page: past the node's tombstone_failure_threshold the read fails,
// and only reads of narrower ranges pass. It returns the users.
func HeavyRange(ctx context.Context, s *gocql.Session, source string, h Heavy) ([]gocql.UUID, error) {
	rng := rand.New(rand.NewPCG(h.Seed, 99))
	var users []gocql.UUID
	for len(users) < h.Users {
		u := randomUUID(rng)
		if t := UUIDToken(u); t > h.Range.Start && t <= h.Range.End {
			users = append(users, u)
		}
	}
	base := time.Now().Add(-400 * 24 * time.Hour).Truncate(time.Millisecond)
	total := h.DeadRows + h.LiveRows
	every := total / max(h.LiveRows, 1) // one live row in every so many
	for ui, u := range users {
		live := 0
		for start := 0; start < total; start += 200 {
			b := s.NewBatch(gocql.UnloggedBatch)
			b.SetConsistency(h.Consistency)
			for i := start; i < min(start+200, total); i++ {
				created := base.Add(time.Duration(i) * time.Minute).UTC()
				w, post := created.UnixMicro(), timeUUID(rng, created)
				if i%every == every/2 && live < h.LiveRows {
					live++
					b.Query("INSERT INTO "+source+" (user_id, created_at, post_id, content, likes, hashtags) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?",
						u, created, post, randomContent(rng), i, randomTags(rng, 1+rng.IntN(2)), w)
					continue
				}
				b.Query("UPDATE "+source+" USING TIMESTAMP ? SET content = null, likes = null WHERE user_id = ? AND created_at = ? AND post_id = ?",
					w, u, created, post)
			}
			if err := execBatchRetry(ctx, s, b); err != nil {
				return nil, fmt.Errorf("heavy partition %d: %w", ui, err)
			}
		}
	}
	return users, nil
}
