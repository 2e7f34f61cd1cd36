package cql

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
)

// base is the schema the apply tests start from.
const base = `
CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
USE ks;
CREATE TYPE addr (street text, zip int);
CREATE TYPE person (name text, home frozen<addr>, tags set<text>);
CREATE TABLE t (k int, c int, v int, s int STATIC, l list<int>, m map<text, int>, fl frozen<list<int>>, PRIMARY KEY (k, c));
CREATE TABLE one (k int PRIMARY KEY, v int);
CREATE TABLE counts (k int PRIMARY KEY, n counter);
CREATE INDEX ON one (v);
CREATE TABLE mvbase (k int, c int, v int, w int, PRIMARY KEY (k, c));
CREATE MATERIALIZED VIEW mv AS SELECT k, c, v FROM mvbase WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k);
`

func baseSchema(t *testing.T) *Schema {
	t.Helper()
	s := NewSchema()
	if err := s.ApplyFile("base.cql", []byte(base)); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestApplyErrors checks the statements a 5.0 node rejects (each was run against a real
// node; the node's message is in the comment) are rejected at the right place.
func TestApplyErrors(t *testing.T) {
	tests := []struct{ stmt, want string }{
		// Keyspaces.
		{"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "1:17: keyspace ks already exists"},
		{"CREATE KEYSPACE k2 WITH durable_writes = true", "1:1: missing mandatory option replication"},
		{"CREATE KEYSPACE k2 WITH replication = {'class': 'NoSuch'}", "1:39: unknown replication strategy class \"NoSuch\""},
		{"CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy'} AND foo = 1", "1:71: unknown keyspace property foo"},
		{"CREATE KEYSPACE \"k-2\" WITH replication = {'class': 'SimpleStrategy'}", "1:17: invalid keyspace name \"k-2\": use letters, digits and underscores only"},
		{"CREATE KEYSPACE k23456789012345678901234567890123456789012345678901 WITH replication = {'class': 'SimpleStrategy'}", "1:17: keyspace name k23456789012345678901234567890123456789012345678901 is 51 characters long; the limit is 48"},
		{"DROP KEYSPACE nope", "1:15: keyspace nope does not exist"},
		{"ALTER KEYSPACE nope WITH durable_writes = false", "1:16: keyspace nope does not exist"},
		{"USE nope", "1:5: keyspace nope does not exist"},
		// CREATE TABLE: "Cannot add already existing table", "Duplicate column", ...
		{"CREATE TABLE t (k int PRIMARY KEY)", "1:14: table ks.t already exists"},
		{"CREATE TABLE mv (k int PRIMARY KEY)", "1:14: table ks.mv already exists"},
		{"CREATE TABLE nope.x (k int PRIMARY KEY)", "1:14: keyspace nope does not exist"},
		{"CREATE TABLE x (k int PRIMARY KEY, k text)", "1:36: duplicate column k in table x"},
		{"CREATE TABLE x (k int, c int, PRIMARY KEY (k, x))", "1:47: unknown column x in the PRIMARY KEY of table x"},
		{"CREATE TABLE x (k int, c int, PRIMARY KEY (k, k))", "1:47: duplicate column k in the PRIMARY KEY of table x"},
		{"CREATE TABLE x (k int)", "1:14: no PRIMARY KEY specified for table x (exactly one is required)"},
		{"CREATE TABLE x (k int PRIMARY KEY, c int PRIMARY KEY)", "1:42: more than one PRIMARY KEY specified for table x (exactly one is required)"},
		{"CREATE TABLE x (k int PRIMARY KEY, s int STATIC)", "1:36: static column s is only allowed in a table with clustering columns"},
		{"CREATE TABLE x (k int, c int, n counter, v int, PRIMARY KEY (k, c))", "1:42: cannot mix counter and non-counter columns in table x"},
		{"CREATE TABLE x (k list<int> PRIMARY KEY)", "1:17: invalid non-frozen collection type list<int> for PRIMARY KEY column k"},
		{"CREATE TABLE x (k addr PRIMARY KEY)", "1:17: invalid non-frozen user type addr for PRIMARY KEY column k"},
		{"CREATE TABLE x (k counter PRIMARY KEY, v int)", "1:17: counter type is not supported for PRIMARY KEY column k"},
		{"CREATE TABLE x (k int, c duration, PRIMARY KEY (k, c))", "1:52: duration type is not supported for PRIMARY KEY column c"},
		{"CREATE TABLE x (k int PRIMARY KEY, a list<list<int>>)", "1:38: non-frozen collections are not allowed inside collections: list<list<int>>"},
		{"CREATE TABLE x (k int PRIMARY KEY, a map<text, set<int>>)", "1:38: non-frozen collections are not allowed inside collections: map<text, set<int>>"},
		{"CREATE TABLE x (k int PRIMARY KEY, a list<addr>)", "1:38: non-frozen user types are not allowed inside collections: list<addr>"},
		{"CREATE TABLE x (k int PRIMARY KEY, a list<counter>)", "1:38: counters are not allowed inside collections: list<counter>"},
		{"CREATE TABLE x (k int PRIMARY KEY, a tuple<counter>)", "1:38: counters are not allowed inside tuples"},
		{"CREATE TABLE x (k int PRIMARY KEY, a set<duration>)", "1:38: durations are not allowed inside sets: set<duration>"},
		{"CREATE TABLE x (k int PRIMARY KEY, a map<duration, int>)", "1:38: durations are not allowed as map keys: map<duration, int>"},
		{"CREATE TABLE x (k int PRIMARY KEY, a nosuch)", "1:38: unknown type ks.nosuch"},
		{"CREATE TABLE x (k int PRIMARY KEY, a other.addr)", "1:38: user type other.addr is in another keyspace: user types can only be used in the keyspace ks they are defined in"},
		{"CREATE TABLE x (k int PRIMARY KEY, a person)", "1:38: non-frozen user types with nested non-frozen collections are not supported: write frozen<person>"},
		{"CREATE TABLE x (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (k DESC)", "1:77: only clustering columns can be in CLUSTERING ORDER BY: k is not one of x"},
		{"CREATE TABLE x (k int, c int, d int, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (d DESC)", "1:87: missing CLUSTERING ORDER for column c"},
		{"CREATE TABLE x (k int, c int, d int, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (d DESC, c ASC)", "1:87: missing CLUSTERING ORDER for column c"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH foo = 1", "1:41: unknown table property foo"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH read_repair_chance = 0.1", "1:41: table property read_repair_chance was removed in Cassandra 4.0 (read repair is now the read_repair option: 'BLOCKING' or 'NONE')"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH default_time_to_live = -1", "1:64: default_time_to_live must be greater than or equal to 0 (got -1)"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH default_time_to_live = 700000000", "1:64: default_time_to_live must be less than or equal to 630720000 (20 years; got 700000000)"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH gc_grace_seconds = 1.5", "1:60: invalid integer value 1.5 for gc_grace_seconds"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH default_time_to_live = 'abc'", "1:64: invalid integer value abc for default_time_to_live"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH compaction = 'x'", "1:54: invalid value for property compaction: it must be a map"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH compaction = {'class': 'NoSuchStrategy'}", "1:64: compaction sub-option class: unknown compaction strategy \"NoSuchStrategy\": 5.0 ships SizeTieredCompactionStrategy, LeveledCompactionStrategy, TimeWindowCompactionStrategy and UnifiedCompactionStrategy (names are case-sensitive)"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH comment = 'a' AND comment = 'b'", "1:59: multiple definitions for property comment"},
		{"CREATE TABLE x (k int PRIMARY KEY, n counter) WITH default_time_to_live = 10", "1:75: cannot set default_time_to_live on a table with counters"},
		{"CREATE TABLE x (k int, c int, v int, w int, PRIMARY KEY (k, c)) WITH COMPACT STORAGE", "1:38: COMPACT STORAGE with clustering columns allows no more than one column outside the PRIMARY KEY"},
		{"CREATE TABLE x (k int, c int, v set<int>, PRIMARY KEY (k, c)) WITH COMPACT STORAGE", "1:31: non-frozen collections and user types are not supported with COMPACT STORAGE"},
		{"CREATE TABLE x (k int PRIMARY KEY) WITH COMPACT STORAGE", "1:14: a COMPACT STORAGE table needs a column that is not part of the PRIMARY KEY"},
		{"CREATE TABLE \"my-table\" (k int PRIMARY KEY)", "1:14: invalid table name \"my-table\": use letters, digits and underscores only"},
		// ALTER TABLE.
		{"ALTER TABLE nope ADD x int", "1:13: table ks.nope does not exist"},
		{"ALTER TABLE t ADD v int", "1:19: column v already exists in table t"},
		{"ALTER TABLE t ADD (x int, x int)", "1:27: column x already exists in table t"},
		{"ALTER TABLE t ADD n counter", "1:21: cannot add counter column n to table t, which has no counters"},
		{"ALTER TABLE counts ADD v int", "1:26: cannot add non-counter column v to counter table counts"},
		{"ALTER TABLE one ADD s int STATIC", "1:21: static column s is only allowed in a table with clustering columns"},
		{"ALTER TABLE t ADD l2 list<list<int>>", "1:22: non-frozen collections are not allowed inside collections: list<list<int>>"},
		{"ALTER TABLE t DROP k", "1:20: cannot drop PRIMARY KEY column k"},
		{"ALTER TABLE t DROP nope", "1:20: column nope does not exist in table t"},
		{"ALTER TABLE one DROP v", "1:22: cannot drop column v: secondary indexes depend on it (one_v_idx)"},
		{"ALTER TABLE mvbase DROP w", "1:25: cannot drop column w of table mvbase, which has materialized views"},
		{"ALTER TABLE t RENAME v TO v2", "1:22: cannot rename non PRIMARY KEY column v"},
		{"ALTER TABLE t RENAME c TO k", "1:27: cannot rename column c to k: table t already has a column k"},
		{"ALTER TABLE t RENAME nope TO x", "1:22: column nope does not exist in table t"},
		{"ALTER TABLE t ALTER v TYPE blob", "1:21: altering column types is no longer supported"},
		{"ALTER TABLE t WITH foo = 1", "1:20: unknown table property foo"},
		{"ALTER TABLE t WITH id = 5b6962dd-3f90-4c93-8f61-eabfa4a803e2", "1:20: unknown table property id"},
		{"ALTER TABLE counts WITH default_time_to_live = 5", "1:48: cannot set default_time_to_live on a table with counters"},
		{"ALTER TABLE mv WITH comment = 'x'", "1:13: cannot use ALTER TABLE on materialized view mv: use ALTER MATERIALIZED VIEW"},
		{"DROP TABLE nope", "1:12: table ks.nope does not exist"},
		{"DROP TABLE mvbase", "1:12: cannot drop table mvbase: materialized views depend on it (mv)"},
		{"DROP TABLE mv", "1:12: mv is a materialized view: use DROP MATERIALIZED VIEW"},
		{"TRUNCATE nope", "1:10: table ks.nope does not exist"},
		// Types.
		{"CREATE TYPE addr (a int)", "1:13: user type ks.addr already exists"},
		{"CREATE TYPE u (a int, a text)", "1:23: duplicate field a in type u"},
		{"CREATE TYPE u (a counter)", "1:18: a user type cannot contain counters"},
		{"CREATE TYPE u (a u)", "1:18: a user type cannot contain non-frozen user types: write frozen<u>"},
		{"CREATE TYPE u (a addr)", "1:18: a user type cannot contain non-frozen user types: write frozen<addr>"},
		{"CREATE TYPE u (a list<list<int>>)", "1:18: non-frozen collections are not allowed inside collections: list<list<int>>"},
		{"ALTER TYPE nope ADD a int", "1:12: user type ks.nope does not exist"},
		{"ALTER TYPE addr ADD zip int", "1:21: field zip already exists in type addr"},
		{"ALTER TYPE addr RENAME nope TO x", "1:24: field nope does not exist in type addr"},
		{"ALTER TYPE addr RENAME street TO zip", "1:34: field zip already exists in type addr"},
		{"ALTER TYPE addr ALTER zip TYPE bigint", "1:23: altering field types is no longer supported"},
		{"DROP TYPE addr", "1:11: cannot drop user type ks.addr: it is still used by type person"},
		{"DROP TYPE nope", "1:11: user type ks.nope does not exist"},
		// Indexes.
		{"CREATE INDEX one_v_idx ON t (v)", "1:14: index one_v_idx already exists in keyspace ks"},
		{"CREATE INDEX ON one (v)", "1:1: index on v of table one duplicates existing index one_v_idx"},
		{"CREATE INDEX ON one (nope)", "1:22: column nope does not exist in table one"},
		{"CREATE INDEX ON one (k)", "1:22: cannot create a secondary index on the only partition key column k"},
		{"CREATE INDEX ON t (fl)", "1:20: cannot create a values() index on frozen column fl: index it whole with full(fl)"},
		{"CREATE INDEX ON t (keys(l))", "1:20: cannot create an index on the keys of column l, which is not a map"},
		{"CREATE INDEX ON t (full(l))", "1:20: full() indexes can only be created on frozen collections"},
		{"CREATE INDEX ON mv (v)", "1:17: secondary indexes on materialized views are not supported"},
		{"CREATE CUSTOM INDEX ON t (v)", "1:24: a CUSTOM index needs USING 'class'"},
		{"DROP INDEX nope", "1:12: index ks.nope does not exist"},
		// Materialized views.
		{"CREATE MATERIALIZED VIEW v2 AS SELECT * FROM t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)", "1:1: cannot include static column s in materialized view v2"},
		{"CREATE MATERIALIZED VIEW v2 AS SELECT k, c, v FROM mvbase WHERE k IS NOT NULL PRIMARY KEY (c, k)", "1:79: PRIMARY KEY columns c must be restricted with IS NOT NULL"},
		{"CREATE MATERIALIZED VIEW v2 AS SELECT k, v FROM mvbase WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (k)", "1:94: materialized view v2 must have every PRIMARY KEY column of table mvbase in its PRIMARY KEY: missing c"},
		{"CREATE MATERIALIZED VIEW v2 AS SELECT k, c, v AS x FROM mvbase WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)", "1:50: cannot use aliases when defining a materialized view"},
		{"CREATE MATERIALIZED VIEW v2 AS SELECT k, c, nope FROM mvbase WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)", "1:45: column nope does not exist in table mvbase"},
		{"CREATE MATERIALIZED VIEW v2 AS SELECT k, c, v FROM mvbase WHERE k IS NOT NULL AND c IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, c, k) WITH CLUSTERING ORDER BY (c DESC)", "1:163: a materialized view's CLUSTERING ORDER BY must list every clustering column"},
		{"CREATE MATERIALIZED VIEW v2 AS SELECT * FROM mvbase WHERE k IS NOT NULL AND c IS NOT NULL AND v IS NOT NULL AND w IS NOT NULL PRIMARY KEY ((v, w), c, k)", "1:144: a materialized view's PRIMARY KEY can hold at most one column that is not in the base table's PRIMARY KEY"},
		{"CREATE MATERIALIZED VIEW v2 AS SELECT * FROM counts WHERE k IS NOT NULL PRIMARY KEY (k)", "1:46: materialized views are not supported on counter tables"},
		{"ALTER MATERIALIZED VIEW one WITH comment = 'x'", "1:25: materialized view ks.one does not exist"},
		{"DROP MATERIALIZED VIEW one", "1:24: one is a table, not a materialized view: use DROP TABLE"},
		// DML must name existing tables.
		{"INSERT INTO nope (k) VALUES (1)", "1:13: table ks.nope does not exist"},
		{"SELECT * FROM other.t", "1:15: keyspace other does not exist"},
	}
	for _, tt := range tests {
		s := baseSchema(t)
		before := render(s)
		st, err := Parse("f.cql", []byte(tt.stmt))
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.stmt, err)
			continue
		}
		err = s.Apply(st)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Apply(%q) = %v, want *Error %q", tt.stmt, err, tt.want)
			continue
		}
		if got := strings.TrimPrefix(err.Error(), "f.cql:"); got != tt.want {
			t.Errorf("Apply(%q)\n error %q\n want  %q", tt.stmt, got, tt.want)
		}
		if after := render(s); after != before {
			t.Errorf("Apply(%q) failed but changed the schema:\n%s", tt.stmt, after)
		}
	}
}

func TestApplyNoKeyspace(t *testing.T) {
	s := NewSchema()
	err := s.ApplyFile("f.cql", []byte("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy'};\nCREATE TABLE t (k int PRIMARY KEY);"))
	if err == nil || err.Error() != "f.cql:2:14: no keyspace for t: qualify it as keyspace.t or USE a keyspace first" {
		t.Errorf("error = %v", err)
	}
	if len(s.Keyspaces) != 0 {
		t.Errorf("ApplyFile failed but applied %d keyspaces", len(s.Keyspaces))
	}
}

// TestApplyIfExists checks IF [NOT] EXISTS turns every "missing" or "exists" into a no-op.
func TestApplyIfExists(t *testing.T) {
	for _, stmt := range []string{
		"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy'}",
		"DROP KEYSPACE IF EXISTS nope",
		"ALTER KEYSPACE IF EXISTS nope WITH durable_writes = false",
		"CREATE TABLE IF NOT EXISTS t (x int PRIMARY KEY)",
		"ALTER TABLE IF EXISTS nope ADD x int",
		"ALTER TABLE t ADD IF NOT EXISTS v int",
		"ALTER TABLE t DROP IF EXISTS nope",
		"ALTER TABLE t RENAME IF EXISTS nope TO x",
		"DROP TABLE IF EXISTS nope",
		"CREATE TYPE IF NOT EXISTS addr (x int)",
		"ALTER TYPE IF EXISTS nope ADD x int",
		"ALTER TYPE addr ADD IF NOT EXISTS zip int",
		"ALTER TYPE addr RENAME IF EXISTS nope TO x",
		"DROP TYPE IF EXISTS nope",
		"CREATE INDEX IF NOT EXISTS one_v_idx ON one (v)",
		"CREATE INDEX IF NOT EXISTS ON one (v)",
		"DROP INDEX IF EXISTS nope",
		"CREATE MATERIALIZED VIEW IF NOT EXISTS mv AS SELECT * FROM one WHERE k IS NOT NULL PRIMARY KEY (k)",
		"ALTER MATERIALIZED VIEW IF EXISTS nope WITH comment = 'x'",
		"DROP MATERIALIZED VIEW IF EXISTS nope",
		"DROP FUNCTION IF EXISTS nope",
		"DROP AGGREGATE IF EXISTS nope",
	} {
		s := baseSchema(t)
		before := render(s)
		st, err := Parse("f.cql", []byte(stmt))
		if err != nil {
			t.Errorf("Parse(%q): %v", stmt, err)
			continue
		}
		if err := s.Apply(st); err != nil {
			t.Errorf("Apply(%q): %v", stmt, err)
		}
		if after := render(s); after != before {
			t.Errorf("Apply(%q) changed the schema:\n%s", stmt, after)
		}
	}
}

func TestApplyGolden(t *testing.T) {
	for _, in := range inputs(t, "schema/*.cql") {
		t.Run(in, func(t *testing.T) {
			s, err := LoadSchema(in)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(in, ".cql")+".golden", []byte(render(s)))
		})
	}
}

