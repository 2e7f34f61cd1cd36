package denorm

import (
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

const writePlanSchema = `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.posts (post_id text PRIMARY KEY, created_at timestamp, hashtags set<text>, body text);
CREATE TABLE app.posts_by_hashtag (hashtag text, hour text, shard int, created_at timestamp, post_id text, body text,
  PRIMARY KEY ((hashtag, hour, shard), created_at, post_id));
CREATE TABLE app.posts_by_post_id (post_id text PRIMARY KEY, created_at timestamp, hashtags frozen<set<text>>, body text);
CREATE TABLE app.posts_by_day (day date, post_id text, created_at timestamp, hashtags frozen<set<text>>, body text,
  PRIMARY KEY ((day), post_id));
CREATE TABLE app.posts_by_body (body text, created_at timestamp, post_id text, PRIMARY KEY ((body), created_at));
`

// homeEntry is the posts' home as cqlsize design writes it.
const homeEntry = `    - table: app.posts_by_post_id
      source: true
      derive:
        - post_id=post_id
`

// TestWritePlan loads a write plan as cqlsize design writes it and plans one post's writes:
// a row per hashtag, in the hour bucket of its time, on the shard of its id.
func TestWritePlan(t *testing.T) {
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(writePlanSchema)); err != nil {
		t.Fatal(err)
	}
	plan, err := ParseWritePlan("writeplan.yaml", []byte(`version: 1
entities:
  app.posts:
    - table: app.posts_by_hashtag
      derive:
        - hashtag=each(hashtags)
        - hour=hour(created_at)
        - shard=shard(post_id, 4)
        - created_at=created_at
        - post_id=post_id
`+homeEntry), s)
	if err != nil {
		t.Fatal(err)
	}
	e := plan.Entity("posts")
	if e == nil || len(e.Tables) != 2 || e.Source != "app.posts_by_post_id" {
		t.Fatalf("entity: %+v", e)
	}
	m, err := New[Values](nil, s, Options{}, e.Mappings()...)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.PlanInsert(&Values{"post_id": "p1", "created_at": time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC), "hashtags": []string{"go", "cql"}, "body": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Rows("app.posts_by_hashtag"); n != 2 {
		t.Errorf("%d rows, want one per hashtag (2)", n)
	}
	// A post without hashtags makes no row by hashtag, and is still stored in its home.
	p, err = m.PlanInsert(&Values{"post_id": "p2", "created_at": time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC), "body": "no tags"})
	if err != nil {
		t.Fatal(err)
	}
	if by, home := p.Rows("app.posts_by_hashtag"), p.Rows("app.posts_by_post_id"); by != 0 || home != 1 {
		t.Errorf("a post without hashtags: %d rows by hashtag, %d in its home; want 0 and 1", by, home)
	}
}

// TestWritePlanErrors: a rule that does not fit the tables is named at its file:line:col.
func TestWritePlanErrors(t *testing.T) {
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(writePlanSchema)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ plan, want string }{
		{"version: 1\nentities:\n  app.posts:\n    - table: app.posts_by_hashtag\n      derive:\n        - hashtag=each(hashtags)\n        - hour=hour(body)\n",
			"writeplan.yaml:7:16: write plan: app.posts -> app.posts_by_hashtag: rule \"hour=hour(body)\""},
		{"version: 1\nentities:\n  app.posts:\n    - table: app.nosuch\n" + homeEntry, "writeplan.yaml:4:14: write plan: app.posts -> app.nosuch"},
		{"version: 2\nentities: {}\n", "writeplan.yaml:1:10: write plan: version \"2\""},
	} {
		_, err := ParseWritePlan("writeplan.yaml", []byte(tc.plan), s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.plan, err, tc.want)
		}
	}
}

