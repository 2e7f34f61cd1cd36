package tombstone_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/tombstone"
)

// shapeTables are the tables the read shapes use, as CQL after CREATE TABLE name. The same
// text builds the node's table and the schema the model reads (TableOf, ReadOf).
var shapeTables = map[string]string{
	// rows by an int, two text columns: queues, ranges, scattered deletes, nulls, cells
	"rows": "(p int, c int, v text, w text, PRIMARY KEY (p, c))",
	// a newest-first time series: deletes by age
	"series": "(p int, ts timestamp, v text, PRIMARY KEY (p, ts)) WITH CLUSTERING ORDER BY (ts DESC)",
	// a TTL'd table with a collection written whole
	"expiring": "(p int, c int, v text, tags set<text>, PRIMARY KEY (p, c)) WITH default_time_to_live = 3",
	// collections updated element by element
	"elements": "(p int, c int, tags set<text>, PRIMARY KEY (p, c))",
	// one row a partition
	"single": "(id int PRIMARY KEY, v text, w text)",
}

// A shapeGroup is one partition written with one pattern of writes, deletes and TTLs, and
// the queries (read shapes) run against it.
type shapeGroup struct {
	table   string
	rows    int
	write   func(t *testing.T, w *writer)
	writes  tombstone.Writes   // what the model is told of the writes besides their rate
	deletes []tombstone.Delete // PerDay: deletes over the whole write
	wait    time.Duration      // read no sooner than this after the first write
	shapes  []readShape
}

// readShape is one query; fraction is the share of the partition its clustering range
// covers when the query's bounds are bind-free literals the model is not told about.
type readShape struct {
	cql      string // %s is the table
	fraction float64
}

func ints(from, to, step int, f func(i int) []any) [][]any {
	var out [][]any
	for i := from; i < to; i += step {
		out = append(out, f(i))
	}
	return out
}

func shapeGroups() []shapeGroup { return append(rowGroups(), timeAndCellGroups()...) }

// rowGroups are the shapes on int-clustered rows: queues, range, scattered, tail and cell
// deletes, and nulls.
func rowGroups() []shapeGroup {
	insertRows := func(p, n int) func(t *testing.T, w *writer) {
		return func(t *testing.T, w *writer) {
			w.all(t, fmt.Sprintf("INSERT INTO %%s (p, c, v, w) VALUES (%d, ?, 'x', 'y')", p), ints(0, n, 1, func(i int) []any { return []any{i} }))
		}
	}
	then := func(a func(t *testing.T, w *writer), stmt string, args [][]any) func(t *testing.T, w *writer) {
		return func(t *testing.T, w *writer) { a(t, w); w.all(t, stmt, args) }
	}
	row := func(n float64, at tombstone.Placement) []tombstone.Delete {
		return []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: n, At: at}}
	}
	return []shapeGroup{
		{
			// A queue consumed from its head: 120 of 200 rows deleted.
			table: "rows", rows: 200,
			write:   then(insertRows(1, 200), "DELETE FROM %s WHERE p = 1 AND c = ?", ints(0, 120, 1, func(i int) []any { return []any{i} })),
			deletes: row(120, tombstone.Head),
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 1 LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 1 AND c > 119 LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 1 AND c >= 120"},
				{cql: "SELECT * FROM %s WHERE p = 1 AND c > 119 AND c < 160", fraction: 0.5},
				{cql: "SELECT * FROM %s WHERE p = 1 AND c = 150"},
				{cql: "SELECT * FROM %s WHERE p = 1 ORDER BY c DESC LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 1 ORDER BY c DESC"},
			},
		},
		{
			// Fifteen range deletes at the head, c in [10k, 10k+5] for k < 15, with no row
			// between them (their bounds are not shared): 30 markers before the first live
			// row, 150.
			table: "rows", rows: 140,
			write: func(t *testing.T, w *writer) {
				var cs [][]any
				for c := 0; c < 200; c++ {
					if c >= 150 || c%10 <= 5 {
						cs = append(cs, []any{c})
					}
				}
				w.all(t, "INSERT INTO %s (p, c, v, w) VALUES (2, ?, 'x', 'y')", cs)
				w.all(t, "DELETE FROM %s WHERE p = 2 AND c >= ? AND c <= ?", ints(0, 150, 10, func(i int) []any { return []any{i, i + 5} }))
			},
			deletes: []tombstone.Delete{{Kind: tombstone.RangeDelete, PerDay: 15, Rows: 6, At: tombstone.Head}},
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 2 LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 2 AND c >= 150 LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 2 AND c = 160"},
				{cql: "SELECT * FROM %s WHERE p = 2 ORDER BY c DESC LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 2 ORDER BY c DESC"},
			},
		},
		{
			// Every fourth row deleted.
			table: "rows", rows: 200,
			write:   then(insertRows(3, 200), "DELETE FROM %s WHERE p = 3 AND c = ?", ints(0, 200, 4, func(i int) []any { return []any{i} })),
			deletes: row(50, tombstone.Scattered),
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 3"},
				{cql: "SELECT * FROM %s WHERE p = 3 LIMIT 40"},
				{cql: "SELECT * FROM %s WHERE p = 3 ORDER BY c DESC LIMIT 40"},
				{cql: "SELECT * FROM %s WHERE p = 3 AND c = 101"},
				{cql: "SELECT * FROM %s WHERE p = 3 AND c > 99", fraction: 0.5},
			},
		},
		{
			// Every write binds null to w: a cell tombstone a row.
			table: "rows", rows: 100,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v, w) VALUES (4, ?, 'x', null)", ints(0, 100, 1, func(i int) []any { return []any{i} }))
			},
			writes: tombstone.Writes{NullFraction: 0.5},
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 4"},
				{cql: "SELECT * FROM %s WHERE p = 4 LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 4 AND c = 7"},
				{cql: "SELECT * FROM %s WHERE p = 4 AND c > 49", fraction: 0.5},
			},
		},
		{
			// The last 50 of 200 rows deleted: reads from the start stop before them.
			table: "rows", rows: 200,
			write:   then(insertRows(5, 200), "DELETE FROM %s WHERE p = 5 AND c = ?", ints(150, 200, 1, func(i int) []any { return []any{i} })),
			deletes: row(50, tombstone.Tail),
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 5 LIMIT 20"},
				{cql: "SELECT * FROM %s WHERE p = 5 ORDER BY c DESC LIMIT 20"},
				{cql: "SELECT * FROM %s WHERE p = 5"},
			},
		},
		{
			// One cell deleted in every third row.
			table: "rows", rows: 100,
			write:   then(insertRows(6, 100), "DELETE w FROM %s WHERE p = 6 AND c = ?", ints(0, 90, 3, func(i int) []any { return []any{i} })),
			deletes: []tombstone.Delete{{Kind: tombstone.CellDelete, PerDay: 30}},
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 6"},
				{cql: "SELECT * FROM %s WHERE p = 6 LIMIT 30"},
				{cql: "SELECT * FROM %s WHERE p = 6 AND c = 3"},
			},
		},
	}
}

