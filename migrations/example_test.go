package migrations_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/migrations"
)

// Load reads versioned files from any fs.FS; a service can embed its migrations with
// //go:embed and pass the embed.FS. The lexer keeps ';' inside strings, comments and $$
// bodies in their statement.
func ExampleLoad() {
	fsys := fstest.MapFS{
		"migrations/0001_users.cql": {Data: []byte(`CREATE TABLE IF NOT EXISTS users (id uuid PRIMARY KEY, bio text);
-- a seed row: the ';' in the string does not end the statement
INSERT INTO users (id, bio) VALUES (5b6962dd-3f90-4c93-8f61-eabfa4a803e2, 'a;b');`)},
		"migrations/0002_tags.cql": {Data: []byte(`ALTER TABLE users ADD tags set<text>;`)},
	}
	migs, err := migrations.Load(fsys, "migrations")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range migs {
		fmt.Printf("version %d %q: %d statements, sha256 %s\n", m.Version, m.Name, len(m.Statements), migrations.ShortSum(m.Checksum))
		for _, s := range m.Statements {
			fmt.Printf("  %s schema change: %t\n", s.Pos, s.Schema)
		}
	}
	// Output:
	// version 1 "users": 2 statements, sha256 31dc6d1410c1
	//   migrations/0001_users.cql:1:1 schema change: true
	//   migrations/0001_users.cql:3:1 schema change: false
	// version 2 "tags": 1 statements, sha256 1565c2e595c9
	//   migrations/0002_tags.cql:1:1 schema change: true
}

// A service that embeds its migrations (//go:embed migrations/*.cql on an embed.FS) loads
// them once: LoadSet gives what the Migrator runs and, from the same parsed statements, the
// schema model (for denorm, checks and sizing). A fstest.MapFS stands in for the embed.FS.
func ExampleLoadSet() {
	fsys := fstest.MapFS{
		"migrations/0001_users.cql": {Data: []byte(`CREATE TABLE IF NOT EXISTS users (id uuid PRIMARY KEY, name text);`)},
		"migrations/0002_by_name.cql": {Data: []byte(`CREATE TABLE IF NOT EXISTS users_by_name (
    name text, id uuid, PRIMARY KEY (name, id));`)},
	}
	set, err := migrations.LoadSet(fsys, "migrations")
	if err != nil {
		fmt.Println(err)
		return
	}
	schema, err := set.Schema("app") // the keyspace the Migrator targets (Options.Keyspace)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d migrations (%s layout)\n", len(set.Migrations), set.Layout)
	for _, t := range schema.Tables() {
		fmt.Printf("%s: partition key %s\n", t.QualifiedName(), t.PartitionKey[0].Name)
	}
	// At start-up: migrations.New(session, set.Migrations, migrations.Options{Keyspace: "app"}).
	// Output:
	// 2 migrations (cqlsize layout)
	// app.users: partition key id
	// app.users_by_name: partition key name
}

// A service runs its migrations at start-up from every instance; one takes the lock and
// applies them, the others wait and find the work done. This example needs a cluster, so
// it is compiled but not run.
func ExampleMigrator_Up() {
	ctx := context.Background()
	cluster := gocql.NewCluster("10.0.0.1", "10.0.0.2")
	cluster.Keyspace = "app" // unqualified names in the files resolve here
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	// With //go:embed migrations/*.cql on a var of type embed.FS, pass it here instead.
	migs, err := migrations.LoadDir("migrations")
	if err != nil {
		log.Fatal(err) // file:line:col of the first broken statement
	}
	m, err := migrations.New(session, migs, migrations.Options{
		Keyspace: "app",
		OnEvent:  func(e migrations.Event) { log.Print(e) },
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := m.Up(ctx)
	var partial *migrations.PartialError
	switch {
	case errors.As(err, &partial):
		log.Fatalf("%s: statement %d failed; the next start continues there: %v", partial.File, partial.Statement, partial.Err)
	case errors.Is(err, migrations.ErrChecksumMismatch):
		log.Fatal(err) // someone edited an applied file
	case err != nil:
		log.Fatal(err)
	}
	log.Printf("applied %d migrations", len(res.Applied))
}
