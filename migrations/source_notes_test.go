package migrations_test

import (
	"crypto/sha256"
	"encoding/hex"
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

// Version 0 is a version like any other (JHipster's 00000000000000_create-tables.cql,
// Flyway's V0__): it loads, sorts first by number whatever its padding, and its checksum is
// the file's sha256 as for every version. Names that are not versions still say what is wanted.
func TestLoadAcceptsVersionZero(t *testing.T) {
	for _, layout := range []map[string]string{
		{"db/00000000000000_create-tables.cql": "a", "db/20190101000000_added_entity.cql": "b"},
		{"db/V0__init.cql": "a", "db/V1__more.cql": "b"},
		{"db/0_init.up.cql": "a", "db/0_init.down.cql": "", "db/1_more.up.cql": "b"},
		{"db/0000_init.cql": "a", "db/2_more.cql": "b"},
	} {
		fsys := fstest.MapFS{}
		for name, table := range layout {
			text := ""
			if table != "" {
				text = "CREATE TABLE IF NOT EXISTS " + table + " (k int PRIMARY KEY);"
			}
			fsys[name] = &fstest.MapFile{Data: []byte(text)}
		}
		migs, err := migrations.Load(fsys, "db")
		if err != nil {
			t.Errorf("%v: %v", layout, err)
			continue
		}
		if len(migs) != 2 || migs[0].Version != 0 || migs[1].Version <= 0 {
			t.Errorf("%v: versions %v", layout, versionsOf(migs))
			continue
		}
		sum := sha256.Sum256(fsys[strings.TrimPrefix(migs[0].File, "")].Data)
		if migs[0].Checksum != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: checksum %s, want the file's sha256", migs[0].File, migs[0].Checksum)
		}
	}
	_, err := migrations.Load(fstest.MapFS{"db/init.cql": {Data: []byte("CREATE TABLE a (k int PRIMARY KEY);")}}, "db")
	if err == nil || !strings.Contains(err.Error(), "db/init.cql: migration file name does not start with a version number: want NNNN_name.cql") {
		t.Errorf("bad name: %v", err)
	}
}

func versionsOf(migs []*migrations.Migration) []int64 {
	var out []int64
	for _, m := range migs {
		out = append(out, m.Version)
	}
	return out
}

// A file with no statement loads (migrate new adds a template beside an unfilled one).
// Empty names an unfilled template; a file of comments only and a 0-byte file (Flyway
// accepts both) are no-op versions; a history with no statement at all is refused.
func TestEmptyNamesFilesWithNoStatement(t *testing.T) {
	migs, err := migrations.Load(fstest.MapFS{
		"db/0001_a.cql":    {Data: []byte("CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);")},
		"db/0002_x.cql":    {Data: []byte("-- x\n-- Created 2026-11-23. " + migrations.TemplateMarker + "; each is recorded\n")},
		"db/0003_y.cql":    {Data: []byte("")},
		"db/0004_note.cql": {Data: []byte("-- Intentionally blank: kept so the versions stay contiguous.\n")},
	}, "db")
	if err != nil {
		t.Fatal(err)
	}
	err = migrations.Empty(migs)
	if !errors.Is(err, migrations.ErrNoStatement) {
		t.Fatalf("Empty: %v", err)
	}
	if f := "db/0002_x.cql has no statement: it is the `migrate new` template, unfilled"; !strings.Contains(err.Error(), f) {
		t.Errorf("Empty: %q does not hold %q", err, f)
	}
	if strings.Contains(err.Error(), "0001_a") || strings.Contains(err.Error(), "0004_note") || strings.Contains(err.Error(), "0003_y") {
		t.Errorf("Empty names a file with a statement or a no-op (comments only, or 0 bytes): %v", err)
	}
	if !migs[2].NoOp() {
		t.Errorf("a 0-byte file is not a no-op version")
	}
	if err := migrations.Empty([]*migrations.Migration{migs[0], migs[3]}); err != nil {
		t.Errorf("Empty of a filled file and a no-op: %v", err)
	}
	if !migs[3].NoOp() || migs[0].NoOp() {
		t.Errorf("NoOp: %v %v", migs[3].NoOp(), migs[0].NoOp())
	}
	if err := migrations.Empty(migs[3:]); err == nil || !strings.Contains(err.Error(), "not one statement") {
		t.Errorf("a history of comments only: %v", err)
	}
}

// TestEmptyFileIsANoOpWithANote: a 0-byte file is a no-op version, and its note says it is empty.
func TestEmptyFileIsANoOpWithANote(t *testing.T) {
	set, err := migrations.LoadSet(fstest.MapFS{
		"db/0001_a.cql": {Data: []byte("CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);")},
		"db/0002_b.cql": {Data: []byte("")},
	}, "db")
	if err != nil {
		t.Fatal(err)
	}
	if err := migrations.Empty(set.Migrations); err != nil {
		t.Errorf("Empty refuses a 0-byte file: %v", err)
	}
	if k := set.Migrations[1].NoOpKind(); k != "an empty file" {
		t.Errorf("the note of a 0-byte file says %q", k)
	}
	if k := set.Migrations[0].NoOpKind(); k != "no statement (comments only)" {
		t.Errorf("the note of a file with a statement says %q", k)
	}
}
