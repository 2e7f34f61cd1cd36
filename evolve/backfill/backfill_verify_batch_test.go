package backfill

import (
	"fmt"
	"testing"
	"time"
)

func TestInWhere(t *testing.T) {
	for _, tc := range []struct {
		pk, ck []string
		n      int
		want   string
	}{
		{[]string{"user_id"}, []string{"id"}, 1, "user_id = ? AND id IN (?)"},
		{[]string{"user_id"}, []string{"id"}, 3, "user_id = ? AND id IN (?, ?, ?)"},
		{[]string{"user_id", "month"}, []string{"created_at", "post_id"}, 2,
			"user_id = ? AND month = ? AND (created_at, post_id) IN ((?, ?), (?, ?))"},
		{[]string{`"Key"`}, []string{"a", "b", "c"}, 1, `"Key" = ? AND (a, b, c) IN ((?, ?, ?))`},
	} {
		if got := inWhere(tc.pk, tc.ck, tc.n); got != tc.want {
			t.Errorf("inWhere(%v, %v, %d) = %q, want %q", tc.pk, tc.ck, tc.n, got, tc.want)
		}
	}
}

// Keys group by their first np values, compared as values (a time read back in another
// location is the same instant), in the order they come.
func TestByPartition(t *testing.T) {
	t0 := time.Date(2026, 10, 2, 12, 0, 0, 0, time.UTC)
	keys := [][]any{
		{"alice", "2026-10", 1},
		{"bob", "2026-10", 2},
		{"alice", "2026-10", 3},
		{"alice", "2026-09", 4},
		{"bob", "2026-10", 5},
	}
	if got, want := fmt.Sprint(byPartition(keys, 2)), "[[0 2] [1 4] [3]]"; got != want {
		t.Errorf("byPartition by (user, month) = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(byPartition(keys, 1)), "[[0 2 3] [1 4]]"; got != want {
		t.Errorf("byPartition by user = %s, want %s", got, want)
	}
	times := [][]any{{t0, 1}, {t0.In(time.FixedZone("x", 3600)), 2}, {t0.Add(time.Millisecond), 3}}
	if got, want := fmt.Sprint(byPartition(times, 1)), "[[0 1] [2]]"; got != want {
		t.Errorf("byPartition by time = %s, want %s", got, want)
	}
	if got := byPartition(nil, 1); len(got) != 0 {
		t.Errorf("byPartition(nil) = %v, want none", got)
	}
}
