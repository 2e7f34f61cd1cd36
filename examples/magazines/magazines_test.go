package magazines

import (
	"context"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
)

type magazine struct {
	ID                   int32
	Name, Frequency, Pub string
}

func mappings() []denorm.Mapping[magazine] {
	return []denorm.Mapping[magazine]{
		denorm.Map("magazines_by_id", func(m *magazine, out *denorm.Rows) error {
			out.Add().Set("id", m.ID).Set("name", m.Name).Set("publication_frequency", m.Frequency).Set("publisher", m.Pub)
			return nil
		}),
		denorm.Map("magazines_by_publisher", func(m *magazine, out *denorm.Rows) error {
			out.Add().Set("publisher", m.Pub).Set("id", m.ID).Set("name", m.Name).Set("publication_frequency", m.Frequency)
			return nil
		}),
	}
}

func TestMagazines(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema := extest.Schema(t, "migrations", ks)
	model, err := denorm.New(s, schema, denorm.Options{Keyspace: ks}, mappings()...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mags := []magazine{
		{1, "Tap chi Tin hoc", "monthly", "NXB Tre"},
		{2, "Khoa hoc Pho thong", "weekly", "NXB Tre"},
		{3, "Data Weekly", "weekly", "Orbit"},
	}
	for i := range mags {
		if _, err := model.Insert(ctx, &mags[i]); err != nil {
			t.Fatal(err)
		}
	}
	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{"id": int32(1), "publisher": "NXB Tre"})
	if rows["magazines_of_publisher"] != 2 {
		t.Errorf("NXB Tre has %d magazines, want 2", rows["magazines_of_publisher"])
	}

	// A magazine changes publisher: it moves between partitions of Q2's table.
	moved := mags[1]
	moved.Pub = "Orbit"
	plan, err := model.Update(ctx, &mags[1], &moved)
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
