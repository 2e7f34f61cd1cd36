package migrations_test

import (
	"slices"
	"testing"

	"github.com/cqlsize/cqlsize/migrations"
)

// A history that qualifies every name needs no -k: the keyspaces it names and never
// creates are read as existing; one unqualified name (outside a USE) and it does need -k.
func TestImpliedKeyspaces(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		want  []string
	}{
		{"every name qualified, nothing creates the keyspace",
			[]string{"CREATE TABLE app.t (id int PRIMARY KEY);\nCREATE TYPE app.addr (street text);", "ALTER TABLE app.t ADD a frozen<app.addr>;\nINSERT INTO audit.log (id) VALUES (1);"},
			[]string{"app", "audit"}},
		{"a created keyspace is not implied",
			[]string{"CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE app.t (id int PRIMARY KEY);\nCREATE TABLE other.u (id int PRIMARY KEY);"},
			[]string{"other"}},
		{"names after a USE resolve to it",
			[]string{"USE app;\nCREATE TABLE t (id int PRIMARY KEY);", "CREATE INDEX ON app.t (id);"},
			[]string{"app"}},
		{"a USE holds to the end of its file only",
			[]string{"USE app;\nCREATE TABLE t (id int PRIMARY KEY);", "DROP TABLE t;"},
			nil},
		{"one unqualified name",
			[]string{"CREATE TABLE app.t (id int PRIMARY KEY);\nCREATE TABLE u (id int PRIMARY KEY);"},
			nil},
		{"the node's own keyspaces",
			[]string{"SELECT * FROM system.local;\nALTER KEYSPACE system_auth WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"},
			nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var migs []*migrations.Migration
			for i, src := range tc.files {
				m, err := migrations.Parse([]string{"0001_a.cql", "0002_b.cql"}[i], []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				migs = append(migs, m)
			}
			if got := migrations.ImpliedKeyspaces(migs); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
