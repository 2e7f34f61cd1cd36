package derive_test

import (
	"fmt"
	"log"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
)

// A post becomes one row of posts_by_hashtag per hashtag, under its day bucket.
func Example() {
	schema := cql.NewSchema()
	err := schema.ApplyFile("schema.cql", []byte(`
		CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE app.posts (post_id text PRIMARY KEY, created_at timestamp, hashtags set<text>, body text);
		CREATE TABLE app.posts_by_hashtag (hashtag text, day text, post_id text, body text,
		  PRIMARY KEY ((hashtag, day), post_id));`))
	if err != nil {
		log.Fatal(err)
	}
	src, _ := schema.FindTable("app.posts")
	dst, _ := schema.FindTable("app.posts_by_hashtag")
	var rules []derive.Rule
	for _, text := range []string{"hashtag=each(hashtags)", "day=day(created_at)"} {
		r, err := derive.ParseRule(text)
		if err != nil {
			log.Fatal(err)
		}
		rules = append(rules, r)
	}
	p, err := derive.Compile(src, dst, rules)
	if err != nil {
		log.Fatal(err)
	}
	rows, err := p.Apply(map[string]any{
		"post_id": "p1", "created_at": time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC),
		"hashtags": []string{"cassandra", "go"}, "body": "hello",
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rows {
		fmt.Println(r["hashtag"], r["day"], r["post_id"], r["body"])
	}
	// Output:
	// cassandra 2024-01-15 p1 hello
	// go 2024-01-15 p1 hello
}

// A type error says where in the rule it is.
func ExampleCompile_error() {
	schema := cql.NewSchema()
	err := schema.ApplyFile("schema.cql", []byte(`
		CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE app.posts (post_id text PRIMARY KEY, title text);
		CREATE TABLE app.posts_by_month (month text, post_id text, PRIMARY KEY (month, post_id));`))
	if err != nil {
		log.Fatal(err)
	}
	src, _ := schema.FindTable("app.posts")
	dst, _ := schema.FindTable("app.posts_by_month")
	r, err := derive.ParseRule("month=month(title)")
	if err != nil {
		log.Fatal(err)
	}
	_, err = derive.Compile(src, dst, []derive.Rule{r})
	fmt.Println(err)
	// Output: col 7: month() needs a timestamp, date or timeuuid column; title is text
}
