package migrations_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

// A history whose first file creates the target keyspace runs without Replication, from
// four processes at once on unbound sessions: one CREATE KEYSPACE (without IF NOT EXISTS)
// reaches the node first, the others' "already exists" is the keyspace being there, and the
// statement is recorded as done once, never sent from inside the locked run.
func TestFirstFileCreatesTheTargetKeyspace(t *testing.T) {
	admin := cassandratest.Session(t)
	ks := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	fsys := fstest.MapFS{
		"m/0001_keyspace.cql": {Data: []byte("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n")},
		"m/0002_users.cql":    {Data: []byte("CREATE TABLE IF NOT EXISTS users (id uuid PRIMARY KEY, name text);\n")},
	}
	set, err := migrations.LoadSet(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	if !migrations.CreatesKeyspace(set.Migrations, ks) || migrations.CreatesKeyspace(set.Migrations, "other") {
		t.Fatal("CreatesKeyspace does not see the first statement")
	}
	const procs = 4
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			m, err := migrations.New(cassandratest.Session(t), set.Migrations, migrations.Options{Keyspace: ks, LockTimeout: 2 * time.Minute})
			if err == nil {
				_, err = m.Up(ctx)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	var applied int
	var state string
	if err := admin.Query(`SELECT applied, state FROM `+ks+`.cqlsize_migrations WHERE target = ? AND version = 1`, ks).Scan(&applied, &state); err != nil || applied != 1 || state != "applied" {
		t.Fatalf("version 1: applied %d, state %q, %v", applied, state, err)
	}
	var n int
	if err := admin.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'users'`, ks).Scan(&n); err != nil || n != 1 {
		t.Fatalf("users: %d tables, %v", n, err)
	}
	// Without the CREATE KEYSPACE and without Replication, the message names all three fixes.
	none := "none_" + ks[len(ks)-8:]
	m, err := migrations.New(admin, set.Migrations[1:], migrations.Options{Keyspace: none})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = m.Up(ctx)
	if err == nil || !strings.Contains(err.Error(), "CREATE KEYSPACE "+none) || !strings.Contains(err.Error(), "replication") {
		t.Fatalf("missing keyspace, no CREATE KEYSPACE, no replication: %v", err)
	}
}
