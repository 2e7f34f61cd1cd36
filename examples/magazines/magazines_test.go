package magazines_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
	"github.com/cqlsize/cqlsize/examples/magazines"
)

func TestMagazines(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema, err := magazines.Schema(ks)
	if err != nil {
		t.Fatal(err)
	}
	st, err := magazines.NewStore(s, ks)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mags := []magazines.Magazine{
		{1, "Tap chi Tin hoc", "monthly", "NXB Tre"},
		{2, "Khoa hoc Pho thong", "weekly", "NXB Tre"},
		{3, "Data Weekly", "weekly", "Orbit"},
	}
	for i := range mags {
		if err := st.Add(ctx, &mags[i]); err != nil {
			t.Fatal(err)
		}
	}
	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{"id": int32(1), "publisher": "NXB Tre"})
	if rows["magazines_of_publisher"] != 2 {
		t.Errorf("NXB Tre has %d magazines, want 2", rows["magazines_of_publisher"])
	}
	// The store's own reads: Q1 by id, Q2 newest id first.
	if m, err := st.ByID(ctx, 1); err != nil || *m != mags[0] {
		t.Errorf("ByID(1) = %+v (%v), want %+v", m, err, mags[0])
	}
	if _, err := st.ByID(ctx, 99); !errors.Is(err, magazines.ErrNotFound) {
		t.Errorf("ByID(99): %v, want ErrNotFound", err)
	}
	if got, err := st.OfPublisher(ctx, "NXB Tre"); err != nil || !slices.Equal(got, []magazines.Magazine{mags[1], mags[0]}) {
		t.Errorf("OfPublisher(NXB Tre) = %+v (%v), want ids 2 then 1", got, err)
	}

	// A magazine changes publisher: it moves between partitions of Q2's table.
	moved := mags[1]
	moved.Publisher = "Orbit"
	plan, err := st.Update(ctx, &mags[1], &moved)
	if err != nil {
		t.Fatal(err)
	}
	if n := plan.Rows(ks + ".magazines_by_publisher"); n != 2 {
		t.Errorf("the move is %d statements on magazines_by_publisher, want a delete and an insert", n)
	}
	count := func(pub string) int {
		iter := s.Query("SELECT id FROM magazines_by_publisher WHERE publisher = ?", pub).Iter()
		n := iter.NumRows()
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if a, b := count("NXB Tre"), count("Orbit"); a != 1 || b != 2 {
		t.Errorf("after the move NXB Tre has %d and Orbit %d magazines, want 1 and 2", a, b)
	}
	var pub string
	if err := s.Query("SELECT publisher FROM magazines_by_id WHERE id = 2").Scan(&pub); err != nil || pub != "Orbit" {
		t.Errorf("magazines_by_id says publisher %q (%v)", pub, err)
	}
}