// timeAndCellGroups are the shapes by write time, TTL, collections and one-row partitions.
func timeAndCellGroups() []shapeGroup {
	ms := func(i int) time.Time { return time.UnixMilli(int64(i) * 1000) }
	return []shapeGroup{
		{
			// A newest-first series whose oldest 80 rows were deleted one by one.
			table: "series", rows: 200,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, ts, v) VALUES (1, ?, 'x')", ints(0, 200, 1, func(i int) []any { return []any{ms(i)} }))
				w.all(t, "DELETE FROM %s WHERE p = 1 AND ts = ?", ints(0, 80, 1, func(i int) []any { return []any{ms(i)} }))
			},
			deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 80, At: tombstone.Oldest}},
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 1 LIMIT 20"},
				{cql: "SELECT * FROM %s WHERE p = 1 ORDER BY ts ASC LIMIT 20"},
				{cql: "SELECT * FROM %s WHERE p = 1 AND ts > 79000 ORDER BY ts ASC LIMIT 20"},
				{cql: "SELECT * FROM %s WHERE p = 1 AND ts < 150000 LIMIT 20"},
				{cql: "SELECT * FROM %s WHERE p = 1"},
				{cql: "SELECT * FROM %s WHERE p = 1 AND ts = 120000"},
			},
		},
		{
			// The same series with its oldest half removed by one range delete.
			table: "series", rows: 200,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, ts, v) VALUES (2, ?, 'x')", ints(0, 200, 1, func(i int) []any { return []any{ms(i)} }))
				w.all(t, "DELETE FROM %s WHERE p = 2 AND ts < ?", [][]any{{ms(100)}})
			},
			deletes: []tombstone.Delete{{Kind: tombstone.RangeDelete, PerDay: 1, Rows: 100, At: tombstone.Oldest}},
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 2 LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 2 ORDER BY ts ASC LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 2"},
				{cql: "SELECT * FROM %s WHERE p = 2 AND ts >= 100000 ORDER BY ts ASC LIMIT 10"},
			},
		},
		{
			// Rows and their collections expired (default_time_to_live 3 s), read within
			// gc_grace_seconds: every expired cell and element counts; the complex deletion
			// of each whole collection write does not.
			table: "expiring", rows: 50,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v, tags) VALUES (1, ?, 'x', {'a', 'b'})", ints(0, 50, 1, func(i int) []any { return []any{i} }))
			},
			writes: tombstone.Writes{CollectionsWhole: true, ElementsPerCollection: 2},
			wait:   6 * time.Second,
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 1"},
				{cql: "SELECT * FROM %s WHERE p = 1 LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 1 AND c = 5"},
			},
		},
		{
			// The same table before anything expires (a longer TTL per write).
			table: "expiring", rows: 50,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v, tags) VALUES (2, ?, 'x', {'a', 'b'}) USING TTL 600", ints(0, 50, 1, func(i int) []any { return []any{i} }))
			},
			writes: tombstone.Writes{CollectionsWhole: true, ElementsPerCollection: 2, TTLSeconds: 600},
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 2"},
				{cql: "SELECT * FROM %s WHERE p = 2 AND c = 5"},
			},
		},
		{
			// One element removed from each row's set.
			table: "elements", rows: 50,
			write: func(t *testing.T, w *writer) {
				w.all(t, "UPDATE %s SET tags = tags + {'a', 'b', 'c'} WHERE p = 1 AND c = ?", ints(0, 50, 1, func(i int) []any { return []any{i} }))
				w.all(t, "UPDATE %s SET tags = tags - {'a'} WHERE p = 1 AND c = ?", ints(0, 50, 1, func(i int) []any { return []any{i} }))
			},
			writes:  tombstone.Writes{ByUpdate: true, ElementsPerCollection: 2},
			deletes: []tombstone.Delete{{Kind: tombstone.ElementDelete, PerDay: 50}},
			shapes: []readShape{
				{cql: "SELECT * FROM %s WHERE p = 1"},
				{cql: "SELECT * FROM %s WHERE p = 1 LIMIT 10"},
				{cql: "SELECT * FROM %s WHERE p = 1 AND c = 3"},
			},
		},
		{
			// One row a partition, written with a null.
			table: "single", rows: 1,
			write: func(t *testing.T, w *writer) {
				w.exec(t, "INSERT INTO %s (id, v, w) VALUES (1, 'x', null)")
			},
			writes: tombstone.Writes{NullFraction: 0.5},
			shapes: []readShape{{cql: "SELECT * FROM %s WHERE id = 1"}},
		},
	}
}

