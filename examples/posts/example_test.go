package posts_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/posts"
)

// Hashtags are lower-cased, stripped of '#' and repeats, and sorted: #Go and #go are one
// partition of posts_by_hashtag.
func ExampleNormalizeHashtags() {
	tags, err := posts.NormalizeHashtags([]string{"#Go", "cassandra", "go"})
	fmt.Println(tags, err)
	_, err = posts.NormalizeHashtags([]string{"two words"})
	fmt.Println(err)
	// Output:
	// [cassandra go] <nil>
	// hashtag "two words": want at most 64 bytes of UTF-8 without spaces
}

// A post with two hashtags is four rows in one logged batch: by id, under its user's month,
// and once per hashtag. PlanInsert shows them without a cluster.
func ExampleMappings() {
	st, err := posts.NewStore(nil, "app", denorm.Options{Keyspace: "app"}, nil) // no session: plan only
	if err != nil {
		log.Fatal(err)
	}
	at := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)
	p := &posts.Post{ID: gocql.UUID(bucket.MinTimeUUID(at)), UserID: gocql.UUID{1}, Content: "hello", Hashtags: []string{"cassandra", "go"}, CreatedAt: at}
	plan, err := st.Model.PlanInsert(p)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range plan.Statements {
		fmt.Println(s.Table)
	}
	month, _ := posts.MonthOf(p.ID)
	fmt.Println("month:", month)
	// Output:
	// app.posts_by_id
	// app.posts_by_user
	// app.posts_by_hashtag
	// app.posts_by_hashtag
	// month: 2024-01
}

// A service creates a post and reads its user's timeline. (Needs a cluster with the
// migrations applied: compiled, not run.)
func ExampleStore() {
	ctx := context.Background()
	session, err := posts.Open(ctx, connect.Config{Hosts: []string{"127.0.0.1"}}, denorm.ClusterOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	st, err := posts.NewStore(session, "posts", denorm.Options{}, []byte("from the service's configuration"))
	if err != nil {
		log.Fatal(err)
	}
	p, err := posts.NewPost(gocql.TimeUUID(), "hello", []string{"go"})
	if err != nil {
		log.Fatal(err)
	}
	if err := st.Create(ctx, p); err != nil {
		log.Fatal(err)
	}
	page, err := st.UserTimeline(ctx, p.UserID, 20, "")
	if err != nil {
		log.Fatal(err)
	}
	for _, post := range page.Posts {
		fmt.Println(post.CreatedAt, post.Content)
	}
}
