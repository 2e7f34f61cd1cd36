package design_test

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/design"
)

// TestEveryEntityHasAHome designs every case of testdata (the seeds' cases and the
// ride-hailing model) and holds each entity a query reads to one home: a table whose
// primary key columns are the entity's, as entities.cql declares them, holding every
// column of it; and the write plan the design writes, loaded by cql/denorm, names that
// table as the entity's source.
func TestEveryEntityHasAHome(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/cases/*/expected.cql")
	for i := range dirs {
		dirs[i] = filepath.Dir(dirs[i])
	}
	dirs = append(dirs, "testdata/ridehailing")
	if len(dirs) < 6 {
		t.Fatalf("cases: %v", dirs)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in := load(t, dir, "app")
			// The entities as written, parsed apart from the design's input.
			entities, err := cql.LoadSchemaIn(filepath.Join(dir, "entities.cql"), "app")
			if err != nil {
				t.Fatal(err)
			}
			d, err := design.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			homes := map[string]string{}
			for _, tb := range d.Tables {
				if !tb.Home {
					continue
				}
				e := tb.Entity.Name
				if homes[e] != "" {
					t.Errorf("%s has two homes: %s and %s", e, homes[e], tb.Table.Name)
				}
				homes[e] = tb.Table.QualifiedName()
				ent, _ := entities.FindTable("app." + e)
				var want, got []string
				for _, c := range ent.Columns {
					if c.Kind == cql.PartitionKey || c.Kind == cql.Clustering {
						want = append(want, c.Name)
					}
					if tb.Table.Column(c.Name) == nil {
						t.Errorf("home %s lacks column %s of %s", tb.Table.Name, c.Name, e)
					}
				}
				for _, c := range tb.Table.Columns {
					if c.Kind == cql.PartitionKey || c.Kind == cql.Clustering {
						got = append(got, c.Name)
					}
				}
				sort.Strings(want)
				sort.Strings(got)
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("home %s is keyed by %v, %s by %v", tb.Table.Name, got, e, want)
				}
			}
			for _, q := range in.Queries {
				if homes[q.Stmt.Table.Name.Name] == "" {
					t.Errorf("entity %s, which %s reads, has no home", q.Stmt.Table.Name.Name, q.Name)
				}
			}
			if err := in.Schema.ApplyFile("0001_design.cql", []byte(d.Migration(in.Schema))); err != nil {
				t.Fatal(err)
			}
			plan, err := denorm.ParseWritePlan("writeplan.yaml", []byte(d.WritePlanFile()), in.Schema)
			if err != nil {
				t.Fatalf("%v\n%s", err, d.WritePlanFile())
			}
			for e, home := range homes {
				if pe := plan.Entity(e); pe == nil || pe.Source != home {
					t.Errorf("write plan: %s's source is not its home %s:\n%s", e, home, d.WritePlanFile())
				}
			}
		})
	}
}

// TestHomeOfATimeSeries: an entity keyed by (sensor, instant) whose query table is cut
// into buckets gets a home of its own, partitioned by its whole key: one reading a
// partition, so the home needs no bucket however many readings a sensor has. A by-id
// lookup that reads a few columns is widened into the home instead of doubled.
func TestHomeOfATimeSeries(t *testing.T) {
	d, err := design.Run(load(t, "testdata/cases/sensors", "app"))
	if err != nil {
		t.Fatal(err)
	}
	var home *design.Table
	for _, tb := range d.Tables {
		if tb.Home {
			home = tb
		}
	}
	if home == nil || len(home.Queries) != 0 || home.Bucket != "" || home.Shards != 0 {
		t.Fatalf("home: %+v", home)
	}
	if len(home.Table.PartitionKey) != 2 || len(home.Table.Clustering) != 0 {
		t.Errorf("home key %v / %v, want ((sensor_id, read_at))", home.Table.PartitionKey, home.Table.Clustering)
	}
	// One reading a partition: the estimate's largest holds one row (within its rounding).
	if home.Estimate == nil || home.Estimate.Largest.Rows < 0.99 || home.Estimate.Largest.Rows > 1.01 {
		t.Fatalf("home's largest partition: %v rows, want one", home.Estimate.Largest.Rows)
	}

	m, err := design.Run(load(t, "testdata/cases/magazines", "app"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tables) != 2 || !m.Tables[0].Home || m.Tables[0].Table.Column("publisher") == nil {
		t.Errorf("magazines_by_id is not widened into the home: %d tables, first %s", len(m.Tables), m.Tables[0].Table.CreateStatement(false))
	}
}

// TestWideningUndoneForABucketedTable: a query keyed by the entity's own key (a user's plays
// by time) would be widened into the home, but its volumes cut it into buckets, so it is no
// home: it keeps only the columns its query reads, and a home of one play a partition holds
// the rest.
func TestWideningUndoneForABucketedTable(t *testing.T) {
	schema, err := parseSchema("entities.cql", `CREATE TABLE plays (user_id uuid, played_at timestamp, title text, note text, PRIMARY KEY ((user_id), played_at));`, "app")
	if err != nil {
		t.Fatal(err)
	}
	st, err := cql.Parse("queries.cql", []byte("SELECT played_at, title FROM plays WHERE user_id = ? ORDER BY played_at DESC LIMIT 50"))
	if err != nil {
		t.Fatal(err)
	}
	// 1M plays a day over 1,000 users for a year: 365k plays a user, over the 100k values
	// a partition may hold, so the table is bucketed.
	d, err := design.Run(design.Input{Schema: schema, Queries: []design.Query{{Name: "q", Stmt: st.(*cql.Select)}},
		Volumes: &design.Volumes{File: "workload.yaml", Entities: []*design.Entity{{Name: "plays", Rows: rate("1M/day"), Retention: 365 * 24 * time.Hour,
			Avg: map[string]float64{"title": 20, "note": 40}, Columns: map[string]design.ColumnVolume{"user_id": {Distinct: 1000}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	q := queryTable(t, d)
	if q.Bucket == "" || q.Home || q.Table.Column("note") != nil || q.Table.Name != "plays_by_user_id" {
		t.Errorf("query table %s: bucket %q, home %v, note %v; want bucketed, no home, without note", q.Table.Name, q.Bucket, q.Home, q.Table.Column("note") != nil)
	}
	if len(d.Tables) != 2 || !d.Tables[1].Home || d.Tables[1].Table.Column("note") == nil {
		t.Fatalf("%d tables; want the query table and a home with every column", len(d.Tables))
	}
}
