package cql

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadSchemaIn(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "0001_t.cql"), []byte("CREATE TABLE t (k int PRIMARY KEY, v text);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSchema(dir); !errors.Is(err, ErrNoKeyspace) {
		t.Fatalf("LoadSchema of keyspace-less migrations: err = %v, want ErrNoKeyspace", err)
	}
	s, err := LoadSchemaIn(dir, "app")
	if err != nil {
		t.Fatal(err)
	}
	if s.Table("app", "t") == nil {
		t.Fatalf("table t not in keyspace app: %v", s.Tables())
	}
	if _, err := LoadSchemaFSIn(os.DirFS(dir), ".", "app"); err != nil {
		t.Fatalf("LoadSchemaFSIn: %v", err)
	}
}

// IF EXISTS on an object whose keyspace does not exist does nothing, for every DROP and
// ALTER that takes it, as on a 5.0 node; without IF EXISTS it is an error, and so is a
// name with no keyspace at all (checked on the node: "No keyspace has been specified").
func TestIfExistsInMissingKeyspace(t *testing.T) {
	for _, q := range []string{
		"DROP INDEX IF EXISTS nosuchks.idx",
		"DROP MATERIALIZED VIEW IF EXISTS nosuchks.v",
		"ALTER MATERIALIZED VIEW IF EXISTS nosuchks.v WITH comment = 'x'",
		"DROP TABLE IF EXISTS nosuchks.t",
		"ALTER TABLE IF EXISTS nosuchks.t WITH comment = 'x'",
		"DROP TYPE IF EXISTS nosuchks.ty",
		"ALTER TYPE IF EXISTS nosuchks.ty ADD f int",
		"DROP FUNCTION IF EXISTS nosuchks.f",
		"DROP AGGREGATE IF EXISTS nosuchks.a",
	} {
		if err := NewSchema().ApplyFile("q.cql", []byte(q)); err != nil {
			t.Errorf("%s: %v, want no-op", q, err)
		}
		without := strings.Replace(q, " IF EXISTS", "", 1)
		if err := NewSchema().ApplyFile("q.cql", []byte(without)); err == nil || !strings.Contains(err.Error(), "keyspace nosuchks does not exist") {
			t.Errorf("%s: %v, want keyspace nosuchks does not exist", without, err)
		}
	}
	if err := NewSchema().ApplyFile("q.cql", []byte("DROP TABLE IF EXISTS t")); !errors.Is(err, ErrNoKeyspace) {
		t.Errorf("DROP TABLE IF EXISTS t with no keyspace: %v, want ErrNoKeyspace", err)
	}
}

// A golang-migrate folder reads as its up files: the down files undo them, and applying
// both (in version order, down after up) would leave the table out of the model.
func TestLoadSchemaSkipsDownFiles(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"1_users.up.cql":   "CREATE TABLE users (id uuid PRIMARY KEY, name text);\n",
		"1_users.down.cql": "DROP TABLE users;\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := LoadSchemaIn(dir, "app")
	if err != nil {
		t.Fatal(err)
	}
	if s.Table("app", "users") == nil {
		t.Fatalf("users not in the model of a folder with 1_users.up.cql: %v", s.Tables())
	}
}
