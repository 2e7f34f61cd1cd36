package keylayout_test

import (
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/keylayout"
)

// The table that serves "a user's posts with a tag": the element of the set is named in the
// singular, after the equality column.
func ExampleOf() {
	s := cql.NewSchema()
	_ = s.ApplyFile("schema.cql", []byte(`
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.posts (post_id timeuuid PRIMARY KEY, user_id uuid, title text, tags set<text>);`))
	l, err := keylayout.Of(keylayout.Pattern{
		Source:   s.Table("app", "posts"),
		Eq:       []string{"user_id"},
		Contains: &keylayout.Contains{Column: "tags"},
		Want:     []string{"title"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Table(l.Name(), map[string]bool{"title": true}, false).CreateStatement(true))
	// Output:
	// CREATE TABLE IF NOT EXISTS app.posts_by_user_id_tag (
	//     user_id uuid,
	//     tag text,
	//     post_id timeuuid,
	//     title text,
	//     PRIMARY KEY ((user_id, tag), post_id)
	// )
}
