package cql_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// TestCorpusAgainstCassandra is the acceptance test of the parser and of Schema.Apply: the
// corpus is run on a real Cassandra 5.0 node and applied to the model, and the model must
// match what the node stores in system_schema, column by column.
func TestCorpusAgainstCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	session, ks := cassandratest.Keyspace(t)
	src, err := os.ReadFile("testdata/corpus/schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cql.SplitStatements("testdata/corpus/schema.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		if err := exec(session, st.Text); err != nil {
			t.Fatalf("%s: Cassandra rejected a corpus statement: %v\n%s", st.Pos, err, st.Text)
		}
	}

	model := cql.NewSchema()
	header := fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; USE %s;", ks, ks)
	if err := model.ApplyFile("header.cql", []byte(header)); err != nil {
		t.Fatal(err)
	}
	if err := model.ApplyFile("testdata/corpus/schema.cql", src); err != nil {
		t.Fatalf("the model rejected the corpus Cassandra accepted: %v", err)
	}
	mks := model.Keyspaces[ks]

	live := readLive(t, session, ks)
	compareNames(t, "table", keys(mks.Tables), keys(live.tables))
	compareNames(t, "view", keys(mks.Views), keys(live.views))
	compareNames(t, "type", keys(mks.Types), keys(live.types))
	compareNames(t, "index", keys(mks.Indexes), keys(live.indexes))

	checked := 0
	for name, tbl := range mks.Tables {
		checked += compareColumns(t, name, tbl, live.columns[name])
		compareOptions(t, name, tbl.Options, live.tables[name])
	}
	for name, v := range mks.Views {
		checked += compareColumns(t, name, v.Table, live.columns[name])
		compareOptions(t, name, v.Table.Options, live.views[name])
		row := live.views[name]
		if row == nil {
			continue
		}
		if row["base_table_name"] != v.BaseTable || row["include_all_columns"] != v.IncludeAll || row["where_clause"] != v.Where {
			t.Errorf("view %s: node has base %v, include_all_columns %v, where %q; model has %s, %v, %q",
				name, row["base_table_name"], row["include_all_columns"], row["where_clause"], v.BaseTable, v.IncludeAll, v.Where)
		}
	}
	for name, ut := range mks.Types {
		row := live.types[name]
		if row == nil {
			continue
		}
		var names, types []string
		for _, f := range ut.Fields {
			names = append(names, f.Name)
			types = append(types, f.Type.String())
		}
		if fmt.Sprint(names) != fmt.Sprint(row.names) || fmt.Sprint(types) != fmt.Sprint(row.types) {
			t.Errorf("type %s: node has fields %v %v, model has %v %v", name, row.names, row.types, names, types)
		}
	}
	for name, ix := range mks.Indexes {
		row := live.indexes[name]
		if row == nil {
			continue
		}
		opts := map[string]string{}
		for k, v := range row.options {
			if k != "target" && k != "class_name" {
				opts[k] = v
			}
		}
		class := row.options["class_name"]
		if class == "org.apache.cassandra.index.sai.StorageAttachedIndex" || strings.EqualFold(class, "StorageAttachedIndex") {
			class = "sai"
		}
		if row.table != ix.Table || row.options["target"] != ix.Target || (row.kind == "CUSTOM") != ix.Custom ||
			class != ix.Class || fmt.Sprint(opts) != fmt.Sprint(ix.Options) {
			t.Errorf("index %s: node has table %s target %s kind %s class %q options %v; model has %s %s custom=%v %q %v",
				name, row.table, row.options["target"], row.kind, class, opts, ix.Table, ix.Target, ix.Custom, ix.Class, ix.Options)
		}
	}
	t.Logf("compared %d tables, %d views, %d types, %d indexes, %d columns with system_schema",
		len(mks.Tables), len(mks.Views), len(mks.Types), len(mks.Indexes), checked)
}

func exec(s *gocql.Session, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return s.Query(stmt).WithContext(ctx).Exec()
}

// noVerdict reports an error that is the client giving up, not the node answering: a
// corpus statement that met it has no verdict, and is not counted as refused.
func noVerdict(err error) bool {
	return errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, gocql.ErrNoConnections) || errors.Is(err, gocql.ErrConnectionClosed)
}

type liveColumn struct {
	kind, order, typ string
	position         int
}

type liveType struct{ names, types []string }

type liveIndex struct {
	table, kind string
	options     map[string]string
}

type liveSchema struct {
	columns map[string]map[string]liveColumn // table -> column -> column
	tables  map[string]map[string]any
	views   map[string]map[string]any
	types   map[string]*liveType
	indexes map[string]*liveIndex
}

