package liveschema_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
)

// Compare what a folder of migrations says with what the cluster has. Needs a cluster:
// compiled, not run.
func ExampleRead() {
	session, err := gocql.NewCluster("127.0.0.1").CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	want, err := cql.LoadSchema("migrations")
	if err != nil {
		log.Fatal(err)
	}
	got, err := liveschema.Read(context.Background(), session, "app")
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range liveschema.Diff(want, got) {
		fmt.Println(d) // e.g. keyspace app: table users: column email: type: want text, got int
	}
}
