package migrations_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cqlsize/cqlsize/migrations"
)

// A numbered .sql file beside the .cql ones is named by the load (it was meant as a
// migration and will never run); other files are left out quietly, as before.
func TestLoadNamesNumberedSQLFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"db/0001_a.cql":     {Data: []byte("CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);")},
		"db/0002_b.sql":     {Data: []byte("CREATE TABLE IF NOT EXISTS b (k int PRIMARY KEY);")},
		"db/V3__c.SQL":      {Data: []byte("CREATE TABLE IF NOT EXISTS c (k int PRIMARY KEY);")},
		"db/4_d.down.cql":   {Data: []byte("DROP TABLE d;")},
		"db/schema.sql":     {Data: []byte("not numbered")},
		"db/0005_notes.txt": {Data: []byte("not sql")},
	}
	set, err := migrations.LoadSet(fsys, "db")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ignoring 1 .down.cql file: cqlsize does not run down migrations",
		"ignoring 0002_b.sql: migrations are .cql files",
		"ignoring V3__c.SQL: migrations are .cql files",
	}
	if got := set.Notes(); !slices.Equal(got, want) {
		t.Errorf("notes:\n got %q\nwant %q", got, want)
	}
	if len(set.Migrations) != 1 {
		t.Errorf("%d migrations, want 1", len(set.Migrations))
	}
}

// Version 0 is refused as what it is, still an ErrBadName for callers that test for it.
func TestLoadRefusesVersionZeroByName(t *testing.T) {
	_, err := migrations.Load(fstest.MapFS{"db/0000_init.cql": {Data: []byte("CREATE TABLE a (k int PRIMARY KEY);")}}, "db")
	if !errors.Is(err, migrations.ErrVersionZero) || !errors.Is(err, migrations.ErrBadName) {
		t.Fatalf("error %v: want ErrVersionZero and ErrBadName", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "db/0000_init.cql: version 0") || !strings.Contains(msg, "versions start at 1") || strings.Contains(msg, "does not start with a version number") {
		t.Errorf("message %q", msg)
	}
	// Other bad names keep what is wanted, with the file's path.
	_, err = migrations.Load(fstest.MapFS{"db/init.cql": {Data: []byte("CREATE TABLE a (k int PRIMARY KEY);")}}, "db")
	if err == nil || !strings.Contains(err.Error(), "db/init.cql: migration file name does not start with a version number: want NNNN_name.cql") {
		t.Errorf("bad name: %v", err)
	}
}

// A file with no statement loads (migrate new adds a template beside an unfilled one) and
// Empty names it, each such file once.
func TestEmptyNamesFilesWithNoStatement(t *testing.T) {
	migs, err := migrations.Load(fstest.MapFS{
		"db/0001_a.cql": {Data: []byte("CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);")},
		"db/0002_x.cql": {Data: []byte("-- x\n-- Created 2026-11-23.\n")},
		"db/0003_y.cql": {Data: []byte("")},
	}, "db")
	if err != nil {
		t.Fatal(err)
	}
	err = migrations.Empty(migs)
	if !errors.Is(err, migrations.ErrNoStatement) {
		t.Fatalf("Empty: %v", err)
	}
	for _, f := range []string{"db/0002_x.cql has no statement: fill it in or delete it", "db/0003_y.cql has no statement"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("Empty: %q does not hold %q", err, f)
		}
	}
	if strings.Contains(err.Error(), "0001_a") {
		t.Errorf("Empty names a file with a statement: %v", err)
	}
	if err := migrations.Empty(migs[:1]); err != nil {
		t.Errorf("Empty of a filled file: %v", err)
	}
}
