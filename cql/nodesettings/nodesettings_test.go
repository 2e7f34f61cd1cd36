package nodesettings

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// stock is what a default 5.0.9 cassandra.yaml shows in system_views.settings for the
// settings Check reads (as read from the node with SELECT name, value FROM
// system_views.settings; -1 is a guardrail that is not set).
var stock = Settings{
	"sasi_indexes_enabled": "false", "user_defined_functions_enabled": "false",
	"materialized_views_enabled": "false", "dynamic_data_masking_enabled": "false",
	"tables_fail_threshold": "-1", "columns_per_table_fail_threshold": "-1", "keyspaces_fail_threshold": "-1",
	"secondary_indexes_enabled": "true", "simplestrategy_enabled": "true", "table_properties_disallowed": "[]",
	"transient_replication_enabled": "false",
}

func with(base Settings, kv ...string) Settings {
	out := Settings{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func parse(t *testing.T, src string) []cql.Statement {
	t.Helper()
	stmts, err := cql.ParseFile("h.cql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return stmts
}

// got renders refusals as "line:setting", the facts a test names.
func got(rs []Refusal) string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%d:%s", r.Pos.Line, r.Setting))
	}
	return strings.Join(out, " ")
}

const ks = "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nUSE app;\n"

func TestCheck(t *testing.T) {
	cases := []struct {
		name     string
		settings Settings
		guard    bool
		src      string // after ks (lines start at 3)
		want     string
	}{
		{"sasi on a stock node", stock, false, "CREATE TABLE t (k int PRIMARY KEY, v text);\nCREATE CUSTOM INDEX ON t (v) USING 'org.apache.cassandra.index.sasi.SASIIndex';\n", "4:sasi_indexes_enabled"},
		{"sai is fine", stock, false, "CREATE TABLE t (k int PRIMARY KEY, v text);\nCREATE CUSTOM INDEX ON t (v) USING 'StorageAttachedIndex';\nCREATE INDEX ON t (v);\n", ""},
		{"sasi where enabled", with(stock, "sasi_indexes_enabled", "true"), false, "CREATE TABLE t (k int PRIMARY KEY, v text);\nCREATE CUSTOM INDEX ON t (v) USING 'SASIIndex';\n", ""},
		{"every refusal of a stock node in one run", stock, false,
			"CREATE TABLE t (k int PRIMARY KEY, v text MASKED WITH mask_default());\n" +
				"CREATE FUNCTION f (x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return x;';\n" +
				"CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE k IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, k);\n" +
				"ALTER TABLE t ADD w text MASKED WITH mask_null();\nALTER TABLE t ALTER v MASKED WITH mask_inner(1, null);\n",
			"3:dynamic_data_masking_enabled 4:user_defined_functions_enabled 5:materialized_views_enabled 7:dynamic_data_masking_enabled"},
		{"dev node: MVs and UDFs on", with(stock, "materialized_views_enabled", "true", "user_defined_functions_enabled", "true"), false,
			"CREATE TABLE t (k int PRIMARY KEY, v text);\nCREATE FUNCTION f (x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return x;';\n" +
				"CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE k IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, k);\nALTER TABLE t ALTER v DROP MASKED;\n", ""},
		{"an absent setting refuses nothing", Settings{}, true, "CREATE TABLE t (k int PRIMARY KEY, v text MASKED WITH mask_default());\n", ""},
		// Guardrails: counted with what the earlier statements create, and only for roles they bind.
		{"tables over the threshold", with(stock, "tables_fail_threshold", "2"), true,
			"CREATE TABLE a (k int PRIMARY KEY);\nCREATE TABLE b (k int PRIMARY KEY);\nCREATE TABLE c (k int PRIMARY KEY);\nCREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\n", "5:tables_fail_threshold"},
		{"guardrails do not bind a superuser", with(stock, "tables_fail_threshold", "0", "columns_per_table_fail_threshold", "1"), false,
			"CREATE TABLE a (k int PRIMARY KEY, v int);\n", ""},
		{"columns per table, on create and add", with(stock, "columns_per_table_fail_threshold", "3"), true,
			"CREATE TABLE a (k int PRIMARY KEY, v int, w int);\nALTER TABLE a ADD x int;\nCREATE TABLE b (k int PRIMARY KEY, a int, b int, c int);\n",
			"4:columns_per_table_fail_threshold 5:columns_per_table_fail_threshold"},
		{"keyspaces", with(stock, "keyspaces_fail_threshold", "1"), true, "CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n", "3:keyspaces_fail_threshold"},
		{"indexes and views per table", with(stock, "secondary_indexes_per_table_fail_threshold", "1", "materialized_views_per_table_fail_threshold", "0", "materialized_views_enabled", "true"), true,
			"CREATE TABLE t (k int PRIMARY KEY, v int, w int);\nCREATE INDEX ON t (v);\nCREATE CUSTOM INDEX ON t (w) USING 'sai';\nCREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE k IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, k);\n",
			"5:secondary_indexes_per_table_fail_threshold 6:materialized_views_per_table_fail_threshold"},
		{"switches", with(stock, "secondary_indexes_enabled", "false", "compact_tables_enabled", "false", "drop_truncate_table_enabled", "false", "alter_table_enabled", "false", "user_timestamps_enabled", "false", "drop_keyspace_enabled", "false"), true,
			"CREATE TABLE t (k int PRIMARY KEY, v int) WITH COMPACT STORAGE;\nCREATE INDEX ON t (v);\nALTER TABLE t WITH comment = 'x';\nINSERT INTO t (k, v) VALUES (1, 1) USING TIMESTAMP 5;\nTRUNCATE t;\nDROP TABLE t;\nDROP KEYSPACE app;\n",
			"3:compact_tables_enabled 4:secondary_indexes_enabled 5:alter_table_enabled 6:user_timestamps_enabled 7:drop_truncate_table_enabled 8:drop_truncate_table_enabled 9:drop_keyspace_enabled"},
		{"replication", with(stock, "simplestrategy_enabled", "false", "minimum_replication_factor_fail_threshold", "2", "maximum_replication_factor_fail_threshold", "3"), true,
			"ALTER KEYSPACE app WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 5};\n", "1:simplestrategy_enabled 1:minimum_replication_factor_fail_threshold 3:maximum_replication_factor_fail_threshold"},
		{"transient replicas on a stock node", stock, false,
			"CREATE KEYSPACE t1 WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3/1'};\nCREATE KEYSPACE t2 WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3'};\n", "3:transient_replication_enabled"},
		{"transient replicas where enabled", with(stock, "transient_replication_enabled", "true"), false,
			"CREATE KEYSPACE t1 WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3/1'};\n", ""},
		{"udt fields, vectors, collections, properties", with(stock, "fields_per_udt_fail_threshold", "2", "vector_dimensions_fail_threshold", "8", "items_per_collection_fail_threshold", "2", "table_properties_disallowed", "[gc_grace_seconds, comment]"), true,
			"CREATE TYPE a (x int, y int);\nALTER TYPE a ADD z int;\nCREATE TABLE t (k int PRIMARY KEY, v vector<float, 16>, s set<int>) WITH gc_grace_seconds = 10;\nINSERT INTO t (k, s) VALUES (1, {1, 2, 3});\nUPDATE t SET s = {1} WHERE k = 1;\n",
			"4:fields_per_udt_fail_threshold 5:vector_dimensions_fail_threshold 5:table_properties_disallowed 6:items_per_collection_fail_threshold"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := Check(Input{Settings: c.settings, Guardrails: c.guard, Statements: parse(t, ks+c.src)})
			if g := got(rs); g != c.want {
				t.Errorf("refused %q, want %q\n%v", g, c.want, rs)
			}
		})
	}
}

