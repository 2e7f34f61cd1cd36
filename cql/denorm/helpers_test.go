package denorm

import (
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
)

// post is the entity of the design notes' posts example: one post, three query tables.
type post struct {
	ID       gocql.UUID // a timeuuid: its time picks the month bucket
	UserID   gocql.UUID
	Content  *string // nil: not written (unset)
	Hashtags []string
	Created  time.Time
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

// postsSchema is postsCQL as the cql package models it, built by hand.
func postsSchema(keyspace string) *cql.Schema {
	s := cql.NewSchema()
	ks := cql.NewKeyspace(keyspace)
	s.Keyspaces[keyspace] = ks
	add := func(t *cql.Table) { t.Keyspace = keyspace; ks.Tables[t.Name] = t }
	add(mkTable("posts_by_id", []string{"post_id"}, nil,
		"post_id timeuuid", "user_id uuid", "content text", "hashtags frozen<set<text>>", "created_at timestamp"))
	add(mkTable("posts_by_user", []string{"user_id", "month"}, []string{"post_id"},
		"user_id uuid", "month text", "post_id timeuuid", "content text", "hashtags frozen<set<text>>"))
	add(mkTable("posts_by_hashtag", []string{"hashtag", "month"}, []string{"post_id"},
		"hashtag text", "month text", "post_id timeuuid", "user_id uuid", "content text"))
	return s
}

// table builds a cql.Table from "name type" column specs.
func mkTable(name string, pk, ck []string, cols ...string) *cql.Table {
	t := &cql.Table{Name: name, Options: cql.TableOptions{GCGraceSeconds: cql.DefaultGCGraceSeconds}}
	for _, spec := range cols {
		var n, ty string
		fmt.Sscanf(spec, "%s %s", &n, &ty)
		c := &cql.Column{Name: n, Type: parseType(ty), Kind: cql.Regular, Position: -1}
		for i, k := range pk {
			if k == n {
				c.Kind, c.Position = cql.PartitionKey, i
				t.PartitionKey = append(t.PartitionKey, c)
			}
		}
		for i, k := range ck {
			if k == n {
				c.Kind, c.Position, c.Order = cql.Clustering, i, cql.Desc
				t.Clustering = append(t.Clustering, c)
			}
		}
		if len(ty) > 7 && ty[len(ty)-7:] == ":static" {
			c.Kind, c.Type = cql.Static, parseType(ty[:len(ty)-7])
		}
		t.Columns = append(t.Columns, c)
	}
	return t
}

func parseType(s string) cql.Type {
	switch {
	case len(s) > 7 && s[:7] == "frozen<":
		t := parseType(s[7 : len(s)-1])
		t.Frozen = true
		return t
	case len(s) > 4 && s[:4] == "set<":
		return cql.Type{Kind: cql.Set, Params: []cql.Type{parseType(s[4 : len(s)-1])}}
	case len(s) > 5 && s[:5] == "list<":
		return cql.Type{Kind: cql.List, Params: []cql.Type{parseType(s[5 : len(s)-1])}}
	case len(s) > 4 && s[:4] == "map<":
		return cql.Type{Kind: cql.Map, Params: []cql.Type{parseType("text"), parseType("text")}}
	}
	return cql.Type{Kind: cql.Native, Name: s}
}

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
