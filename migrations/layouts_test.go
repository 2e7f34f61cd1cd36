package migrations_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cqlsize/cqlsize/migrations"
)

func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, src := range files {
		fsys["m/"+name] = &fstest.MapFile{Data: []byte(src)}
	}
	return fsys
}

// order lists a set's files as "version:label:name".
func order(set *migrations.Set) string {
	var out []string
	for _, m := range set.Migrations {
		out = append(out, fmt.Sprintf("%d:%s:%s", m.Version, m.VersionLabel(), m.Name))
	}
	return strings.Join(out, " ")
}

// Flyway orders versions numerically part by part (1.5 before 1.46), reads V1_2__ as 1.2,
// and takes V<dotted>_<description> too; its repeatable and undo files are left out.
func TestLoadFlywayLayout(t *testing.T) {
	set, err := migrations.LoadSet(mapFS(map[string]string{
		"V1__init.cql":            "CREATE TABLE t (k int PRIMARY KEY);",
		"V1.46_cassandra.cql":     "ALTER TABLE t ADD c text;",
		"V1.5__five.cql":          "ALTER TABLE t ADD b text;",
		"V1_2__underscored.cql":   "ALTER TABLE t ADD a text;",
		"V2__two.cql":             "ALTER TABLE t ADD d text;",
		"R__views.cql":            "-- repeatable",
		"U2__undo_two.cql":        "ALTER TABLE t DROP d;",
		"flyway.conf":             "flyway.locations=filesystem:.",
		"V1.10.1__patch.cql":      "ALTER TABLE t ADD e text;",
		"V1.10__ten.cql":          "ALTER TABLE t ADD f text;",
		"V1.9.0__nine.cql":        "ALTER TABLE t ADD g text;",
		"V1.9.0.1__nine_one.cql":  "ALTER TABLE t ADD h text;",
		"V1.45.99__just_before.c": "not a .cql file",
	}), "m")
	if err != nil {
		t.Fatal(err)
	}
	want := "1:1:init 2:1.2:underscored 3:1.5:five 4:1.9.0:nine 5:1.9.0.1:nine_one 6:1.10:ten 7:1.10.1:patch 8:1.46:cassandra 9:2:two"
	if set.Layout != migrations.LayoutFlyway || order(set) != want {
		t.Fatalf("layout %s, order\n got %s\nwant %s", set.Layout, order(set), want)
	}
	notes := strings.Join(set.Notes(), "\n")
	for _, w := range []string{"ignoring R__views.cql: Flyway's repeatable", "ignoring U2__undo_two.cql"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}

// A Flyway folder of single numbers keeps them as versions: histories recorded before
// dotted versions were read stay as they were.
func TestLoadFlywayWholeVersionsKeepTheirNumbers(t *testing.T) {
	set, err := migrations.LoadSet(mapFS(map[string]string{
		"V1__init.cql": "CREATE TABLE t (k int PRIMARY KEY);",
		"V7__more.cql": "ALTER TABLE t ADD v text;",
	}), "m")
	if err != nil {
		t.Fatal(err)
	}
	if got := order(set); set.Layout != migrations.LayoutFlyway || got != "1:1:init 7:7:more" {
		t.Fatalf("layout %s, %s", set.Layout, got)
	}
}

func TestLoadFlywayRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
		is    error
	}{
		{"1.0 and 1 are one version", map[string]string{"V1__a.cql": "SELECT * FROM system.local;", "V1.0__b.cql": "SELECT * FROM system.local;"},
			[]string{"m/V1__a.cql", "m/V1.0__b.cql", "same version (1)"}, migrations.ErrDuplicateVersion},
		{"lower-case v with a dotted version", map[string]string{"V1__a.cql": "SELECT * FROM system.local;", "v1.1__b.cql": "SELECT * FROM system.local;"},
			[]string{"m/v1.1__b.cql: migration file name does not start with a version number", "--layout gocqlx"}, migrations.ErrBadName},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := migrations.LoadSet(mapFS(c.files), "m")
			if !errors.Is(err, c.is) {
				t.Fatalf("want %v, got %v", c.is, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
	_, err := migrations.LoadSetAs(mapFS(map[string]string{"0001_a.cql": "SELECT * FROM system.local;"}), "m", migrations.LayoutFlyway)
	if !errors.Is(err, migrations.ErrBadName) || !strings.Contains(err.Error(), "V<version>__<description>.cql") {
		t.Errorf("a plain name in an asked-for Flyway layout: %v", err)
	}
}

// gocqlx applies every *.cql file in the byte order of its name, whatever the name, and
// is never guessed: unversioned names are refused with the way to ask for it.
func TestLoadGocqlxLayout(t *testing.T) {
	files := map[string]string{
		"001-init.cql": "CREATE TABLE t (k int PRIMARY KEY);",
		"002_add.cql":  "ALTER TABLE t ADD v text;",
		"v10.0.0.cql":  "ALTER TABLE t ADD x text;",
		"v2.0.0.cql":   "ALTER TABLE t ADD y text;",
		"notes.txt":    "not a migration",
	}
	if _, err := migrations.LoadSet(mapFS(files), "m"); !errors.Is(err, migrations.ErrBadName) || !strings.Contains(err.Error(), "--layout gocqlx") {
		t.Fatalf("detected without being asked: %v", err)
	}
	set, err := migrations.LoadSetAs(mapFS(files), "m", migrations.LayoutGocqlx)
	if err != nil {
		t.Fatal(err)
	}
	want := "1:001-init:001-init 2:002_add:002_add 3:v10.0.0:v10.0.0 4:v2.0.0:v2.0.0"
	if set.Layout != migrations.LayoutGocqlx || order(set) != want {
		t.Fatalf("layout %s, order\n got %s\nwant %s", set.Layout, order(set), want)
	}
}

// gocqlx's callback lines are found as gocqlx finds them: a ';'-separated piece that is
// one `-- CALL name;` comment, placed between the statements around it.
func TestGocqlxCallLines(t *testing.T) {
	src := `CREATE TABLE a (k int PRIMARY KEY);
-- CALL fill_a;
CREATE TABLE b (k int PRIMARY KEY);
-- a remark in the same piece hides the next line from gocqlx:
-- CALL hidden;
INSERT INTO b (k) VALUES (1);
--CALL at_end;
`
	set, err := migrations.LoadSetAs(mapFS(map[string]string{"001_x.cql": src}), "m", migrations.LayoutGocqlx)
	if err != nil {
		t.Fatal(err)
	}
	m := set.Migrations[0]
	var got []string
	for _, c := range m.Calls {
		got = append(got, fmt.Sprintf("%s after %d at %d:%d", c.Name, c.After, c.Pos.Line, c.Pos.Col))
	}
	want := "fill_a after 1 at 2:1, at_end after 3 at 7:1"
	if strings.Join(got, ", ") != want || len(m.Statements) != 3 {
		t.Fatalf("calls %q (want %q), %d statements", strings.Join(got, ", "), want, len(m.Statements))
	}
}

// Version folders, each with a manifest.json naming its files in order, are ordered by
// their version, numerically.
func TestLoadManifestLayout(t *testing.T) {
	set, err := migrations.LoadSet(mapFS(map[string]string{
		"v0.1/manifest.json":  `{"CurrVersion": "0.1", "MinCompatibleVersion": "0.1", "Description": "base", "SchemaUpdateCqlFiles": ["base.cql"]}`,
		"v0.1/base.cql":       "CREATE TABLE t (k int PRIMARY KEY);",
		"v0.10/manifest.json": `{"CurrVersion": "0.10", "Description": "ten", "SchemaUpdateCqlFiles": ["ten.cql"]}`,
		"v0.10/ten.cql":       "ALTER TABLE t ADD ten text;",
		"v0.2/manifest.json":  `{"CurrVersion": "0.2", "Description": "two files", "SchemaUpdateCqlFiles": ["b.cql", "a.cql"]}`,
		"v0.2/a.cql":          "ALTER TABLE t ADD a text;",
		"v0.2/b.cql":          "ALTER TABLE t ADD b text;",
		"v0.2/stray.cql":      "ALTER TABLE t ADD stray text;",
		"drafts/next.cql":     "ALTER TABLE t ADD draft text;",
	}), "m")
	if err != nil {
		t.Fatal(err)
	}
	want := "1:0.1:base 2:0.2/b.cql:b 3:0.2/a.cql:a 4:0.10:ten"
	if set.Layout != migrations.LayoutManifest || order(set) != want {
		t.Fatalf("layout %s, order\n got %s\nwant %s", set.Layout, order(set), want)
	}
	notes := strings.Join(set.Notes(), "\n")
	for _, w := range []string{"ignoring m/v0.2/stray.cql: no manifest.json lists it", "ignoring m/drafts/: it holds no manifest.json"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	sch, err := set.Schema("app")
	if err != nil {
		t.Fatal(err)
	}
	if tb := sch.Table("app", "t"); tb == nil || tb.Column("ten") == nil || tb.Column("stray") != nil {
		t.Fatalf("schema from the manifests: %v", tb)
	}
}

func TestLoadManifestRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"broken JSON", map[string]string{"v1/manifest.json": "{\n  \"CurrVersion\": \"1.0\",\n  \"SchemaUpdateCqlFiles\": [\"a.cql\"\n}", "v1/a.cql": "SELECT * FROM system.local;"},
			"m/v1/manifest.json:4:1: invalid character '}'"},
		{"a listed file missing", map[string]string{"v1/manifest.json": `{"CurrVersion": "1.0", "SchemaUpdateCqlFiles": ["gone.cql"]}`},
			"m/v1/manifest.json lists gone.cql"},
		{"no file listed", map[string]string{"v1/manifest.json": `{"CurrVersion": "1.0"}`},
			"m/v1/manifest.json: SchemaUpdateCqlFiles lists no file"},
		{"a version that is not one", map[string]string{"v1/manifest.json": `{"CurrVersion": "one", "SchemaUpdateCqlFiles": ["a.cql"]}`, "v1/a.cql": "SELECT * FROM system.local;"},
			`CurrVersion "one": want a version such as 1.0`},
		{"two folders, one version", map[string]string{
			"v1/manifest.json": `{"CurrVersion": "1.0", "SchemaUpdateCqlFiles": ["a.cql"]}`, "v1/a.cql": "SELECT * FROM system.local;",
			"v1b/manifest.json": `{"CurrVersion": "1", "SchemaUpdateCqlFiles": ["a.cql"]}`, "v1b/a.cql": "SELECT * FROM system.local;"},
			"two migration files have the same version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := migrations.LoadSetAs(mapFS(c.files), "m", migrations.LayoutManifest)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want %q, got %v", c.want, err)
			}
		})
	}
}

