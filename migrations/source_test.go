package migrations_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/migrations"
)

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		in      string
		version int64
		name    string
		ok      bool
	}{
		{"0001_create_users.cql", 1, "create_users", true},
		{"12-add-tags.cql", 12, "add-tags", true},
		{"V3__flyway_style.cql", 3, "flyway_style", true},
		{"0007.cql", 7, "", true},
		{"20240101120000_big.cql", 20240101120000, "big", true},
		{"create_users.cql", 0, "", false},
		{"0000_zero.cql", 0, "zero", true},
		{"00000000000000_create-tables.cql", 0, "create-tables", true},
		{"V0__baseline.cql", 0, "baseline", true},
		{"99999999999999999999_overflow.cql", 0, "", false},
		{"0001_users.sql", 0, "", false},
	} {
		v, name, err := migrations.ParseName(tc.in)
		if (err == nil) != tc.ok || v != tc.version || name != tc.name {
			t.Errorf("ParseName(%q) = %d, %q, %v", tc.in, v, name, err)
		}
		if err != nil && !errors.Is(err, migrations.ErrBadName) {
			t.Errorf("ParseName(%q): %v is not ErrBadName", tc.in, err)
		}
	}
}

func TestLoadOrdersSplitsAndClassifies(t *testing.T) {
	fsys := fstest.MapFS{
		"db/10_later.cql":  {Data: []byte("INSERT INTO t (k) VALUES (1);")},
		"db/2_second.cql":  {Data: []byte("-- a comment first\nALTER TABLE t ADD v text;\n\n/* two */ CREATE ROLE IF NOT EXISTS r;")},
		"db/0001_t.cql":    {Data: []byte("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY, s text);\nINSERT INTO t (k, s) VALUES (0, 'x;y');")},
		"db/README.md":     {Data: []byte("not a migration")},
		"db/.0003_x.cql":   {Data: []byte("hidden")},
		"db/sub/0004.cql":  {Data: []byte("in a sub-folder")},
		"db/notes.cql.bak": {Data: []byte("backup")},
	}
	migs, err := migrations.Load(fsys, "db")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range migs {
		var kinds []string
		for _, s := range m.Statements {
			kinds = append(kinds, fmt.Sprintf("%d:%t", s.Pos.Line, s.Schema))
		}
		got = append(got, fmt.Sprintf("%d %s %s [%s]", m.Version, m.Name, m.File, strings.Join(kinds, " ")))
	}
	want := []string{
		"1 t db/0001_t.cql [1:true 2:false]",
		"2 second db/2_second.cql [2:true 4:false]",
		"10 later db/10_later.cql [1:false]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Load:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if migs[0].Statements[1].Text != "INSERT INTO t (k, s) VALUES (0, 'x;y')" || len(migs[0].Parsed) != 2 {
		t.Errorf("statement text %q, %d parsed", migs[0].Statements[1].Text, len(migs[0].Parsed))
	}
	if migs[1].Statements[0].Doc != "-- a comment first" {
		t.Errorf("doc comment %q", migs[1].Statements[0].Doc)
	}
	if len(migs[0].Checksum) != 64 || migs[0].Checksum == migs[1].Checksum {
		t.Errorf("checksums %q %q", migs[0].Checksum, migs[1].Checksum)
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0001_a.cql":    {Data: []byte("CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);")},
		"m/01_again.cql":  {Data: []byte("SELECT * FROM a;")},
		"m/users.cql":     {Data: []byte("SELECT * FROM a;")},
		"m/0005_bad.cql":  {Data: []byte("CREATE TABLE b (k int PRIMARY KEY);\nINSERT INTO b (k) VALUES ('unterminated);")},
		"m/0006_pars.cql": {Data: []byte("CREATE TABLE c (k int PRIMARY KEY);\nALTER TABLE c ADD;")},
	}
	_, err := migrations.Load(fsys, "m")
	if err == nil {
		t.Fatal("Load accepted a broken folder")
	}
	for _, want := range []string{"m/0001_a.cql and m/01_again.cql", "m/users.cql", "m/0005_bad.cql:2:", "m/0006_pars.cql:2:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if !errors.Is(err, migrations.ErrDuplicateVersion) || !errors.Is(err, migrations.ErrBadName) {
		t.Errorf("error does not wrap the sentinels: %v", err)
	}
	var pe *cql.Error
	if !errors.As(err, &pe) || pe.Pos.Line != 2 {
		t.Errorf("no *cql.Error with a position in %v", err)
	}
}

func TestLoadDirErrors(t *testing.T) {
	if _, err := migrations.LoadDir("testdata/nope"); err == nil || !strings.Contains(err.Error(), "testdata/nope") {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := migrations.LoadDir("source_test.go"); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a file as folder: %v", err)
	}
	migs, err := migrations.LoadDir("testdata/set")
	if err != nil || len(migs) < 20 || !strings.HasPrefix(migs[0].File, "testdata/set/") {
		t.Fatalf("LoadDir(testdata/set): %d files, %v", len(migs), err)
	}
}

func TestErrorMessages(t *testing.T) {
	pe := &migrations.PartialError{File: "m/0003_x.cql", Version: 3, Statement: 2, Total: 5, Applied: 1,
		Pos: cql.Pos{File: "m/0003_x.cql", Line: 7, Col: 1}, Err: errors.New("boom")}
	if got := pe.Error(); got != "m/0003_x.cql:7:1: statement 2 of 5 failed (1 applied, recorded; the next run continues from statement 2): boom" {
		t.Errorf("PartialError: %q", got)
	}
	de := &migrations.DisagreementError{Statement: "m/0003_x.cql:7:1", Err: errors.New("context deadline exceeded"),
		Versions: map[string]string{"10.0.0.1": "v2", "10.0.0.2:7000": "v2", "10.0.0.3:7000": "v1"}}
	if !errors.Is(de, migrations.ErrSchemaDisagreement) || !strings.Contains(de.Error(), "10.0.0.3:7000 has v1 (the others have v2)") {
		t.Errorf("DisagreementError: %q", de.Error())
	}
	le := &migrations.LockedError{Holder: migrations.LockHolder{Host: "web-3", PID: 77}}
	if !errors.Is(le, migrations.ErrLocked) || !strings.Contains(le.Error(), "web-3 pid 77") {
		t.Errorf("LockedError: %q", le.Error())
	}
}
