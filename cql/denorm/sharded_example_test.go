package denorm_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql/denorm"
)

// A hot hashtag's posts are spread over 5 write shards per day, each post in the shard
// bucket.Shard picks from its id; the timeline reads every shard's newest day, merges them
// newest first, and stops at the oldest bound. (Needs a cluster: compiled, not run.)
func ExampleTimeline_sharded() {
	var session *gocql.Session // connected to the cluster
	days, _ := bucket.New(bucket.Day())

	// Writing: the shard comes from the post id, never from the hashtag.
	id := gocql.TimeUUID()
	shard, _ := bucket.Shard(id[:], 5)
	at, _ := bucket.UUIDTime(id)
	_ = session.Query("INSERT INTO app.posts_by_hashtag (hashtag, day, shard, post_id, content) VALUES (?, ?, ?, ?, ?)",
		"cassandra", days.For(at).String(), shard, id, "hello").Exec()

	// Reading: the last 24 hours (the walk's end), 20 posts a page.
	tl := &denorm.Timeline{
		Session: session,
		Query:   "SELECT post_id, content FROM app.posts_by_hashtag WHERE hashtag = ? AND day = ? AND shard = ?",
		Scheme:  days,
		Shards:  5,
		Secret:  []byte("from the service's configuration"),
	}
	req := denorm.PageRequest{Key: []any{"cassandra"}, Oldest: time.Now().Add(-24 * time.Hour), Limit: 20}
	for {
		page, err := tl.Page(context.Background(), req)
		if err != nil {
			log.Fatal(err)
		}
		for _, row := range page.Rows {
			fmt.Println(row["post_id"], row["content"])
		}
		if req.Token = page.Next; req.Token == "" {
			break
		}
	}
}
