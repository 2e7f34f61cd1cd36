package denorm

import (
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
)

// post is the entity of the design notes' posts example: one post, three query tables.
// Its db tags name the columns gocqlx would bind (MapStruct reads them; Map ignores them).
type post struct {
	ID       gocql.UUID `db:"post_id"` // a timeuuid: its time picks the month bucket
	UserID   gocql.UUID // user_id
	Content  *string    // nil: not written (unset)
	Hashtags []string
	Created  time.Time `db:"created_at"`
}

// postsCQL is the schema the tests map, as a migration would create it.
const postsCQL = `
CREATE TABLE posts_by_id (
  post_id timeuuid PRIMARY KEY,
  user_id uuid,
  content text,
  hashtags frozen<set<text>>,
  created_at timestamp
);
CREATE TABLE posts_by_user (
  user_id uuid,
  month text,
  post_id timeuuid,
  content text,
  hashtags frozen<set<text>>,
  PRIMARY KEY ((user_id, month), post_id)
) WITH CLUSTERING ORDER BY (post_id DESC);
CREATE TABLE posts_by_hashtag (
  hashtag text,
  month text,
  post_id timeuuid,
  user_id uuid,
  content text,
  PRIMARY KEY ((hashtag, month), post_id)
) WITH CLUSTERING ORDER BY (post_id DESC);
`

// schemaOf models CQL statements applied in keyspace, as the cql package reads them.
func schemaOf(keyspace string, stmts ...string) *cql.Schema {
	s := cql.NewSchema()
	src := "CREATE KEYSPACE " + keyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nUSE " + keyspace + ";\n"
	for _, st := range stmts {
		src += strings.TrimRight(strings.TrimSpace(st), ";") + ";\n"
	}
	if err := s.ApplyFile("schema.cql", []byte(src)); err != nil {
		panic(err)
	}
	return s
}

// postsSchema is postsCQL as the cql package models it.
func postsSchema(keyspace string) *cql.Schema { return schemaOf(keyspace, postsCQL) }

var months = mustScheme(bucket.Month())

func mustScheme(w bucket.Width) bucket.Scheme {
	s, err := bucket.New(w)
	if err != nil {
		panic(err)
	}
	return s
}

// monthOf is the bucket of a post: the month of its timeuuid.
func monthOf(id gocql.UUID) (string, error) {
	t, err := bucket.UUIDTime(id)
	if err != nil {
		return "", err
	}
	return months.For(t).String(), nil
}

// postMappings maps a post to its three tables.
func postMappings() []Mapping[post] {
	return []Mapping[post]{
		Map("posts_by_id", func(p *post, out *Rows) error {
			out.Add().Set("post_id", p.ID).Set("user_id", p.UserID).Set("content", p.Content).
				Set("hashtags", p.Hashtags).Set("created_at", p.Created)
			return nil
		}).Source(func(v Values) (*post, error) {
			p := &post{ID: v["post_id"].(gocql.UUID), UserID: v["user_id"].(gocql.UUID), Created: v["created_at"].(time.Time)}
			if c, ok := v["content"].(string); ok {
				p.Content = &c
			}
			p.Hashtags, _ = v["hashtags"].([]string)
			return p, nil
		}),
		Map("posts_by_user", func(p *post, out *Rows) error {
			m, err := monthOf(p.ID)
			if err != nil {
				return err
			}
			out.Add().Set("user_id", p.UserID).Set("month", m).Set("post_id", p.ID).
				Set("content", p.Content).Set("hashtags", p.Hashtags)
			return nil
		}),
		Map("posts_by_hashtag", func(p *post, out *Rows) error {
			m, err := monthOf(p.ID)
			if err != nil {
				return err
			}
			for _, h := range p.Hashtags {
				out.Add().Set("hashtag", h).Set("month", m).Set("post_id", p.ID).
					Set("user_id", p.UserID).Set("content", p.Content)
			}
			return nil
		}),
	}
}

func newPostModel(t testing.TB, s *gocql.Session, schema *cql.Schema, opts Options) *Model[post] {
	t.Helper()
	m, err := New(s, schema, opts, postMappings()...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func str(s string) *string { return &s }

// fixedPost is a post with fixed ids, for golden plans.
func fixedPost(tags ...string) *post {
	at := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)
	return &post{
		ID:       gocql.UUID(bucket.MinTimeUUID(at)),
		UserID:   gocql.UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		Content:  str("hello"),
		Hashtags: tags,
		Created:  at,
	}
}
