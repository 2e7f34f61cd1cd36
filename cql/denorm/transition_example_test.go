package denorm_test

import (
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql/denorm"
)

// A service adds posts_by_hashtag: the stage comes from its configuration, so dual writes,
// reads and the end of the transition are each a configuration change. (Plans only: a
// Model with a session sends what it plans.)
func ExampleTransition() {
	for _, configured := range []string{"old-only", "dual-write", "read-new"} {
		stage, err := denorm.ParseStage(configured) // or a Stage field in the config struct
		if err != nil {
			log.Fatal(err)
		}
		tr := denorm.Transition{New: "posts_by_hashtag", Stage: stage}
		m, err := postModelWith(nil, denorm.Options{Transitions: []denorm.Transition{tr}})
		if err != nil {
			log.Fatal(err)
		}
		id := gocql.UUID(bucket.MinTimeUUID(time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)))
		plan, err := m.PlanInsert(&Post{ID: id, Content: "hello", Hashtags: []string{"go", "cassandra"}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-10s writes posts_by_id %d, posts_by_hashtag %d rows; hashtag reads served: %v\n", stage,
			plan.Rows("app.posts_by_id"), plan.Rows("app.posts_by_hashtag"), m.Reads("posts_by_hashtag"))
	}
	// Output:
	// old-only   writes posts_by_id 1, posts_by_hashtag 0 rows; hashtag reads served: false
	// dual-write writes posts_by_id 1, posts_by_hashtag 2 rows; hashtag reads served: false
	// read-new   writes posts_by_id 1, posts_by_hashtag 2 rows; hashtag reads served: true
}
