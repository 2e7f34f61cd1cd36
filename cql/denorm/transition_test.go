package denorm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// userPostsV1CQL is the table a service had before posts_by_user: one partition per user
// for ever, which the month bucket of posts_by_user replaces.
const userPostsV1CQL = `CREATE TABLE user_posts_v1 (
  user_id uuid, post_id timeuuid, content text,
  PRIMARY KEY (user_id, post_id)
) WITH CLUSTERING ORDER BY (post_id DESC)`

func userPostsV1() Mapping[post] {
	return Map("user_posts_v1", func(p *post, out *Rows) error {
		out.Add().Set("user_id", p.UserID).Set("post_id", p.ID).Set("content", p.Content)
		return nil
	})
}

// transitionModel maps the posts tables and user_posts_v1, with transitions.
func transitionModel(t testing.TB, s *gocql.Session, schema *cql.Schema, trs ...Transition) *Model[post] {
	t.Helper()
	m, err := New(s, schema, Options{Transitions: trs}, append(postMappings(), userPostsV1())...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTransitionStages walks both kinds of transition through the four stages and checks,
// from the statements planned (not from the Model's own answer), which tables an insert and
// a delete reach, and what Reads says readers use.
func TestTransitionStages(t *testing.T) {
	schema := schemaOf("app", postsCQL, userPostsV1CQL)
	type want struct{ writes, reads string }
	for _, tc := range []struct {
		stage Stage
		// rekey: user_posts_v1 -> posts_by_user; add: "" -> posts_by_hashtag.
		rekey, add want
	}{
		{OldOnly, want{"user_posts_v1", "user_posts_v1"}, want{"", ""}},
		{DualWrite, want{"posts_by_user user_posts_v1", "user_posts_v1"}, want{"posts_by_hashtag", ""}},
		{ReadNew, want{"posts_by_user user_posts_v1", "posts_by_user"}, want{"posts_by_hashtag", "posts_by_hashtag"}},
		{NewOnly, want{"posts_by_user", "posts_by_user"}, want{"posts_by_hashtag", "posts_by_hashtag"}},
	} {
		t.Run(tc.stage.String(), func(t *testing.T) {
			m := transitionModel(t, nil, schema,
				Transition{Old: "user_posts_v1", New: "posts_by_user", Stage: tc.stage},
				Transition{New: "posts_by_hashtag", Stage: tc.stage})
			p := fixedPost("go", "cassandra")
			ins, err := m.PlanInsert(p)
			if err != nil {
				t.Fatal(err)
			}
			del, err := m.PlanDelete(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, plan := range []*Plan{ins, del} {
				if got := plannedTables(plan, "posts_by_user", "user_posts_v1"); got != tc.rekey.writes {
					t.Errorf("%s reaches %q of the re-keyed pair, want %q", plan.Statements[0].Op, got, tc.rekey.writes)
				}
				if got := plannedTables(plan, "posts_by_hashtag"); got != tc.add.writes {
					t.Errorf("%s reaches %q of the added table, want %q", plan.Statements[0].Op, got, tc.add.writes)
				}
				if plan.Rows("app.posts_by_id") != 1 {
					t.Errorf("%s: posts_by_id, in no transition, got %d rows", plan.Statements[0].Op, plan.Rows("app.posts_by_id"))
				}
				for _, s := range plan.Statements {
					if s.Args[len(s.Args)-1] != plan.Timestamp && s.Args[0] != plan.Timestamp {
						t.Errorf("%s of %s does not carry the plan's timestamp", s.Op, s.Table)
					}
				}
			}
			reads := func(names ...string) string {
				var out []string
				for _, n := range names {
					if m.Reads(n) {
						out = append(out, n)
					}
				}
				return strings.Join(out, " ")
			}
			if got := reads("posts_by_user", "user_posts_v1"); got != tc.rekey.reads {
				t.Errorf("reads %q of the re-keyed pair, want %q", got, tc.rekey.reads)
			}
			if got := reads("posts_by_hashtag"); got != tc.add.reads {
				t.Errorf("reads %q of the added table, want %q", got, tc.add.reads)
			}
			if !m.Reads("posts_by_id") || !m.Writes("app.posts_by_id") || m.Writes("nosuch") || m.Reads("nosuch") {
				t.Error("a table in no transition is read and written; one not mapped is neither")
			}
			tr := m.Transitions()[0]
			if got := Choose(tr, "old reader", "new reader"); (got == "new reader") != (tc.stage >= ReadNew) {
				t.Errorf("Choose at %s: %s", tc.stage, got)
			}
		})
	}
}

// plannedTables lists, sorted and without keyspace, which of names a plan writes to.
func plannedTables(p *Plan, names ...string) string {
	var out []string
	for _, n := range names {
		if p.Rows("app."+n) > 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, " ")
}

// An update during dual writes moves the row in both tables of the pair: the old key is
// deleted and the new one written in each, with one timestamp.
func TestTransitionUpdate(t *testing.T) {
	m := transitionModel(t, nil, schemaOf("app", postsCQL, userPostsV1CQL),
		Transition{New: "posts_by_hashtag", Stage: DualWrite})
	old := fixedPost("go", "cassandra")
	edited := *old
	edited.Hashtags = []string{"go"}
	p, err := m.PlanUpdate(old, &edited)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.Statements {
		if s.Table == "app.posts_by_hashtag" {
			got = append(got, s.Op.String()+" "+m.keyOf(&s))
		}
	}
	want := []string{"delete hashtag='cassandra', month='2024-01', post_id=" + old.ID.String(), "insert hashtag='go', month='2024-01', post_id=" + old.ID.String()}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("posts_by_hashtag statements:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTransitionRefused(t *testing.T) {
	schema := schemaOf("app", postsCQL, userPostsV1CQL)
	for _, tc := range []struct {
		name string
		trs  []Transition
		maps []Mapping[post]
		want string
	}{
		{"new not mapped", []Transition{{Old: "posts_by_user", New: "user_posts_v1", Stage: DualWrite}}, postMappings(),
			"user_posts_v1: is the new table of a transition but no mapping writes it"},
		{"old not mapped", []Transition{{Old: "user_posts_v1", New: "posts_by_user", Stage: ReadNew}}, postMappings(),
			"user_posts_v1: is the old table of a transition at read-new but no mapping writes it: map it until the transition is at new-only"},
		{"same table", []Transition{{Old: "posts_by_user", New: "app.posts_by_user", Stage: DualWrite}}, postMappings(),
			"is both the old and the new table"},
		{"two transitions", []Transition{{New: "posts_by_hashtag"}, {Old: "posts_by_hashtag", New: "posts_by_user"}}, postMappings(),
			"is in two transitions"},
		{"no new table", []Transition{{Old: "posts_by_user"}}, postMappings(), "no new table"},
		{"bad stage", []Transition{{New: "posts_by_hashtag", Stage: 7}}, postMappings(), "stage 7: want OldOnly"},
		{"two sources", nil, append(postMappings(), userPostsV1().Source(func(Values) (*post, error) { return nil, nil })),
			"a second Source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(nil, schema, Options{Transitions: tc.trs}, tc.maps...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// Once a transition is at NewOnly, the migration dropping the old table may ship before
// the code forgets its mapping: the mapping of a table gone from the schema is ignored then,
// and only then.
func TestTransitionOldTableDropped(t *testing.T) {
	schema := schemaOf("app", postsCQL) // user_posts_v1 dropped
	maps := append(postMappings(), userPostsV1())
	m, err := New(nil, schema, Options{Transitions: []Transition{{Old: "user_posts_v1", New: "posts_by_user", Stage: NewOnly}}}, maps...)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Tables(), " "); got != "app.posts_by_id app.posts_by_user app.posts_by_hashtag" {
		t.Errorf("tables %s", got)
	}
	if _, err := New(nil, schema, Options{Transitions: []Transition{{Old: "app.user_posts_v1", New: "posts_by_user", Stage: NewOnly}}}, maps...); err != nil {
		t.Errorf("the old table named keyspace.table, its mapping table: %v", err)
	}
	_, err = New(nil, schema, Options{Transitions: []Transition{{Old: "user_posts_v1", New: "posts_by_user", Stage: ReadNew}}}, maps...)
	var se *SchemaError
	if !errors.As(err, &se) || se.Table != "user_posts_v1" {
		t.Errorf("at read-new, a dropped old table: %v", err)
	}
}

// Two Sources are allowed when they are one transition's tables; Load reads the one the
// stage reads.
func TestTransitionSource(t *testing.T) {
	schema := schemaOf("app", postsCQL, `CREATE TABLE posts_by_id_v2 (post_id timeuuid PRIMARY KEY, user_id uuid, content text, hashtags frozen<set<text>>, created_at timestamp)`)
	maps := postMappings()
	maps = append(maps, Map("posts_by_id_v2", maps[0].rows).Source(maps[0].source))
	for _, tc := range []struct {
		stage Stage
		want  string
	}{{DualWrite, "app.posts_by_id"}, {ReadNew, "app.posts_by_id_v2"}} {
		m, err := New(nil, schema, Options{Transitions: []Transition{{Old: "posts_by_id", New: "posts_by_id_v2", Stage: tc.stage}}}, maps...)
		if err != nil {
			t.Fatal(err)
		}
		src, err := m.readSource()
		if err != nil || m.tables[src].name != tc.want {
			t.Errorf("%s: Load reads %v (%v), want %s", tc.stage, m.tables[src].name, err, tc.want)
		}
	}
	m, err := New(nil, schemaOf("app", postsCQL), Options{Transitions: []Transition{{New: "posts_by_id", Stage: DualWrite}}}, postMappings()...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.readSource(); err == nil || !strings.Contains(err.Error(), "not read before its transition's read-new stage") {
		t.Errorf("Load of a Source not read yet: %v", err)
	}
}

func TestStageText(t *testing.T) {
	for s := OldOnly; s <= NewOnly; s++ {
		b, err := json.Marshal(struct{ S Stage }{s})
		if err != nil {
			t.Fatal(err)
		}
		var back struct{ S Stage }
		if err := json.Unmarshal(b, &back); err != nil || back.S != s {
			t.Errorf("%s: %s read back as %v (%v)", s, b, back.S, err)
		}
	}
	for in, want := range map[string]Stage{"DUAL_WRITE": DualWrite, " read-new ": ReadNew, "new-only": NewOnly} {
		if got, err := ParseStage(in); err != nil || got != want {
			t.Errorf("ParseStage(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseStage("dual"); err == nil || !strings.Contains(err.Error(), "want old-only, dual-write, read-new, new-only") {
		t.Errorf("ParseStage(dual): %v", err)
	}
	if _, err := Stage(9).MarshalText(); err == nil || fmt.Sprint(Stage(9)) != "Stage(9)" {
		t.Errorf("Stage(9) marshals")
	}
}
