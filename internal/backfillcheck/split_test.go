package backfillcheck_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

// Issue: --split 1/3, 2/3 and 3/3 started at once cover the ring exactly once. Each share
// is copied into a table of its own, so the checker sees which process copied which row:
// every source row must be in exactly one of the three, and every partition (the node's
// token() of the source row) in one share only. Three more processes divide one backfill
// into a shared table at the same time: it must come out whole.
func TestBackfillSplitsCoverTheRingOnce(t *testing.T) {
	rows := envInt(t, "CQLSIZE_BACKFILL_SPLIT_ROWS", 20_000)
	shares := []string{"share1", "share2", "share3"}
	s, ks := keyspace(t, backfillcheck.Tables{Source: "posts", Month: "shared"}, backfillcheck.Tables{Month: shares[0]},
		backfillcheck.Tables{Month: shares[1]}, backfillcheck.Tables{Month: shares[2]})
	hosts := cassandratest.Hosts(t)
	ctx := context.Background()
	cqlsize(t)
	if _, err := backfillcheck.Generate(ctx, s, backfillcheck.Tables{Source: "posts"}, backfillcheck.Spec{Rows: rows, Seed: 3, Consistency: gocql.One}); err != nil {
		t.Fatal(err)
	}
	var ps []*proc
	began := time.Now()
	for i, share := range shares {
		split := fmt.Sprintf("%d/3", i+1)
		ps = append(ps,
			start(t, "split "+split+" into "+share, backfillArgs(hosts, ks, "posts", share, monthRules, "--split", split)...),
			start(t, "split "+split+" into shared", backfillArgs(hosts, ks, "posts", "shared", monthRules, "--split", split)...))
	}
	for _, p := range ps {
		if code := p.wait(t, 5*time.Minute); code != 0 {
			t.Fatalf("%v", p)
		}
	}
	slack := time.Since(began)
	opts := backfillcheck.ReadOptions{Consistency: gocql.One}
	src, err := backfillcheck.ReadSource(ctx, s, "posts", opts)
	if err != nil {
		t.Fatal(err)
	}
	expected := backfillcheck.ExpectMonth(src)
	union := map[string]backfillcheck.Row{}
	owner := map[string]int{}     // row key -> the share that holds it
	tokenOwner := map[int64]int{} // source partition token -> the share that copied it
	for i, share := range shares {
		found, err := backfillcheck.ReadMonth(ctx, s, share, opts)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := int64(1<<63-1), int64(-1<<63)
		for k, row := range found {
			if j, dup := owner[k]; dup {
				t.Errorf("row %s copied by split %d/3 and by split %d/3", k, j+1, i+1)
			}
			owner[k], union[k] = i, row
			e, ok := expected[k]
			if !ok {
				continue // Compare below counts it as extra
			}
			if j, seen := tokenOwner[e.SourceToken]; seen && j != i {
				t.Errorf("partition with token %d copied in part by split %d/3 and in part by split %d/3", e.SourceToken, j+1, i+1)
			}
			tokenOwner[e.SourceToken] = i
			lo, hi = min(lo, e.SourceToken), max(hi, e.SourceToken)
		}
		t.Logf("split %d/3: %d rows, source tokens from %d to %d", i+1, len(found), lo, hi)
		if len(found) == 0 {
			t.Errorf("split %d/3 copied nothing", i+1)
		}
	}
	if rep := backfillcheck.Compare("the three shares together", expected, union, slack); !rep.OK() {
		t.Errorf("%s", rep)
	} else {
		t.Log(rep)
	}
	shared, err := backfillcheck.ReadMonth(ctx, s, "shared", opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep := backfillcheck.Compare("shared", expected, shared, slack); !rep.OK() {
		t.Errorf("three splits at once into one table: %s", rep)
	} else {
		t.Log(rep)
	}
}

// Issue: a range whose read fails on the node (here past tombstone_failure_threshold, which
// the node answers in 0.2 s, long before a timeout) is split and the backfill still completes.
func TestBackfillSplitsATombstoneHeavyRange(t *testing.T) {
	tb := backfillcheck.Tables{Source: "posts", Month: "posts_by_month"}
	s, ks := keyspace(t, tb)
	hosts := cassandratest.Hosts(t)
	ctx := context.Background()
	cqlsize(t)
	if _, err := backfillcheck.Generate(ctx, s, tb, backfillcheck.Spec{Rows: 5000, Seed: 5, Consistency: gocql.One}); err != nil {
		t.Fatal(err)
	}
	h := heavySpec()
	if _, err := backfillcheck.HeavyRange(ctx, s, tb.Source, h); err != nil {
		t.Fatal(err)
	}
	// The provocation holds: a plain paged read of the 1/256 of the ring holding it fails.
	e := enclosing(h)
	iter := s.Query("SELECT user_id FROM posts WHERE token(user_id) > ? AND token(user_id) <= ?", e.Start, e.End).PageSize(500).Iter()
	for iter.Scan(new(gocql.UUID)) {
	}
	if err := iter.Close(); err == nil {
		t.Fatal("a plain read of the heavy range passed: the test provokes nothing")
	} else {
		t.Logf("a plain read of the heavy range: %v", err)
	}
	p := start(t, "backfill over the heavy range", backfillArgs(hosts, ks, tb.Source, tb.Month, monthRules)...)
	if code := p.wait(t, 5*time.Minute); code != 0 {
		t.Fatalf("%v", p)
	}
	t.Logf("%v", p)
	src, err := backfillcheck.ReadSource(ctx, s, tb.Source, backfillcheck.ReadOptions{Consistency: gocql.One, Ranges: 1 << 14})
	if err != nil {
		t.Fatal(err)
	}
	found, err := backfillcheck.ReadMonth(ctx, s, tb.Month, backfillcheck.ReadOptions{Consistency: gocql.One})
	if err != nil {
		t.Fatal(err)
	}
	rep := backfillcheck.Compare(tb.Month, backfillcheck.ExpectMonth(src), found, p.elapsed)
	t.Log(rep)
	if !rep.OK() || rep.Expected != 5000+h.Users*h.LiveRows {
		t.Errorf("want all %d rows (%d among the tombstones) copied: %s", 5000+h.Users*h.LiveRows, h.Users*h.LiveRows, rep)
	}
}