// The schema the statements start from counts: a table already on the cluster is one of
// the tables the guardrail counts, and an index there one of the table's indexes.
func TestCheckCountsTheLiveSchema(t *testing.T) {
	live := cql.NewSchema()
	if err := live.ApplyAll(parse(t, ks+"CREATE TABLE t (k int PRIMARY KEY, v int);\nCREATE INDEX ON t (v);\n")); err != nil {
		t.Fatal(err)
	}
	live.Current = "app"
	rs := Check(Input{Settings: with(stock, "tables_fail_threshold", "1", "secondary_indexes_per_table_fail_threshold", "1"), Guardrails: true, Schema: live,
		Statements: parse(t, "CREATE TABLE u (k int PRIMARY KEY);\nCREATE CUSTOM INDEX ON t (k) USING 'sai';\n")})
	if g := got(rs); g != "1:tables_fail_threshold 2:secondary_indexes_per_table_fail_threshold" {
		t.Errorf("refused %q", g)
	}
	if live.Keyspaces["app"].Tables["u"] != nil {
		t.Error("Check changed the schema it was given")
	}
}

func ExampleCheck() {
	stmts, _ := cql.ParseFile("V2__search.cql", []byte("CREATE CUSTOM INDEX ON app.users (name) USING 'org.apache.cassandra.index.sasi.SASIIndex';"))
	for _, r := range Check(Input{Settings: Settings{"sasi_indexes_enabled": "false"}, Statements: stmts}) {
		fmt.Println(r.Error())
	}
	// Output:
	// V2__search.cql:1:1: SASI index on app.users: SASI indexes are disabled: the node has sasi_indexes_enabled = false; use USING 'sai' (StorageAttachedIndex), or set sasi_indexes_enabled: true in cassandra.yaml on every node
}
