package backfillcheck_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

// The checker must not share code with what it judges: it may import the standard library
// and the driver only.
func TestIndependent(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/cqlsize/cqlsize/internal/backfillcheck").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/cqlsize/cqlsize/") && dep != "github.com/cqlsize/cqlsize/internal/backfillcheck" {
			t.Errorf("backfillcheck depends on %s", dep)
		}
	}
}

func TestBuckets(t *testing.T) {
	for _, tc := range []struct {
		at         string
		month, day string
	}{
		{"2024-01-31T23:59:59.999Z", "2024-01", "2024-01-31"},
		{"2024-02-01T00:00:00Z", "2024-02", "2024-02-01"},
		{"2024-02-29T12:00:00+05:00", "2024-02", "2024-02-29"},
		{"2024-03-01T01:00:00+02:00", "2024-02", "2024-02-29"}, // UTC, not the offset's wall clock
		{"1999-12-31T23:00:00-02:00", "2000-01", "2000-01-01"},
	} {
		at, err := time.Parse(time.RFC3339Nano, tc.at)
		if err != nil {
			t.Fatal(err)
		}
		if got := backfillcheck.Month(at); got != tc.month {
			t.Errorf("Month(%s) = %s, want %s", tc.at, got, tc.month)
		}
		if got := backfillcheck.Day(at).Format(time.DateOnly); got != tc.day {
			t.Errorf("Day(%s) = %s, want %s", tc.at, got, tc.day)
		}
	}
}

func TestSplitRing(t *testing.T) {
	for _, n := range []int{1, 3, 7, 64} {
		rs := backfillcheck.SplitRing(n)
		if rs[0].Start != -1<<63 || rs[n-1].End != 1<<63-1 {
			t.Errorf("SplitRing(%d) spans (%d, %d]", n, rs[0].Start, rs[n-1].End)
		}
		for i := 1; i < n; i++ {
			if rs[i].Start != rs[i-1].End || rs[i].End <= rs[i].Start {
				t.Errorf("SplitRing(%d): range %d (%d, %d] after (%d, %d]", n, i, rs[i].Start, rs[i].End, rs[i-1].Start, rs[i-1].End)
			}
		}
	}
}

// keyspace gives t a keyspace of its own on the node with the tables of each of tables.
func keyspace(t *testing.T, tables ...backfillcheck.Tables) (*gocql.Session, string) {
	t.Helper()
	s, ks := cassandratest.Keyspace(t)
	for _, tb := range tables {
		if err := tb.Create(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return s, ks
}

// setup creates the three tables in a keyspace of the test's own and writes rows.
func setup(t *testing.T, rows int) (*gocql.Session, string, []backfillcheck.Post) {
	t.Helper()
	s, ks := keyspace(t, backfillcheck.DefaultTables)
	ctx := context.Background()
	posts, err := backfillcheck.Generate(ctx, s, backfillcheck.DefaultTables, backfillcheck.Spec{Rows: rows, Seed: 7, Consistency: gocql.One, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	return s, ks, posts
}

func check(t *testing.T, s *gocql.Session, slack time.Duration) (month, tagDay backfillcheck.Report, fm, ft map[string]backfillcheck.Row) {
	t.Helper()
	ctx := context.Background()
	opts := backfillcheck.ReadOptions{Consistency: gocql.One}
	tb := backfillcheck.DefaultTables
	src, err := backfillcheck.ReadSource(ctx, s, tb.Source, opts)
	if err != nil {
		t.Fatal(err)
	}
	fm, err = backfillcheck.ReadMonth(ctx, s, tb.Month, opts)
	if err != nil {
		t.Fatal(err)
	}
	ft, err = backfillcheck.ReadTagDay(ctx, s, tb.TagDay, opts)
	if err != nil {
		t.Fatal(err)
	}
	return backfillcheck.Compare(tb.Month, backfillcheck.ExpectMonth(src), fm, slack),
		backfillcheck.Compare(tb.TagDay, backfillcheck.ExpectTagDay(src), ft, slack), fm, ft
}
