package backfillcheck_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

// heavySpec is the tombstone-heavy range the tests provoke: 30 users within 1/2048 of the
// ring, all inside one of 256 equal ranges (the unit a ring walk starts from), 5,000 dead
// rows each (10,000 cell tombstones, a tenth of the node's failure threshold). A read of
// that 1/256 of the ring passes 300,000 tombstones and fails; reads of ranges holding a
// few users each pass. 20 live posts a user are what the copy must still find.
func heavySpec() backfillcheck.Heavy {
	start := int64(math.MinInt64) + 100<<56 + 1<<54
	return backfillcheck.Heavy{Range: backfillcheck.TokenRange{Start: start, End: start + 1<<53}, Users: 30, DeadRows: 5000, LiveRows: 20,
		Consistency: gocql.One, Seed: 11}
}

// enclosing is the 1/256 of the ring that holds h.Range.
func enclosing(h backfillcheck.Heavy) backfillcheck.TokenRange {
	for _, r := range backfillcheck.SplitRing(256) {
		if h.Range.Start >= r.Start && h.Range.End <= r.End {
			return r
		}
	}
	panic("the heavy range straddles two of 256 ranges")
}

func TestUUIDTokenIsTheNodes(t *testing.T) {
	s, _ := keyspace(t, backfillcheck.Tables{Source: "posts"})
	for i := 0; i < 200; i++ {
		u, _ := gocql.RandomUUID()
		if err := s.Query("INSERT INTO posts (user_id, created_at, post_id) VALUES (?, ?, ?)", u, time.Now(), gocql.TimeUUID()).Exec(); err != nil {
			t.Fatal(err)
		}
		var tok int64
		if err := s.Query("SELECT token(user_id) FROM posts WHERE user_id = ?", u).Scan(&tok); err != nil {
			t.Fatal(err)
		}
		if got := backfillcheck.UUIDToken(u); got != tok {
			t.Fatalf("UUIDToken(%s) = %d, the node says %d", u, got, tok)
		}
	}
}

// The provoked range is heavy enough: a plain paged read of the 1/256 of the ring that holds
// it fails on the node, reads of a sixteenth of it and of each partition alone pass, and the
// node puts every user in the range.
func TestHeavyRangeFailsAPlainRead(t *testing.T) {
	tb := backfillcheck.Tables{Source: "posts"}
	s, _ := keyspace(t, tb)
	ctx := context.Background()
	h := heavySpec()
	start := time.Now()
	users, err := backfillcheck.HeavyRange(ctx, s, tb.Source, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d users x %d dead rows in %s", len(users), h.DeadRows, time.Since(start).Round(time.Millisecond))
	for _, u := range users {
		var tok int64
		var n int
		iter := s.Query("SELECT token(user_id) FROM posts WHERE user_id = ?", u).PageSize(1000).Iter()
		for iter.Scan(&tok) {
			n++
			if tok <= h.Range.Start || tok > h.Range.End {
				t.Fatalf("user %s: the node's token %d is outside (%d, %d]", u, tok, h.Range.Start, h.Range.End)
			}
		}
		if err := iter.Close(); err != nil || n != h.LiveRows {
			t.Fatalf("user %s alone: %d rows, %v; want %d rows", u, n, err, h.LiveRows)
		}
	}
	start = time.Now()
	var n int
	e := enclosing(h)
	iter := s.Query("SELECT user_id FROM posts WHERE token(user_id) > ? AND token(user_id) <= ?", e.Start, e.End).PageSize(500).Iter()
	for iter.Scan(new(gocql.UUID)) {
		n++
	}
	err = iter.Close()
	t.Logf("plain read of the range: %d rows, %v after %s", n, err, time.Since(start).Round(time.Millisecond))
	if err == nil {
		t.Fatalf("a plain read of the heavy range passed (%d rows): the test provokes nothing", n)
	}
	q := (h.Range.End - h.Range.Start) / 16
	n = 0
	for i := int64(0); i < 16; i++ {
		iter := s.Query("SELECT user_id FROM posts WHERE token(user_id) > ? AND token(user_id) <= ?", h.Range.Start+i*q, h.Range.Start+(i+1)*q).PageSize(1000).Iter()
		for iter.Scan(new(gocql.UUID)) {
			n++
		}
		if err := iter.Close(); err != nil {
			t.Errorf("sixteenth %d: %v", i, err)
		}
	}
	if n != h.Users*h.LiveRows {
		t.Errorf("the range read in sixteenths: %d rows, want %d", n, h.Users*h.LiveRows)
	}
}
