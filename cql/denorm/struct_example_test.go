package denorm_test

import (
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
)

// PostRow is a service's gocqlx model, as it was before denorm: each field's column is
// its db tag, else its name in snake_case.
type PostRow struct {
	PostID   gocql.UUID // post_id, a timeuuid
	UserID   gocql.UUID // user_id
	Body     string     `db:"content"`
	Hashtags []string   // no such column: fanned out below
	Draft    bool       `db:"-"`
}

// MapStruct maps the model to both tables of the schema without a row function: the
// month bucket is derived from the id, and posts_by_hashtag gets one row per hashtag.
func ExampleMapStruct() {
	schema := cql.NewSchema()
	if err := schema.ApplyFile("schema.cql", []byte(schemaCQL)); err != nil {
		log.Fatal(err)
	}
	months, err := bucket.New(bucket.Month())
	if err != nil {
		log.Fatal(err)
	}
	month := denorm.WithColumn("month", func(p *PostRow) (any, error) {
		at, err := bucket.UUIDTime(p.PostID)
		if err != nil {
			return nil, err
		}
		return months.For(at).String(), nil
	})
	m, err := denorm.New(nil, schema, denorm.Options{}, // no session: plan only
		denorm.MapStruct[PostRow]("posts_by_id", denorm.AsSource()),
		denorm.MapStruct[PostRow]("posts_by_hashtag", month, denorm.FanOut("hashtags", "hashtag")),
	)
	if err != nil {
		log.Fatal(err)
	}
	id := gocql.UUID(bucket.MinTimeUUID(time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)))
	p := &PostRow{PostID: id, UserID: gocql.UUID{1}, Body: "hello", Hashtags: []string{"go", "cassandra"}}
	plan, err := m.PlanInsert(p, denorm.At(1705312800000000))
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range plan.Statements {
		fmt.Println(s.CQL)
		fmt.Println("  ", s.Args[:len(s.Args)-1]) // the last is the timestamp
	}
	// Output:
	// INSERT INTO app.posts_by_id (post_id, user_id, content) VALUES (?, ?, ?) USING TIMESTAMP ?
	//    [d8411000-b38c-11ee-8080-808080808080 01000000-0000-0000-0000-000000000000 hello]
	// INSERT INTO app.posts_by_hashtag (hashtag, month, post_id, content) VALUES (?, ?, ?, ?) USING TIMESTAMP ?
	//    [go 2024-01 d8411000-b38c-11ee-8080-808080808080 hello]
	// INSERT INTO app.posts_by_hashtag (hashtag, month, post_id, content) VALUES (?, ?, ?, ?) USING TIMESTAMP ?
	//    [cassandra 2024-01 d8411000-b38c-11ee-8080-808080808080 hello]
}
