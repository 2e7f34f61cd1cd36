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
`), s)
	if err != nil {
		t.Fatal(err)
	}
	e := plan.Entity("posts")
	if e == nil || len(e.Tables) != 1 {
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
		{"version: 1\nentities:\n  app.posts:\n    - table: app.nosuch\n", "writeplan.yaml:4:14: write plan: app.posts -> app.nosuch"},
		{"version: 2\nentities: {}\n", "writeplan.yaml:1:10: write plan: version \"2\""},
	} {
		_, err := ParseWritePlan("writeplan.yaml", []byte(tc.plan), s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.plan, err, tc.want)
		}
	}
}