func readLive(t *testing.T, s *gocql.Session, ks string) *liveSchema {
	t.Helper()
	l := &liveSchema{
		columns: map[string]map[string]liveColumn{}, tables: map[string]map[string]any{},
		views: map[string]map[string]any{}, types: map[string]*liveType{}, indexes: map[string]*liveIndex{},
	}
	iter := s.Query(`SELECT table_name, column_name, kind, position, clustering_order, type FROM system_schema.columns WHERE keyspace_name = ?`, ks).Iter()
	var table, col, kind, order, typ string
	var pos int
	for iter.Scan(&table, &col, &kind, &pos, &order, &typ) {
		if l.columns[table] == nil {
			l.columns[table] = map[string]liveColumn{}
		}
		l.columns[table][col] = liveColumn{kind: kind, order: order, typ: typ, position: pos}
	}
	must(t, iter.Close())
	for _, q := range []struct {
		stmt, key string
		into      map[string]map[string]any
	}{
		{`SELECT * FROM system_schema.tables WHERE keyspace_name = ?`, "table_name", l.tables},
		{`SELECT * FROM system_schema.views WHERE keyspace_name = ?`, "view_name", l.views},
	} {
		iter := s.Query(q.stmt, ks).Iter()
		for {
			row := map[string]any{}
			if !iter.MapScan(row) {
				break
			}
			q.into[row[q.key].(string)] = row
		}
		must(t, iter.Close())
	}
	iter = s.Query(`SELECT type_name, field_names, field_types FROM system_schema.types WHERE keyspace_name = ?`, ks).Iter()
	var name string
	var names, types []string
	for iter.Scan(&name, &names, &types) {
		l.types[name] = &liveType{names: names, types: types}
		names, types = nil, nil
	}
	must(t, iter.Close())
	iter = s.Query(`SELECT index_name, table_name, kind, options FROM system_schema.indexes WHERE keyspace_name = ?`, ks).Iter()
	var opts map[string]string
	for iter.Scan(&name, &table, &kind, &opts) {
		l.indexes[name] = &liveIndex{table: table, kind: kind, options: opts}
		opts = nil
	}
	must(t, iter.Close())
	return l
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func compareNames(t *testing.T, what string, model, node []string) {
	t.Helper()
	if fmt.Sprint(model) != fmt.Sprint(node) {
		t.Errorf("%s names differ:\n model %v\n node  %v", what, model, node)
	}
}

// compareColumns checks every column of the model's table against system_schema.columns
// and returns how many it compared.
func compareColumns(t *testing.T, table string, tbl *cql.Table, live map[string]liveColumn) int {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range tbl.Columns {
		seen[c.Name] = true
		lc, ok := live[c.Name]
		if !ok {
			t.Errorf("%s.%s: in the model, not on the node", table, c.Name)
			continue
		}
		order := "none"
		if c.Kind == cql.Clustering {
			order = c.Order.String()
		}
		if lc.kind != c.Kind.String() || lc.position != c.Position || lc.order != order || lc.typ != c.Type.String() {
			t.Errorf("%s.%s: node has kind %s position %d order %s type %s; model has %s %d %s %s",
				table, c.Name, lc.kind, lc.position, lc.order, lc.typ, c.Kind, c.Position, order, c.Type)
		}
	}
	for name := range live {
		if !seen[name] {
			t.Errorf("%s.%s: on the node, not in the model", table, name)
		}
	}
	return len(tbl.Columns)
}

// compareOptions checks the options the model knows against system_schema.tables/views.
func compareOptions(t *testing.T, table string, o cql.TableOptions, row map[string]any) {
	t.Helper()
	if row == nil {
		return
	}
	comp, _ := row["compaction"].(map[string]string)
	live := cql.TableOptions{Compaction: comp}
	if row["default_time_to_live"] != o.DefaultTTL || row["gc_grace_seconds"] != o.GCGraceSeconds ||
		row["comment"] != o.Comment || live.CompactionClass() != o.CompactionClass() {
		t.Errorf("%s: node has ttl %v gc_grace %v comment %q compaction %s; model has %d %d %q %s",
			table, row["default_time_to_live"], row["gc_grace_seconds"], row["comment"], live.CompactionClass(),
			o.DefaultTTL, o.GCGraceSeconds, o.Comment, o.CompactionClass())
	}
	// Every map option the model holds must be on the node with the same values (the node
	// adds its defaults; classes are compared without their package).
	for name, m := range map[string]map[string]string{"compaction": o.Compaction, "compression": o.Compression, "caching": o.Caching} {
		nodeMap, _ := row[name].(map[string]string)
		for k, v := range m {
			nv := nodeMap[k]
			if k == "class" {
				nv, v = nv[strings.LastIndexByte(nv, '.')+1:], v[strings.LastIndexByte(v, '.')+1:]
			}
			if nv != v {
				t.Errorf("%s: %s[%s] is %q on the node, %q in the model", table, name, k, nodeMap[k], m[k])
			}
		}
	}
	// A table created WITH COMPACT STORAGE is the one table that is not "compound".
	if flags, ok := row["flags"].([]string); ok {
		compound := false
		for _, f := range flags {
			compound = compound || f == "compound"
		}
		if o.CompactStorage == compound {
			t.Errorf("%s: compact storage %v in the model, flags %v on the node", table, o.CompactStorage, flags)
		}
	}
}
