package migrations_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cqlsize/cqlsize/migrations"
)

// golang-migrate's layout: {version}_{title}.up.cql are the migrations, the .down.cql
// beside them are left out and counted.
func TestLoadGolangMigrateLayout(t *testing.T) {
	fsys := fstest.MapFS{
		"m/1_init.up.cql":       {Data: []byte("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY);")},
		"m/1_init.down.cql":     {Data: []byte("DROP TABLE t;")},
		"m/2_add_v.up.cql":      {Data: []byte("ALTER TABLE t ADD v text;")},
		"m/2_add_v.down.cql":    {Data: []byte("ALTER TABLE t DROP v;")},
		"m/10_add_w.UP.CQL":     {Data: []byte("ALTER TABLE t ADD w int;")},
		"m/10_add_w.down.cql":   {Data: []byte("ALTER TABLE t DROP w;")},
		"m/README.md":           {Data: []byte("docs")},
		"m/seeds/1_seed.up.cql": {Data: []byte("in a sub-folder: not read")},
		"m/.10_hidden.down.cql": {Data: []byte("hidden")},
	}
	set, err := migrations.LoadSet(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range set.Migrations {
		got = append(got, m.Name)
	}
	if set.Layout != migrations.LayoutGolangMigrate || strings.Join(got, ",") != "init,add_v,add_w" || set.Migrations[2].Version != 10 {
		t.Fatalf("layout %s, migrations %v", set.Layout, got)
	}
	if set.Note() != "ignoring 3 .down.cql files: cqlsize does not run down migrations" {
		t.Errorf("note %q", set.Note())
	}
	sch, err := set.Schema("app")
	if err != nil {
		t.Fatal(err)
	}
	if tb := sch.Table("app", "t"); tb == nil || tb.Column("v") == nil || tb.Column("w") == nil {
		t.Fatalf("schema from the set: %v", tb)
	}
}

func TestLoadRefusesMixedLayouts(t *testing.T) {
	fsys := fstest.MapFS{
		"m/1_init.up.cql":   {Data: []byte("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY);")},
		"m/1_init.down.cql": {Data: []byte("DROP TABLE t;")},
		"m/0002_more.cql":   {Data: []byte("ALTER TABLE t ADD v text;")},
	}
	_, err := migrations.Load(fsys, "m")
	if !errors.Is(err, migrations.ErrMixedLayout) || !strings.Contains(err.Error(), "1_init.up.cql") || !strings.Contains(err.Error(), "0002_more.cql") {
		t.Fatalf("mixed layouts: %v", err)
	}
}

// An empty folder, or one with only sub-folders or other files, is an error naming the
// folder and what it holds: a deploy pointed at the wrong path must not "apply 0 files".
func TestLoadNoMigrations(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"empty", fstest.MapFS{"m": {Mode: 1 << 31}}, "it is empty"},
		{"sub-folders", fstest.MapFS{"m/a/0001_x.cql": {Data: []byte("x")}, "m/b/0002_y.cql": {Data: []byte("y")}}, "2 sub-folders (a/, b/)"},
		{"other files", fstest.MapFS{"m/README.md": {Data: []byte("x")}, "m/schema.sql": {Data: []byte("y")}}, "2 other files (README.md, schema.sql)"},
		{"only down files", fstest.MapFS{"m/1_a.down.cql": {Data: []byte("DROP TABLE t;")}}, "1 .down.cql file (m/1_a.down.cql)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := migrations.Load(tc.fsys, "m")
			if !errors.Is(err, migrations.ErrNoMigrations) || !strings.Contains(err.Error(), "migrations folder m") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrNoMigrations naming m and %q", err, tc.want)
			}
		})
	}
}

func TestParseNameLayouts(t *testing.T) {
	if v, name, err := migrations.ParseName("3_add_tags.up.cql"); err != nil || v != 3 || name != "add_tags" {
		t.Errorf("3_add_tags.up.cql: %d %q %v", v, name, err)
	}
	if _, _, err := migrations.ParseName("3_add_tags.down.cql"); !errors.Is(err, migrations.ErrBadName) || !strings.Contains(err.Error(), "down") {
		t.Errorf("3_add_tags.down.cql: %v", err)
	}
}
