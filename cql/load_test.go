package cql

import (
	"errors"
	"os"
	"path/filepath"
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