// render prints a schema in a stable text form for golden files and comparisons.
func render(s *Schema) string {
	var b strings.Builder
	ksNames := make([]string, 0, len(s.Keyspaces))
	for n := range s.Keyspaces {
		ksNames = append(ksNames, n)
	}
	sort.Strings(ksNames)
	fmt.Fprintf(&b, "current: %s\n", s.Current)
	for _, n := range ksNames {
		ks := s.Keyspaces[n]
		fmt.Fprintf(&b, "keyspace %s durable_writes=%v replication=%v\n", ks.Name, ks.DurableWrites, sortedMap(ks.Replication))
		for _, name := range sortedKeys(ks.Types) {
			ut := ks.Types[name]
			var fs []string
			for _, f := range ut.Fields {
				fs = append(fs, f.Name+" "+f.Type.String())
			}
			fmt.Fprintf(&b, "  type %s (%s)\n", ut.Name, strings.Join(fs, ", "))
		}
		for _, name := range sortedKeys(ks.Tables) {
			renderTable(&b, "table", ks.Tables[name])
		}
		for _, name := range sortedKeys(ks.Views) {
			v := ks.Views[name]
			fmt.Fprintf(&b, "  view of %s include_all=%v where %q\n", v.BaseTable, v.IncludeAll, v.Where)
			renderTable(&b, "  view", v.Table)
		}
		for _, name := range sortedKeys(ks.Indexes) {
			ix := ks.Indexes[name]
			fmt.Fprintf(&b, "  index %s on %s (%s) custom=%v class=%q options=%v\n", ix.Name, ix.Table, ix.Target, ix.Custom, ix.Class, sortedMap(ix.Options))
		}
		for _, name := range sortedKeys(ks.Functions) {
			fmt.Fprintf(&b, "  function %s\n", name)
		}
		for _, name := range sortedKeys(ks.Aggregates) {
			fmt.Fprintf(&b, "  aggregate %s\n", name)
		}
	}
	return b.String()
}

