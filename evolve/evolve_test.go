package evolve

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/golden"
	"github.com/cqlsize/cqlsize/workload"
)

// oldTables are the existing tables the cases evolve from.
const oldTables = `CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
USE app;
CREATE TABLE posts_by_id (post_id timeuuid PRIMARY KEY, user_id uuid, content text, hashtags frozen<set<text>>, created_at timestamp);
CREATE TABLE readings (sensor_id text, at timestamp, value double, PRIMARY KEY (sensor_id, at));
CREATE TABLE events (id uuid PRIMARY KEY, kind text, labels list<text>, tags set<text>, happened timestamp, seen timestamp);
CREATE TABLE plain (id uuid PRIMARY KEY, body text);
`

func oldSchema(t *testing.T) *cql.Schema {
	t.Helper()
	s := cql.NewSchema()
	if err := s.ApplyFile("old.cql", []byte(oldTables)); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestInfer checks which rule each key column of a new table gets, or why none fits.
func TestInfer(t *testing.T) {
	for _, tc := range []struct {
		name, from, create string
		given              []string
		want               string // rules, or the error
	}{
		{"fan-out by plural name, bucket from the clustering time", "posts_by_id",
			"CREATE TABLE posts_by_hashtag (hashtag text, month text, post_id timeuuid, content text, PRIMARY KEY ((hashtag, month), post_id))",
			nil, "hashtag=each(hashtags) month=month(post_id)"},
		{"day bucket into a date, named with a suffix", "readings",
			"CREATE TABLE readings_by_day (sensor_id text, at_day date, at timestamp, value double, PRIMARY KEY ((sensor_id, at_day), at))",
			nil, "at_day=day(at)"},
		{"year into an int", "readings",
			"CREATE TABLE readings_by_year (sensor_id text, year int, at timestamp, value double, PRIMARY KEY ((sensor_id, year), at))",
			nil, "year=year(at)"},
		{"nothing to derive", "posts_by_id",
			"CREATE TABLE posts_by_user2 (user_id uuid, post_id timeuuid, content text, PRIMARY KEY (user_id, post_id))",
			nil, ""},
		{"a given rule wins over inference", "posts_by_id",
			"CREATE TABLE posts_by_hashtag (hashtag text, month text, post_id timeuuid, PRIMARY KEY ((hashtag, month), post_id))",
			[]string{"month=month(created_at)"}, "month=month(created_at) hashtag=each(hashtags)"},
		{"each by element type when no name matches", "events",
			"CREATE TABLE events_by_word (word text, id uuid, PRIMARY KEY (word, id))",
			nil, `new.cql:1:30: word needs a derive rule: events has several sets or lists of text (labels, tags): give one such as word=each(COL)`},
		{"each by name among several", "events",
			"CREATE TABLE events_by_tag (tag text, id uuid, PRIMARY KEY (tag, id))",
			nil, "tag=each(tags)"},
		{"two time columns, neither in the key", "events",
			"CREATE TABLE events_by_day (day text, id uuid, PRIMARY KEY (day, id))",
			nil, "new.cql:1:29: day needs a derive rule: its name says a day bucket, but events has several time columns (happened, seen) and none is in the new table's key: give one such as day=day(COL)"},
		{"no time column", "plain",
			"CREATE TABLE plain_by_month (month text, id uuid, PRIMARY KEY (month, id))",
			nil, "plain has no timestamp, date or timeuuid column to cut it from"},
		{"shard needs its count", "readings",
			"CREATE TABLE readings_sharded (sensor_id text, shard int, at timestamp, PRIMARY KEY ((sensor_id, shard), at))",
			nil, "new.cql:1:48: shard needs a derive rule: a shard column holds bucket.Shard of a column of readings over N shards, and N is yours to choose (estimate's SZ102 says how many a hot key needs): give one such as shard=shard(COL, N)"},
		{"shard given", "readings",
			"CREATE TABLE readings_sharded (sensor_id text, shard int, at timestamp, PRIMARY KEY ((sensor_id, shard), at))",
			[]string{"shard=shard(sensor_id, 8)"}, "shard=shard(sensor_id, 8)"},
		{"nothing fits", "plain",
			"CREATE TABLE plain_by_owner (owner uuid, id uuid, PRIMARY KEY (owner, id))",
			nil, "new.cql:1:30: owner needs a derive rule: plain has no column owner, its name names no bucket"},
		{"a given rule of the wrong type", "plain",
			"CREATE TABLE plain_by_month (month text, id uuid, PRIMARY KEY (month, id))",
			[]string{"month=month(body)"}, `rule "month=month(body)": col 7: month() needs a timestamp, date or timeuuid column; body is text`},
		{"a given rule that does not parse", "plain",
			"CREATE TABLE plain_by_month (month text, id uuid, PRIMARY KEY (month, id))",
			[]string{"month=fortnight(body)"}, `rule "month=fortnight(body)": col 7: unknown function fortnight`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema, dst, err := NewTable(oldSchema(t), "app", "new.cql", []byte(tc.create))
			if err != nil {
				t.Fatal(err)
			}
			src := schema.Table("app", tc.from)
			got, _, err := Infer(src, dst, tc.given)
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) || tc.want == "" {
					t.Fatalf("error %q, want %q", err, tc.want)
				}
				return
			}
			var rules []string
			for _, d := range got {
				rules = append(rules, d.Rule())
			}
			if strings.Join(rules, " ") != tc.want {
				t.Fatalf("rules %q, want %q", strings.Join(rules, " "), tc.want)
			}
		})
	}
}

