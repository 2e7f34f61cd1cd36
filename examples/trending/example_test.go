package trending_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/trending"
)

// A post's partition is its hashtag, the day of its timeuuid, and the shard its 16 bytes
// hash to: every writer and reader computes the same from the id alone.
func ExamplePlacement() {
	id, err := gocql.ParseUUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8") // a version 1 uuid of 1998-02-04
	if err != nil {
		log.Fatal(err)
	}
	day, shard, err := trending.Placement(id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("day %s, shard %d of %d\n", day, shard, trending.Shards)
	// Output:
	// day 1998-02-04, shard 4 of 5
}

// A service writes a post and reads the hashtag's last 24 hours, newest first, merged
// from every shard. (Needs a cluster with the migrations applied: compiled, not run.)
func ExampleNewTimeline() {
	ctx := context.Background()
	session, err := connect.Open(ctx, connect.Config{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	model, err := trending.NewModel(session, "app")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := model.Insert(ctx, &trending.Post{ID: gocql.TimeUUID(), UserID: gocql.TimeUUID(), Hashtag: "cassandra", Content: "#cassandra"}); err != nil {
		log.Fatal(err)
	}
	tl := trending.NewTimeline(session, "app", []byte("from the service's configuration"))
	now := time.Now()
	page, err := tl.Page(ctx, denorm.PageRequest{Key: []any{"cassandra"}, Newest: now, Oldest: now.Add(-24 * time.Hour), Limit: 50})
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range page.Rows {
		fmt.Println(row["post_id"], row["content"])
	}
}
