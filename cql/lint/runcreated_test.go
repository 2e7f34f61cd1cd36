package lint_test

import (
	"slices"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/lint"
)

// TestRunCreatedSilencesDestructiveLints: what an earlier run of the same history created
// (Input.RunCreated) is the statements' own, as if they had created it themselves; what
// the schema held before that run still reports. DS104 is the node's refusal, not a
// question of data, so it reports either way.
func TestRunCreatedSilencesDestructiveLints(t *testing.T) {
	before := cql.NewSchemaIn("app")
	for _, s := range []string{
		"CREATE TABLE old (id int PRIMARY KEY, a text, b text)",
		"CREATE TABLE fresh (id int PRIMARY KEY, c text, d int)",
		"ALTER TABLE old ADD added text",
		"CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE other.only_fresh (id int PRIMARY KEY)",
	} {
		st, err := cql.Parse("before.cql", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		if err := before.Apply(st); err != nil {
			t.Fatal(err)
		}
	}
	src := []byte(`ALTER TABLE old DROP a;
ALTER TABLE old DROP added;
ALTER TABLE fresh DROP c;
ALTER TABLE fresh DROP d;
ALTER TABLE fresh ADD d text;
TRUNCATE fresh;
TRUNCATE old;
DROP TABLE fresh;
DROP TABLE old;
DROP KEYSPACE other;
`)
	stmts, err := cql.ParseFile("0009_drop.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	codes := func(created map[string]bool) []string {
		in := lint.Input{Files: []lint.File{{Name: "0009_drop.cql", Source: src, Statements: stmts}}, Keyspace: "app",
			Schema: before, RunCreated: created}
		rep, err := lint.Run(in, lint.Config{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range rep.Diagnostics {
			if d.Code[:2] == "DS" {
				out = append(out, d.Pos.String()[len("0009_drop.cql:"):]+" "+d.Code)
			}
		}
		return out
	}
	// Every drop of what the schema holds reports when nothing is the run's.
	all := []string{"1:22 DS103", "2:22 DS103", "3:24 DS103", "4:24 DS103", "5:23 DS104", "6:1 DS105", "7:1 DS105", "8:1 DS102", "9:1 DS102", "10:1 DS101"}
	if got := codes(nil); !slices.Equal(got, all) {
		t.Errorf("without RunCreated: %v, want %v", got, all)
	}
	// fresh, old.added and other.only_fresh were the stopped run's: only old's data and
	// the type change report.
	want := []string{"1:22 DS103", "5:23 DS104", "7:1 DS105", "9:1 DS102"}
	got := codes(map[string]bool{"app.fresh": true, "app.old.added": true, "other.only_fresh": true})
	if !slices.Equal(got, want) {
		t.Errorf("with RunCreated: %v, want %v", got, want)
	}
}
