package denorm_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/workload"
)

const schemaCQL = `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
USE app;
CREATE TABLE posts_by_id (post_id timeuuid PRIMARY KEY, user_id uuid, content text);
CREATE TABLE posts_by_hashtag (
  hashtag text, month text, post_id timeuuid, content text,
  PRIMARY KEY ((hashtag, month), post_id)
) WITH CLUSTERING ORDER BY (post_id DESC);
`

type Post struct {
	ID       gocql.UUID // a timeuuid
	UserID   gocql.UUID
	Content  string
	Hashtags []string
}

// A post is stored once by id and once per hashtag, under the month of its id.
func postModel(session *gocql.Session) (*denorm.Model[Post], error) {
	return postModelWith(session, denorm.Options{})
}

func postModelWith(session *gocql.Session, opts denorm.Options) (*denorm.Model[Post], error) {
	schema := cql.NewSchema()
	if err := schema.ApplyFile("schema.cql", []byte(schemaCQL)); err != nil {
		return nil, err
	}
	months, err := bucket.New(bucket.Month())
	if err != nil {
		return nil, err
	}
	return denorm.New(session, schema, opts,
		denorm.Map("posts_by_id", func(p *Post, out *denorm.Rows) error {
			out.Add().Set("post_id", p.ID).Set("user_id", p.UserID).Set("content", p.Content)
			return nil
		}),
		denorm.Map("posts_by_hashtag", func(p *Post, out *denorm.Rows) error {
			at, err := bucket.UUIDTime(p.ID)
			if err != nil {
				return err
			}
			for _, tag := range p.Hashtags {
				out.Add().Set("hashtag", tag).Set("month", months.For(at).String()).
					Set("post_id", p.ID).Set("content", p.Content)
			}
			return nil
		}),
	)
}

// PlanInsert shows what Insert sends, without a cluster: one statement per row, all with
// the same timestamp, and the batch measured as Cassandra measures it.
func ExampleModel_PlanInsert() {
	m, err := postModel(nil) // no session: plan only
	if err != nil {
		log.Fatal(err)
	}
	id := gocql.UUID(bucket.MinTimeUUID(time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)))
	p := &Post{ID: id, UserID: gocql.UUID{1}, Content: "hello", Hashtags: []string{"go", "cassandra"}}
	plan, err := m.PlanInsert(p, denorm.At(1705312800000000))
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range plan.Statements {
		fmt.Println(s.CQL)
	}
	fmt.Printf("%d bytes over %d mutations: under the %d-byte warning\n", plan.Size.Bytes, plan.Size.Mutations, denorm.DefaultWarnBytes)
	// Output:
	// INSERT INTO app.posts_by_id (post_id, user_id, content) VALUES (?, ?, ?) USING TIMESTAMP ?
	// INSERT INTO app.posts_by_hashtag (hashtag, month, post_id, content) VALUES (?, ?, ?, ?) USING TIMESTAMP ?
	// INSERT INTO app.posts_by_hashtag (hashtag, month, post_id, content) VALUES (?, ?, ?, ?) USING TIMESTAMP ?
	// 293 bytes over 3 mutations: under the 5120-byte warning
}

// Insert writes every copy in one logged batch; Update moves the rows whose key changed;
// Delete removes every copy. (Needs a cluster: compiled, not run.)
func ExampleModel_Insert() {
	var session *gocql.Session // connected to the cluster
	m, err := postModel(session)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	p := &Post{ID: gocql.TimeUUID(), UserID: gocql.TimeUUID(), Content: "hello", Hashtags: []string{"go", "cassandra"}}
	plan, err := m.Insert(ctx, p)
	if err != nil {
		log.Fatal(err) // a retry with denorm.At(plan.Timestamp) is safe
	}
	edited := *p
	edited.Hashtags = []string{"go"} // the cassandra row is deleted, the go row overwritten
	if _, err := m.Update(ctx, p, &edited, denorm.At(plan.Timestamp+1)); err != nil {
		log.Fatal(err)
	}
	if _, err := m.Delete(ctx, &edited); err != nil {
		log.Fatal(err)
	}
}

// Timeline pages through a hashtag's posts, newest month first, back to the year the
// posts are kept. A short page that stopped early is not the end: only an empty Next is.
// (Needs a cluster: compiled, not run.)
func ExampleTimeline() {
	var session *gocql.Session // connected to the cluster
	months, _ := bucket.New(bucket.Month())
	tl := &denorm.Timeline{
		Session:   session,
		Query:     "SELECT post_id, content FROM app.posts_by_hashtag WHERE hashtag = ? AND month = ?",
		Scheme:    months,
		Retention: 365 * 24 * time.Hour,                        // the walk's end: nothing older is kept
		KeyRate:   workload.Rate{Count: 20, Per: workload.Day}, // the typical hashtag: a page reads 2 months at most
		Secret:    []byte("from the service's configuration"),
	}
	token := ""
	for {
		page, err := tl.Page(context.Background(), denorm.PageRequest{Key: []any{"go"}, Limit: 20, Token: token})
		if err != nil {
			log.Fatal(err) // denorm.ErrBadToken for a token a client altered
		}
		for _, row := range page.Rows {
			fmt.Println(row["post_id"], row["content"])
		}
		if page.StoppedEarly {
			fmt.Println("older posts may exist: the next page goes on") // or offer "load more"
		}
		if token = page.Next; token == "" {
			break // the retention's end: no more posts
		}
	}
}

// Budget is how many buckets a page reads, per shard, before it stops early: twice what
// the typical key needs for the page, from its rate and the bucket's width.
func ExampleTimeline_Budget() {
	hours, _ := bucket.New(bucket.Hour())
	tl := &denorm.Timeline{Scheme: hours, Retention: 3 * 365 * 24 * time.Hour}
	for _, rate := range []workload.Rate{
		{Count: 2, Per: time.Hour},      // the p99 hashtag: 50 rows in 25 hours
		{Count: 0.7, Per: workload.Day}, // the median hashtag: 50 rows in 72 days, 1,715 hours
		{},                              // not known: the fallback
	} {
		tl.KeyRate = rate
		fmt.Printf("%s: %d hour buckets a page of 50\n", rate, tl.Budget(50))
	}
	// Output:
	// 2/hour: 50 hour buckets a page of 50
	// 0.7/day: 3430 hour buckets a page of 50
	// 0: 8 hour buckets a page of 50
}