func TestParseLayout(t *testing.T) {
	for in, want := range map[string]migrations.Layout{"": "", "auto": "", "Flyway": migrations.LayoutFlyway, " gocqlx ": migrations.LayoutGocqlx, "manifest": migrations.LayoutManifest} {
		if got, err := migrations.ParseLayout(in); err != nil || got != want {
			t.Errorf("ParseLayout(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := migrations.ParseLayout("liquibase"); !errors.Is(err, migrations.ErrUnknownLayout) || !strings.Contains(err.Error(), "auto, cqlsize, flyway, golang-migrate, gocqlx or manifest") {
		t.Errorf("ParseLayout(liquibase): %v", err)
	}
}

// The figures were computed apart from this code, with Python's zlib.crc32 over the
// files' bytes with every line ending and a leading byte order mark removed, read as
// signed 32-bit numbers, as Flyway records them.
func TestFlywayChecksum(t *testing.T) {
	for src, want := range map[string]int32{
		"CREATE TABLE a (id int PRIMARY KEY);\n": 1112353363,
		"\xef\xbb\xbfx;\r\ny;\r\n":               -402164091,
		"a\rb\n\nc":                              891568578,
		"":                                       0,
	} {
		if got := migrations.FlywayChecksum([]byte(src)); got != want {
			t.Errorf("FlywayChecksum(%q) = %d, want %d", src, got, want)
		}
	}
}