func renderTable(b *strings.Builder, what string, t *Table) {
	fmt.Fprintf(b, "  %s %s\n", what, t.QualifiedName())
	for _, c := range t.Columns {
		fmt.Fprintf(b, "    %s %s %s position=%d order=%s @%d:%d\n", c.Name, c.Type, c.Kind, c.Position, c.Order, c.Pos.Line, c.Pos.Col)
	}
	var pk, ck []string
	for _, c := range t.PartitionKey {
		pk = append(pk, c.Name)
	}
	for _, c := range t.Clustering {
		ck = append(ck, c.Name)
	}
	o := t.Options
	fmt.Fprintf(b, "    key ((%s), %s) ttl=%d gc_grace=%d compaction=%s compact_storage=%v comment=%q\n",
		strings.Join(pk, ", "), strings.Join(ck, ", "), o.DefaultTTL, o.GCGraceSeconds, o.CompactionClass(), o.CompactStorage, o.Comment)
	var raw []string
	for _, k := range sortedKeys(o.Raw) {
		raw = append(raw, fmt.Sprintf("%s=%v", k, o.Raw[k]))
	}
	if len(raw) > 0 {
		fmt.Fprintf(b, "    options %s\n", strings.Join(raw, " "))
	}
	if len(t.Dropped) > 0 {
		fmt.Fprintf(b, "    dropped %v\n", sortedMap(t.Dropped))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedMap[V any](m map[string]V) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s:%v", k, m[k]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func TestMigrationOrder(t *testing.T) {
	got, err := MigrationOrder([]string{"10_c.cql", "V2__b.cql", "0001_a.cql", "2_a.cql", "20240101_x.cql", "v3_d.cql", "0_zero.cql"})
	if err != nil {
		t.Fatal(err)
	}
	want := "0_zero.cql 0001_a.cql 2_a.cql V2__b.cql v3_d.cql 10_c.cql 20240101_x.cql"
	if strings.Join(got, " ") != want {
		t.Errorf("order = %v, want %s", got, want)
	}
	if _, err := MigrationOrder([]string{"0001_a.cql", "schema.cql"}); err == nil || !strings.Contains(err.Error(), "schema.cql does not start with a version number") {
		t.Errorf("unversioned name: error = %v", err)
	}
}

func TestLoadSchemaDir(t *testing.T) {
	s, err := LoadSchema("testdata/migrations/ok")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/migrations/ok.golden", []byte(render(s)))

	_, err = LoadSchema("testdata/migrations/bad")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want *Error", err)
	}
	want := "testdata/migrations/bad/0002_broken.cql:3:28: column v already exists in table app.events"
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if _, err := LoadSchema("testdata/migrations/nope"); err == nil || !os.IsNotExist(errors.Unwrap(err)) {
		t.Errorf("missing folder: error = %v", err)
	}
}

