package tombstone_test

import (
	"fmt"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/tombstone"
)

// readSchema holds the tables the query tests read: an ascending queue, a newest-first
// series, a table with two clustering columns and one without.
func readSchema(t testing.TB) *cql.Schema {
	t.Helper()
	s := cql.NewSchema()
	src := `CREATE KEYSPACE wf WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE wf.tasks (queue text, task_id timeuuid, body text, PRIMARY KEY (queue, task_id));
CREATE TABLE wf.events (stream text, at timestamp, body text, PRIMARY KEY (stream, at)) WITH CLUSTERING ORDER BY (at DESC);
CREATE TABLE wf.steps (run uuid, step int, attempt int, state text, PRIMARY KEY (run, step, attempt));
CREATE TABLE wf.runs (id uuid PRIMARY KEY, state text);
`
	if err := s.ApplyFile("schema.cql", []byte(src)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadOf(t *testing.T) {
	s := readSchema(t)
	cases := []struct {
		query string
		want  tombstone.Read
	}{
		{"SELECT * FROM wf.tasks WHERE queue = ?", tombstone.Read{Order: tombstone.OldestFirst}},
		{"SELECT * FROM wf.tasks WHERE queue = ? LIMIT 100", tombstone.Read{Order: tombstone.OldestFirst, Limit: 100}},
		{"SELECT * FROM wf.tasks WHERE queue = ? AND task_id > ? LIMIT 100", tombstone.Read{Order: tombstone.OldestFirst, Limit: 100, Slice: tombstone.AfterCursor}},
		{"SELECT * FROM wf.tasks WHERE queue = ? AND task_id >= ? AND task_id < ?", tombstone.Read{Order: tombstone.OldestFirst, Slice: tombstone.AfterCursor}},
		// Only the far bound: the read starts at the head.
		{"SELECT * FROM wf.tasks WHERE queue = ? AND task_id < ?", tombstone.Read{Order: tombstone.OldestFirst}},
		{"SELECT * FROM wf.tasks WHERE queue = ? AND task_id = ?", tombstone.Read{Order: tombstone.OldestFirst, Slice: tombstone.Point}},
		{"SELECT * FROM wf.tasks WHERE queue = ? AND task_id IN (?)", tombstone.Read{Order: tombstone.OldestFirst, Slice: tombstone.Point}},
		{"SELECT * FROM wf.tasks WHERE queue = ? AND task_id IN (?, ?)", tombstone.Read{Order: tombstone.OldestFirst}},
		{"SELECT * FROM wf.tasks WHERE queue = ? ORDER BY task_id DESC LIMIT 5", tombstone.Read{Order: tombstone.NewestFirst, Limit: 5, Reversed: true}},
		// Read descending, the cursor is the upper bound.
		{"SELECT * FROM wf.tasks WHERE queue = ? AND task_id < ? ORDER BY task_id DESC", tombstone.Read{Order: tombstone.NewestFirst, Reversed: true, Slice: tombstone.AfterCursor}},
		{"SELECT * FROM wf.events WHERE stream = ? LIMIT 20", tombstone.Read{Order: tombstone.NewestFirst, Limit: 20}},
		{"SELECT * FROM wf.events WHERE stream = ? AND at < ? LIMIT 20", tombstone.Read{Order: tombstone.NewestFirst, Limit: 20, Slice: tombstone.AfterCursor}},
		{"SELECT * FROM wf.events WHERE stream = ? AND at > ? LIMIT 20", tombstone.Read{Order: tombstone.NewestFirst, Limit: 20}},
		{"SELECT * FROM wf.events WHERE stream = ? AND at > ? ORDER BY at ASC", tombstone.Read{Order: tombstone.OldestFirst, Reversed: true, Slice: tombstone.AfterCursor}},
		{"SELECT * FROM wf.events WHERE stream = ? PER PARTITION LIMIT 3", tombstone.Read{Order: tombstone.NewestFirst, Limit: 3}},
		{"SELECT * FROM wf.steps WHERE run = ? AND step = ? AND attempt = ?", tombstone.Read{Slice: tombstone.Point}},
		{"SELECT * FROM wf.steps WHERE run = ? AND (step, attempt) = (?, ?)", tombstone.Read{Slice: tombstone.Point}},
		{"SELECT * FROM wf.steps WHERE run = ? AND step = ?", tombstone.Read{}},
		{"SELECT * FROM wf.steps WHERE run = ? AND step = ? AND attempt > ?", tombstone.Read{Slice: tombstone.AfterCursor}},
		{"SELECT * FROM wf.steps WHERE run = ? AND (step, attempt) > (?, ?)", tombstone.Read{Slice: tombstone.AfterCursor}},
		// A bound on the second column without the first fixed does not start the read.
		{"SELECT * FROM wf.steps WHERE run = ? AND attempt > ? ALLOW FILTERING", tombstone.Read{}},
		{"SELECT * FROM wf.runs WHERE id = ?", tombstone.Read{}},
		{"SELECT * FROM wf.tasks WHERE queue = ? LIMIT ?", tombstone.Read{Order: tombstone.OldestFirst, Limit: 7}},
	}
	for _, c := range cases {
		st, err := cql.Parse("q.cql", []byte(c.query))
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		sel := st.(*cql.Select)
		tbl := s.Table("wf", sel.Table.Name.Name)
		got := tombstone.ReadOf(tbl, sel, tombstone.Read{Limit: 7})
		want := c.want
		if want.Limit == 0 {
			want.Limit = 7 // the base's, kept when the query has none
		}
		if got != want {
			t.Errorf("%s:\n got  %+v\n want %+v", c.query, got, want)
		}
	}
	if got := tombstone.ReadOf(s.Table("wf", "events"), nil, tombstone.Read{PageSize: 100}); got != (tombstone.Read{PageSize: 100, Order: tombstone.NewestFirst}) {
		t.Errorf("no query: %+v", got)
	}
}

// A workflow engine reads its tasks after the last one it ran, and an execution by its
// id; it deletes tasks once they ran. Neither read meets those deletions.
func ExampleReadOf() {
	s := cql.NewSchema()
	_ = s.ApplyFile("schema.cql", []byte(`CREATE KEYSPACE wf WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE wf.tasks (queue text, task_id timeuuid, body text, PRIMARY KEY (queue, task_id));`))
	tbl := s.Table("wf", "tasks")
	for _, q := range []string{
		"SELECT * FROM wf.tasks WHERE queue = ? LIMIT 100",
		"SELECT * FROM wf.tasks WHERE queue = ? AND task_id > ? LIMIT 100",
		"SELECT * FROM wf.tasks WHERE queue = ? AND task_id = ?",
	} {
		st, _ := cql.Parse("q.cql", []byte(q))
		rd := tombstone.ReadOf(tbl, st.(*cql.Select), tombstone.Read{})
		r, _ := tombstone.Estimate(tombstone.Input{
			Table:   tombstone.TableOf(tbl),
			Writes:  tombstone.Writes{RowsPerDay: 20000},
			Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 19900, At: tombstone.Oldest}},
			Read:    rd,
		})
		fmt.Printf("%-12s %6.0f tombstones a read (%s)\n", rd.Slice, r.BucketEnd.PerRead, r.Verdict())
	}
	// Output:
	// from-start   199000 tombstones a read (fail)
	// after-cursor      0 tombstones a read (info)
	// point             0 tombstones a read (info)
}
