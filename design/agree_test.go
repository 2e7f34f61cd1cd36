package design_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/check"
	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/evolve"
)

const agreeEntities = `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.posts (post_id timeuuid PRIMARY KEY, user_id uuid, title text, lang text,
    created_at timestamp, tags set<text>, addresses list<text>, body text);
CREATE TABLE app.readings (sensor_id uuid, day date, ts timestamp, value double, PRIMARY KEY ((sensor_id, day), ts))
    WITH CLUSTERING ORDER BY (ts DESC);
`

// TestCheckSuggestsDesignsTable holds check's suggestion for a query to the table design
// makes for the same query without volumes: one key layout answers both commands.
func TestCheckSuggestsDesignsTable(t *testing.T) {
	schema, err := parseSchema("entities.cql", agreeEntities, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, query string }{
		{"contains on a set", "SELECT post_id, title FROM app.posts WHERE tags CONTAINS ? ALLOW FILTERING"},
		{"contains on a list of addresses", "SELECT post_id, body FROM app.posts WHERE user_id = ? AND addresses CONTAINS ? ALLOW FILTERING"},
		{"equality and a time range newest first", "SELECT post_id, title, created_at FROM app.posts WHERE user_id = ? AND created_at > ? ORDER BY created_at DESC ALLOW FILTERING"},
		{"equality on two columns", "SELECT * FROM app.posts WHERE user_id = ? AND lang = ? ALLOW FILTERING"},
		{"a LIMIT query", "SELECT post_id, title FROM app.posts WHERE lang = ? LIMIT 10 ALLOW FILTERING"},
		{"a bucket the entity has", "SELECT ts, value FROM app.readings WHERE sensor_id = ? AND ts > ? ALLOW FILTERING"},
	} {
		t.Run(c.name, func(t *testing.T) {
			qs, err := check.ParseQueries("queries.cql", []byte("-- query: "+strings.ReplaceAll(c.name, " ", "_")+"\n"+c.query+";\n"))
			if err != nil || len(qs) != 1 {
				t.Fatalf("%v (%d queries)", err, len(qs))
			}
			r, err := check.CheckQuery(schema, qs[0], check.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st, err := cql.Parse("q.cql", []byte(strings.Replace(c.query, " ALLOW FILTERING", "", 1)))
			if err != nil {
				t.Fatal(err)
			}
			d, err := design.Run(design.Input{Schema: schema, Queries: []design.Query{{Name: "q", Stmt: st.(*cql.Select)}}})
			if err != nil {
				t.Fatal(err)
			}
			dt := queryTable(t, d).Table
			want := d.Queries[0].Text
			if r.ExistingTable == r.Table {
				// check points back to the table read, when its key is the layout (a query
				// that left out the bucket of a bucketed table); design, which starts from
				// entities, makes a table of that same key.
				src := schema.Table("app", st.(*cql.Select).Table.Name.Name)
				src = &cql.Table{Keyspace: src.Keyspace, Name: dt.Name, Columns: dt.Columns, PartitionKey: src.PartitionKey, Clustering: src.Clustering}
				if got, want := src.CreateStatement(true), dt.CreateStatement(true); got != want {
					t.Errorf("check points to %s, keyed\n%s\ndesign makes\n%s", r.Table, got, want)
				}
				want = strings.Replace(want, cql.QuoteName(dt.Name)+" ", cql.QuoteName(strings.TrimPrefix(r.Table, "app."))+" ", 1)
			} else if suggested, designed := withoutComments(r.SuggestedTable), dt.CreateStatement(true); suggested != designed {
				t.Errorf("check suggests\n%s\ndesign makes\n%s", suggested, designed)
			}
			if r.SuggestedQuery != want {
				t.Errorf("check rewrites the query as\n%s\ndesign as\n%s", r.SuggestedQuery, want)
			}
		})
	}
}

// withoutComments drops the comment lines above a suggested CREATE TABLE.
func withoutComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "--") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestEvolveInfersDesignsElement: a table design lays out for CONTAINS on a collection
// names the element as evolve reads it, so evolve's plan from the entity to that table
// fills the element with each() of the right collection (the entity has two lists of text,
// so the type alone does not say which).
func TestEvolveInfersDesignsElement(t *testing.T) {
	schema, err := parseSchema("entities.cql", agreeEntities, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ query, element, rule string }{
		{"SELECT post_id FROM app.posts WHERE addresses CONTAINS ?", "address", "address=each(addresses)"},
		{"SELECT post_id FROM app.posts WHERE tags CONTAINS ?", "tag", "tag=each(tags)"},
	} {
		st, err := cql.Parse("q.cql", []byte(c.query))
		if err != nil {
			t.Fatal(err)
		}
		d, err := design.Run(design.Input{Schema: schema, Queries: []design.Query{{Name: "q", Stmt: st.(*cql.Select)}}})
		if err != nil {
			t.Fatal(err)
		}
		dst := d.Tables[0].Table
		if dst.PartitionKey[0].Name != c.element {
			t.Errorf("%s: design names the element %s, want %s", c.query, dst.PartitionKey[0].Name, c.element)
		}
		rules, _, err := evolve.Infer(schema.Table("app", "posts"), dst, nil)
		if err != nil {
			t.Fatalf("%s: evolve infers no rule for design's %s: %v", c.query, dst.Name, err)
		}
		var got []string
		for _, r := range rules {
			got = append(got, r.Rule())
		}
		if !strings.Contains(strings.Join(got, " "), c.rule) {
			t.Errorf("%s: evolve infers %v, want %s", c.query, got, c.rule)
		}
	}
}