// TestWritePlanHome: source: true names the entity's home; a plan that could drop rows,
// and a source that is no home, are refused where the plan says so.
func TestWritePlanHome(t *testing.T) {
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(writePlanSchema)); err != nil {
		t.Fatal(err)
	}
	const byTag = "    - table: app.posts_by_hashtag\n      derive:\n        - hashtag=each(hashtags)\n        - hour=hour(created_at)\n        - shard=shard(post_id, 4)\n"
	head := "version: 1\nentities:\n  app.posts:\n"
	for _, tc := range []struct{ name, plan, source, err string }{
		{"marked", head + byTag + homeEntry, "app.posts_by_post_id", ""},
		// A plan written before source: existed: its one home is the source.
		{"inferred", head + byTag + "    - table: app.posts_by_post_id\n", "app.posts_by_post_id", ""},
		// posts_by_day holds every post once (its key holds post_id) but is keyed by a
		// bucket too: it keeps every row, yet is not the home, so nothing is read back.
		{"every row, no home", head + byTag + "    - table: app.posts_by_day\n      derive:\n        - day=day(created_at)\n", "", ""},
		{"fan-out only", head + byTag,
			"", "writeplan.yaml:4:5: write plan: app.posts: no table holds every row, so rows would be dropped without an error (app.posts_by_hashtag: it writes one row per element of hashtags, so a row whose hashtags is empty or null makes none); add the entity's home, a table keyed by its primary key (post_id) with every column, marked source: true"},
		{"key without the id", head + "    - table: app.posts_by_body\n",
			"", "app.posts_by_body: its primary key leaves out post_id of the entity's key, so two rows that differ there overwrite each other"},
		{"source is a fan-out", head + "    - table: app.posts_by_hashtag\n      source: true\n      derive:\n        - hashtag=each(hashtags)\n        - hour=hour(created_at)\n        - shard=shard(post_id, 4)\n" + homeEntry,
			"", "writeplan.yaml:5:15: write plan: app.posts -> app.posts_by_hashtag: source: true, but the source must hold every row once keyed by the entity's primary key (post_id) with every column: it writes one row per element of hashtags"},
		{"source keyed by a bucket", head + "    - table: app.posts_by_day\n      source: true\n      derive:\n        - day=day(created_at)\n",
			"", "writeplan.yaml:5:15: write plan: app.posts -> app.posts_by_day: source: true, but the source must hold every row once keyed by the entity's primary key (post_id) with every column: its key column day is day(created_at)"},
		{"two sources", head + homeEntry + "    - table: app.posts_by_day\n      source: true\n      derive:\n        - day=day(created_at)\n",
			"", "writeplan.yaml:9:15: write plan: app.posts -> app.posts_by_day: a second source (app.posts_by_post_id is one)"},
		{"not a boolean", head + "    - table: app.posts_by_post_id\n      source: yes please\n",
			"", "writeplan.yaml:5:15: write plan: app.posts -> app.posts_by_post_id: source: \"yes please\": want true or false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := ParseWritePlan("writeplan.yaml", []byte(tc.plan), s)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := plan.Entity("app.posts").Source; got != tc.source {
				t.Errorf("source %q, want %q", got, tc.source)
			}
		})
	}
}

// TestNewRefusesPlannedMappingsWithoutHome: a Model over the plan's fan-out table alone
// would drop the posts without hashtags, so New refuses it; with the home it builds.
func TestNewRefusesPlannedMappingsWithoutHome(t *testing.T) {
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(writePlanSchema)); err != nil {
		t.Fatal(err)
	}
	plan, err := ParseWritePlan("writeplan.yaml", []byte("version: 1\nentities:\n  app.posts:\n    - table: app.posts_by_hashtag\n      derive:\n        - hashtag=each(hashtags)\n        - hour=hour(created_at)\n        - shard=shard(post_id, 4)\n"+homeEntry), s)
	if err != nil {
		t.Fatal(err)
	}
	maps := plan.Entity("posts").Mappings()
	_, err = New[Values](nil, s, Options{}, maps[0])
	if want := "new model: write plan entity app.posts: none of the mapped tables holds every row"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("fan-out table alone: error %v, want %q", err, want)
	}
	if _, err := New[Values](nil, s, Options{}, maps...); err != nil {
		t.Errorf("with the home: %v", err)
	}
}

// TestHomeScanGivesTheEntityRow: a row read from a home whose columns are renamed comes
// back under the entity's column names, every column of the entity and nothing else.
func TestHomeScanGivesTheEntityRow(t *testing.T) {
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(`
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.trips (trip_id text PRIMARY KEY, city text, fare int);
CREATE TABLE app.trips_home (id text PRIMARY KEY, town text, fare int, note text);
`)); err != nil {
		t.Fatal(err)
	}
	plan, err := ParseWritePlan("writeplan.yaml", []byte("version: 1\nentities:\n  app.trips:\n    - table: app.trips_home\n      source: true\n      derive:\n        - id=trip_id\n        - town=city\n"), s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := homeScan(plan.Entity("trips").Programs[0])(Values{"id": "t1", "town": "Lyon", "fare": 1200, "note": "not the entity's"})
	if err != nil {
		t.Fatal(err)
	}
	want := Values{"trip_id": "t1", "city": "Lyon", "fare": 1200}
	if len(*got) != len(want) {
		t.Fatalf("got %v, want %v", *got, want)
	}
	for k, v := range want {
		if (*got)[k] != v {
			t.Errorf("%s = %v, want %v", k, (*got)[k], v)
		}
	}
}
