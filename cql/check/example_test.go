package check_test

import (
	"fmt"
	"log"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/check"
)

// Check a service's queries against its schema before deploying: the login query filters
// on a column that is not in the primary key, so Cassandra would reject it, and the
// checker proposes the table that serves it.
func Example() {
	schema := cql.NewSchema()
	err := schema.ApplyFile("schema.cql", []byte(`
CREATE KEYSPACE app WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3};
CREATE TABLE app.users (user_id uuid PRIMARY KEY, email text, name text);`))
	if err != nil {
		log.Fatal(err)
	}
	queries, err := check.ParseQueries("queries.cql", []byte(`
-- query: profile  rate=800/s  p99=10ms
SELECT name, email FROM app.users WHERE user_id = ?;

-- query: login  rate=50/s
SELECT user_id, name FROM app.users WHERE email = ?;
`))
	if err != nil {
		log.Fatal(err)
	}
	results, err := check.Check(schema, queries, check.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range results {
		fmt.Printf("%s: %s, %s\n", r.Query.Name, r.Access, r.Verdict)
		for _, f := range r.Findings {
			fmt.Printf("  %s %s\n", f.Severity, f.Code)
		}
		if r.SuggestedTable != "" {
			fmt.Println(r.SuggestedTable)
			fmt.Println(r.SuggestedQuery)
		}
	}
	// Output:
	// profile: single-partition, ok
	// login: scan, needs_filtering
	//   fail QF001
	//   warn QF002
	// -- email is a key column here: changing it means deleting the row and inserting it again
	// CREATE TABLE IF NOT EXISTS app.users_by_email (
	//     email text,
	//     user_id uuid,
	//     name text,
	//     PRIMARY KEY ((email), user_id)
	// )
	// SELECT user_id, name FROM app.users_by_email WHERE email = ?
}
