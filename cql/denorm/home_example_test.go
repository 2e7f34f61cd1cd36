package denorm_test

import (
	"fmt"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
)

const ratingsCQL = `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.ratings (rating_id text PRIMARY KEY, driver_id text, rated_at timestamp, tags set<text>, stars int);
CREATE TABLE app.ratings_by_driver_id_tag (driver_id text, tag text, rated_at timestamp, rating_id text, stars int,
  PRIMARY KEY ((driver_id, tag), rated_at, rating_id));
CREATE TABLE app.ratings_by_rating_id (rating_id text PRIMARY KEY, driver_id text, rated_at timestamp, tags frozen<set<text>>, stars int);
`

// A write plan whose every table fans out over a set would store a rating without tags
// nowhere: ParseWritePlan refuses it, naming where the entity is and what to add.
func ExampleParseWritePlan_refused() {
	schema := cql.NewSchema()
	_ = schema.ApplyFile("schema.cql", []byte(ratingsCQL))
	_, err := denorm.ParseWritePlan("writeplan.yaml", []byte(`version: 1
entities:
  app.ratings:
    - table: app.ratings_by_driver_id_tag
      derive:
        - tag=each(tags)
`), schema)
	fmt.Println(err)
	// Output:
	// writeplan.yaml:4:5: write plan: app.ratings: no table holds every row, so rows would be dropped without an error (app.ratings_by_driver_id_tag: it writes one row per element of tags, so a row whose tags is empty or null makes none); add the entity's home, a table keyed by its primary key (rating_id) with every column, marked source: true, as cqlsize design writes it
}

// With the ratings' home marked source: true, a rating without tags is still written once,
// to its home, and the Model reads ratings back from it (Load, UpdateStored, DeleteByKey).
func ExampleWritePlan_home() {
	schema := cql.NewSchema()
	_ = schema.ApplyFile("schema.cql", []byte(ratingsCQL))
	plan, err := denorm.ParseWritePlan("writeplan.yaml", []byte(`version: 1
entities:
  app.ratings:
    - table: app.ratings_by_driver_id_tag
      derive:
        - tag=each(tags)
    - table: app.ratings_by_rating_id
      source: true
`), schema)
	if err != nil {
		fmt.Println(err)
		return
	}
	ratings := plan.Entity("ratings")
	m, err := denorm.New[denorm.Values](nil, schema, denorm.Options{}, ratings.Mappings()...)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := m.PlanInsert(&denorm.Values{"rating_id": "r1", "driver_id": "d7", "rated_at": time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC), "stars": 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("source:", ratings.Source)
	fmt.Println("rows by tag:", p.Rows("app.ratings_by_driver_id_tag"), "in the home:", p.Rows("app.ratings_by_rating_id"))
	// Output:
	// source: app.ratings_by_rating_id
	// rows by tag: 0 in the home: 1
}