func TestNewTableRefused(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"-- nothing\n", "new.cql:1:1: no CREATE TABLE"},
		{"CREATE TABLE a (k int PRIMARY KEY);\nCREATE TABLE b (k int PRIMARY KEY);", "new.cql:2:1: a second CREATE TABLE"},
		{"CREATE TABLE a (k int PRIMARY KEY);\nDROP TABLE plain;", "new.cql:2:1: the new table's file holds its CREATE TABLE (and CREATE TYPEs) only"},
		{"CREATE TABLE IF NOT EXISTS plain (k int PRIMARY KEY);", "new.cql:1:1: app.plain already exists (old.cql:6:1)"},
		{"CREATE TABLE a (k int PRIMARY KEY, v nosuch);", "new.cql:1:"},
		{"CREATE TABLE a (k int PRIMARY KEY", "new.cql:1:"},
	} {
		_, _, err := NewTable(oldSchema(t), "app", "new.cql", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestPlanGolden renders two plans, text and JSON: adding posts_by_hashtag beside posts_by_id
// (sized by the posts example's workload, rows counted from it), and re-keying readings into
// day buckets with a given row count.
func TestPlanGolden(t *testing.T) {
	w, err := workload.Load("../examples/posts/workload.yaml")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, from, create string
		in                 Input
	}{
		{"add-hashtag", "posts_by_id", "CREATE TABLE posts_by_hashtag (hashtag text, month text, post_id timeuuid, user_id uuid, content text,\n  PRIMARY KEY ((hashtag, month), post_id)) WITH CLUSTERING ORDER BY (post_id DESC);\n",
			Input{KeepFrom: true, Workload: w, WorkloadFile: "workload.yaml", Rate: 5000, RateFrom: "--copy-rate",
				CreateFile: "migrations/0002_create_posts_by_hashtag.cql", DropFile: "migrations/0003_drop_posts_by_id.cql"}},
		{"rekey-readings", "readings", "CREATE TABLE readings_by_day (sensor_id text, day date, at timestamp, value double, note text,\n  PRIMARY KEY ((sensor_id, day), at));\n",
			Input{Rows: 3e9, RowsFrom: "--rows", Rate: 20000, RateFrom: "measured", Hosts: "10.0.0.1,10.0.0.2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			var err error
			in.Schema, in.To, err = NewTable(oldSchema(t), "app", "new.cql", []byte(tc.create))
			if err != nil {
				t.Fatal(err)
			}
			in.From, in.ToFile, in.ToSource, in.Now = in.Schema.Table("app", tc.from), "new.cql", tc.create, now
			p, err := Build(in)
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			if err := p.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			golden.Compare(t, filepath.Join("testdata", tc.name+".txt"), text.Bytes())
			var js bytes.Buffer
			if err := p.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			golden.Compare(t, filepath.Join("testdata", tc.name+".json"), js.Bytes())
		})
	}
}

// The rate must be a positive number; a key column without a rule stops the plan.
func TestBuildRefused(t *testing.T) {
	schema, dst, err := NewTable(oldSchema(t), "app", "new.cql", []byte("CREATE TABLE x (owner uuid, id uuid, PRIMARY KEY (owner, id))"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Input{Schema: schema, From: schema.Table("app", "plain"), To: dst}); err == nil || !strings.Contains(err.Error(), "copy rate") {
		t.Errorf("no rate: %v", err)
	}
	_, err = Build(Input{Schema: schema, From: schema.Table("app", "plain"), To: dst, Rate: 1})
	var need *NeedError
	if !errors.As(err, &need) || need.Column != "owner" || need.Pos.Line != 1 {
		t.Errorf("unmapped key column: %v", err)
	}
}

// The drop step names the old table as CQL must write it: a reserved word or a name with
// upper case is double-quoted, a plain or unreserved name is not.
func TestDropStepQuotesTheName(t *testing.T) {
	for _, tc := range []struct{ create, want string }{
		{`CREATE TABLE "table" (id uuid PRIMARY KEY, day date)`, `DROP TABLE IF EXISTS app."table";`},
		{`CREATE TABLE "Events" (id uuid PRIMARY KEY, day date)`, `DROP TABLE IF EXISTS app."Events";`},
		{`CREATE TABLE type (id uuid PRIMARY KEY, day date)`, `DROP TABLE IF EXISTS app.type;`},
	} {
		s := cql.NewSchema()
		if err := s.ApplyFile("old.cql", []byte("CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nUSE app;\n"+tc.create+";\n")); err != nil {
			t.Fatal(err)
		}
		from := s.Tables()[0]
		create := "CREATE TABLE by_day (day date, id uuid, PRIMARY KEY (day, id));\n"
		schema, dst, err := NewTable(s, "app", "new.cql", []byte(create))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(Input{Schema: schema, From: schema.Table("app", from.Name), To: dst, ToFile: "new.cql", ToSource: create, Rate: 1000})
		if err != nil {
			t.Fatal(err)
		}
		last := p.Steps[len(p.Steps)-1]
		if last.CQL != tc.want {
			t.Errorf("%s: the last step's CQL is %q, want %q", tc.create, last.CQL, tc.want)
		}
	}
}
