package cql

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// estimate and check read a migrations folder as migrate does: version 0 is the first
// version (JHipster's 00000000000000_create-tables.cql), and a numbered .sql file is named (MigrationNotes) rather than left out quietly.
func TestLoadDirAgreesWithMigrate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("0001_a.cql", "CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE k.a (id int PRIMARY KEY);\n")
	write("0002_b.sql", "CREATE TABLE k.b (id int PRIMARY KEY);\n")
	write("schema.sql", "not numbered\n")
	if _, err := LoadSchema(dir); err != nil {
		t.Fatal(err)
	}
	want := []string{"ignoring 0002_b.sql: migrations are .cql files"}
	if got := MigrationNotes(dir); !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
	if got := MigrationNotes(filepath.Join(dir, "0001_a.cql")); got != nil {
		t.Errorf("notes of a file: %q", got)
	}
	// Version 0 runs first: it creates the keyspace file 1 then uses.
	if err := os.Remove(filepath.Join(dir, "0001_a.cql")); err != nil {
		t.Fatal(err)
	}
	write("00000000000000_ks.cql", "CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n")
	write("20190101000000_z.cql", "CREATE TABLE k.z (id int PRIMARY KEY);\n")
	s, err := LoadSchema(dir)
	if err != nil || s.Keyspaces["k"] == nil || s.Keyspaces["k"].Tables["z"] == nil {
		t.Errorf("version 0 first: %v", err)
	}
}
