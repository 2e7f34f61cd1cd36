package migrations_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/cqlsize/cqlsize/migrations"
)

// The history every case records a different past for: a released file (run "r1"), a
// file that creates two tables and adds a column to the released one, and a file that
// creates a third table, then a view, then adds a column.
var rerunHistory = []struct{ file, src string }{
	{"0001_users.cql", "CREATE TABLE users (id int PRIMARY KEY, name text);\n"},
	{"0002_orders.cql", "CREATE TABLE orders (id int PRIMARY KEY, total int);\nCREATE TABLE IF NOT EXISTS carts (id int PRIMARY KEY);\nALTER TABLE users ADD email text;\n"},
	{"0003_items.cql", "CREATE TABLE items (id int PRIMARY KEY, sku text);\nCREATE MATERIALIZED VIEW items_by_sku AS SELECT * FROM items WHERE sku IS NOT NULL AND id IS NOT NULL PRIMARY KEY (sku, id);\nALTER TABLE orders ADD note text;\n"},
}

func TestCreatedByUnfinishedRun(t *testing.T) {
	var migs []*migrations.Migration
	for _, f := range rerunHistory {
		m, err := migrations.Parse(f.file, []byte(f.src))
		if err != nil {
			t.Fatal(err)
		}
		migs = append(migs, m)
	}
	done := func(run string) *migrations.Record { return &migrations.Record{State: migrations.Applied, RunID: run} }
	stopped := func(run string, state migrations.RecordState, applied, running int) *migrations.Record {
		return &migrations.Record{State: state, RunID: run, Applied: applied, Running: running}
	}
	cases := []struct {
		name    string
		records []*migrations.Record // by file; nil: pending
		want    []string             // read off the files by hand
	}{
		{"nothing unfinished: a released history, every drop reports",
			[]*migrations.Record{done("r1"), done("r2"), nil}, nil},
		{"the run stopped at the first statement of 0003: 0002 is its work",
			[]*migrations.Record{done("r1"), done("r2"), stopped("r2", migrations.Failed, 0, 0)},
			[]string{"app.carts", "app.orders", "app.users.email"}},
		{"the run stopped inside 0003: its first statement ran too",
			[]*migrations.Record{done("r1"), done("r2"), stopped("r2", migrations.Failed, 1, 0)},
			[]string{"app.carts", "app.items", "app.orders", "app.users.email"}},
		{"a statement in flight may have run: the view counts",
			[]*migrations.Record{done("r1"), done("r2"), stopped("r2", migrations.Running, 1, 2)},
			[]string{"app.carts", "app.items", "app.items_by_sku", "app.orders", "app.users.email"}},
		{"0002 was released by an earlier run: only 0003's work counts, its column on orders included",
			[]*migrations.Record{done("r1"), done("r1"), stopped("r2", migrations.InDoubt, 3, 0)},
			[]string{"app.items", "app.items_by_sku", "app.orders.note"}},
		{"a record with no run id: nothing is exempted",
			[]*migrations.Record{done("r1"), done(""), stopped("", migrations.Failed, 1, 0)}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var sts []migrations.Status
			for i, m := range migs {
				sts = append(sts, migrations.Status{Version: m.Version, File: m.File, Migration: m, Record: tc.records[i]})
			}
			got := slices.Sorted(maps.Keys(migrations.CreatedByUnfinishedRun(sts, "app")))
			if !slices.Equal(got, tc.want) {
				t.Errorf("created %v, want %v", got, tc.want)
			}
		})
	}
}