// TestCorpusModel renders the model of the acceptance corpus, so a change to how the model
// reads it shows up in review even without a node.
func TestCorpusModel(t *testing.T) {
	src, err := os.ReadFile("testdata/corpus/schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSchema()
	if err := s.ApplyFile("header.cql", []byte("CREATE KEYSPACE corpus WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; USE corpus;")); err != nil {
		t.Fatal(err)
	}
	if err := s.ApplyFile("testdata/corpus/schema.cql", src); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/corpus/schema.golden", []byte(render(s)))
}

func TestLoadSchemaFS(t *testing.T) {
	fsys := fstest.MapFS{
		"db/migrations/002_table.cql": {Data: []byte("CREATE TABLE ks.t (k int PRIMARY KEY, v text);")},
		"db/migrations/001_ks.cql":    {Data: []byte("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};")},
		"db/migrations/notes.txt":     {Data: []byte("not CQL")},
		"db/migrations/sub/003.cql":   {Data: []byte("this folder is not read")},
	}
	s, err := LoadSchemaFS(fsys, "db/migrations")
	if err != nil {
		t.Fatal(err)
	}
	if s.Table("ks", "t") == nil {
		t.Fatalf("table ks.t missing:\n%s", render(s))
	}
	fsys["db/migrations/003_bad.cql"] = &fstest.MapFile{Data: []byte("\n  ALTER TABLE ks.t ADD k int;")}
	_, err = LoadSchemaFS(fsys, "db/migrations")
	if err == nil || err.Error() != "db/migrations/003_bad.cql:2:24: column k already exists in table ks.t" {
		t.Errorf("error = %v", err)
	}
	if _, err := LoadSchemaFS(fsys, "nope"); err == nil {
		t.Error("missing folder: no error")
	}
}

func TestCloneIsDeep(t *testing.T) {
	s := baseSchema(t)
	before := render(s)
	c := s.Clone()
	for _, stmt := range []string{
		"ALTER TABLE ks.t ADD extra int", "ALTER TABLE ks.t WITH comment = 'x'", "ALTER TYPE ks.addr ADD f int",
		"DROP INDEX ks.one_v_idx", "ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
		"ALTER TABLE ks.t RENAME c TO c2", "DROP MATERIALIZED VIEW ks.mv",
	} {
		st, err := Parse("", []byte(stmt))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Apply(st); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if after := render(s); after != before {
		t.Errorf("changing the clone changed the original:\n%s", after)
	}
}

func TestApplyUseAndAlterKeyspace(t *testing.T) {
	s := NewSchema()
	err := s.ApplyFile("f.cql", []byte(`
CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE KEYSPACE b WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = false;
USE a;
CREATE TABLE t (k int PRIMARY KEY);
USE b;
CREATE TABLE t (k text PRIMARY KEY);
ALTER KEYSPACE a WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2};
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Current != "b" || s.Table("a", "t").Columns[0].Type.Name != "int" || s.Table("b", "t").Columns[0].Type.Name != "text" {
		t.Errorf("current %q, a.t %v, b.t %v", s.Current, s.Table("a", "t").Columns[0].Type, s.Table("b", "t").Columns[0].Type)
	}
	if r := s.Keyspaces["a"].Replication; r["class"] != "org.apache.cassandra.locator.NetworkTopologyStrategy" || r["dc2"] != "2" {
		t.Errorf("replication of a = %v", r)
	}
	if s.Keyspaces["b"].DurableWrites {
		t.Error("durable_writes of b = true")
	}
	if _, ok := s.FindTable("t"); ok {
		t.Error("FindTable(t) is ambiguous across keyspaces a and b but succeeded")
	}
}