// shapeSchema parses shapeTables into the schema the model reads, in keyspace ks.
func shapeSchema(t *testing.T, ks string) *cql.Schema {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n", ks)
	for name, ddl := range shapeTables {
		fmt.Fprintf(&b, "CREATE TABLE %s.%s %s;\n", ks, name, ddl)
	}
	s := cql.NewSchema()
	if err := s.ApplyFile("shapes.cql", []byte(b.String())); err != nil {
		t.Fatal(err)
	}
	return s
}

// shapeInput is the model's input for one read shape: the table as TableOf reads its CQL,
// the read as ReadOf reads the query, and the group's writes and deletes at the rates the
// measured write span gives them.
func shapeInput(t *testing.T, schema *cql.Schema, ks string, g shapeGroup, r readShape, span time.Duration) tombstone.Input {
	t.Helper()
	tbl := schema.Table(ks, g.table)
	st, err := cql.Parse("query.cql", []byte(fmt.Sprintf(r.cql, ks+"."+g.table)))
	if err != nil {
		t.Fatal(err)
	}
	sel, ok := st.(*cql.Select)
	if !ok {
		t.Fatalf("%s is not a SELECT", r.cql)
	}
	c := clusterCase{rows: g.rows, in: tombstone.Input{
		Table:   tombstone.TableOf(tbl),
		Writes:  g.writes,
		Deletes: g.deletes,
		Read:    tombstone.ReadOf(tbl, sel, tombstone.Read{Fraction: r.fraction}),
	}}
	return modelInput(c, span)
}

// TestReadShapesAgainstCassandra writes each shape group into a real Cassandra 5.0 node and
// runs each of its queries traced: the tombstones the node counted ("Read N live rows and M
// tombstone cells") must be within 10% or 20 of what the model predicts for that query,
// with the read derived from the query text (ReadOf) and the table from its CQL (TableOf).
func TestReadShapesAgainstCassandra(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	schema := shapeSchema(t, "shapes")
	// Schema changes one at a time: a busy node times out on concurrent ones.
	for name, ddl := range shapeTables {
		cassandratest.DDL(t, s, ks, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s %s", ks, name, ddl))
	}
	shapes := 0
	for _, g := range shapeGroups() {
		shapes += len(g.shapes)
	}
	if shapes < 30 {
		t.Fatalf("%d read shapes, want at least 30", shapes)
	}
	for i, g := range shapeGroups() {
		t.Run(fmt.Sprintf("%s_%d", g.table, i), func(t *testing.T) {
			t.Parallel()
			w := &writer{s: s, table: ks + "." + g.table}
			g.write(t, w)
			if d := time.Until(w.first.Add(g.wait)); d > 0 {
				time.Sleep(d)
			}
			for _, r := range g.shapes {
				stmt := fmt.Sprintf(r.cql, ks+"."+g.table)
				got := measureRead(t, s, stmt, 0)
				in := shapeInput(t, schema, "shapes", g, r, w.last.Sub(w.first))
				snap, err := tombstone.At(in, got.done.Sub(w.first))
				if err != nil {
					t.Fatal(err)
				}
				tol := math.Max(0.1*float64(got.tombstones), 20)
				if math.Abs(float64(got.tombstones)-snap.PerRead) > tol {
					t.Errorf("%s: Cassandra counted %d tombstones (%d live rows), model %.1f (%s read; %v)",
						stmt, got.tombstones, got.live, snap.PerRead, in.Read.Slice, snap.Sources)
				}
				t.Logf("%s: Cassandra %d tombstones, %d live rows; model %.1f (%s, %s)",
					strings.TrimPrefix(stmt, "SELECT * FROM "+ks+"."), got.tombstones, got.live, snap.PerRead, in.Read.Slice, in.Read.Order)
			}
		})
	}
}
