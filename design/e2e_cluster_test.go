package design_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/design"
)

// TestDesignOnTheNode takes each seed case through what a service does with a design: the
// migration is applied to a fresh keyspace on the node, records are written through the
// write plan (cql/denorm, loading writeplan.yaml as the design wrote it), and every access
// pattern is read back with its rewritten query, over every bucket and shard the records
// fall in, and compared with a brute-force filter of the same records in memory (the
// original query's restrictions, order and limit, evaluated in Go).
func TestDesignOnTheNode(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/cases/*/expected.cql")
	for _, file := range dirs {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			session, ks := cassandratest.Keyspace(t)
			in := load(t, dir, ks)
			d, err := design.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			applyMigration(t, session, ks, d.Migration(in.Schema))
			if err := in.Schema.ApplyFile("0001_design.cql", []byte(d.Migration(in.Schema))); err != nil {
				t.Fatal(err)
			}
			// No key is promoted here, so every key is on its default tier, whose scheme is
			// the derive rules: the plan without its tiers: lines writes what the tiered
			// plan writes (the tier runtime's own tests promote keys).
			plan, err := denorm.ParseWritePlan("writeplan.yaml", []byte(withoutTiers(d.WritePlanFile())), in.Schema)
			if err != nil {
				t.Fatalf("%v\n%s", err, d.WritePlanFile())
			}
			records := map[string][]denorm.Values{}
			for _, q := range in.Queries {
				ent := entityTable(t, in.Schema, q.Stmt)
				if records[ent.Name] != nil {
					continue
				}
				records[ent.Name] = generate(ent, in.Queries, 160)
				pe := plan.Entity(ent.QualifiedName())
				if pe == nil {
					t.Fatalf("write plan has no entity %s", ent.QualifiedName())
				}
				m, err := denorm.New[denorm.Values](session, in.Schema, denorm.Options{Mode: denorm.Concurrent, Consistency: gocql.One}, pe.Mappings()...)
				if err != nil {
					t.Fatal(err)
				}
				for i := range records[ent.Name] {
					if _, err := m.Insert(ctx, &records[ent.Name][i]); err != nil {
						t.Fatalf("write %s: %v", ent.Name, err)
					}
				}
			}
			compared := 0
			for i, q := range in.Queries {
				ent := entityTable(t, in.Schema, q.Stmt)
				sv := d.Queries[i]
				tb := tableOf(d, sv.Table)
				for _, params := range paramSets(q.Stmt, records[ent.Name]) {
					want := bruteForce(q.Stmt, ent, records[ent.Name], params)
					got := readBack(t, ctx, session, sv, tb, q.Stmt, ent, params, records[ent.Name])
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("%s %v: the node returned %d rows, the filter %d\nquery: %s\nnode:\n%s\nfilter:\n%s",
							q.Name, params, len(got), len(want), sv.Text, strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
					if len(want) > 0 {
						compared++
					}
				}
			}
			if compared < len(in.Queries) {
				t.Errorf("only %d non-empty comparisons for %d queries: the records prove little", compared, len(in.Queries))
			}
			t.Logf("%d queries, %d non-empty comparisons, node and filter agree", len(in.Queries), compared)
		})
	}
}

// withoutTiers is a write plan without its tiers: lines.
func withoutTiers(plan string) string {
	var out []string
	for _, l := range strings.Split(plan, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "tiers:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func entityTable(t *testing.T, s *cql.Schema, st *cql.Select) *cql.Table {
	t.Helper()
	for _, tb := range s.Tables() {
		if tb.Name == st.Table.Name.Name {
			return tb
		}
	}
	t.Fatalf("no entity %s", st.Table.Name.Name)
	return nil
}

func tableOf(d *design.Design, name string) *design.Table {
	for _, t := range d.Tables {
		if t.Table.QualifiedName() == name {
			return t
		}
	}
	return nil
}

// generate makes n records of an entity, deterministic: identities unique, times unique
// and spread over days (so day, week and hour buckets are several), other columns from
// small pools that hold every literal the queries compare them with, columns a query
// orders by unique.
func generate(t *cql.Table, qs []design.Query, n int) []denorm.Values {
	r := rand.New(rand.NewSource(int64(len(t.Name)) * 7919))
	literals := map[string][]string{}
	ordered := map[string]bool{}
	for _, q := range qs {
		if q.Stmt.Table.Name.Name != t.Name {
			continue
		}
		for _, rel := range q.Stmt.Where {
			if rel.Value != nil && !rel.Value.IsMarker() {
				literals[rel.Column().Name] = append(literals[rel.Column().Name], rel.Value.Value)
			}
		}
		for _, o := range q.Stmt.OrderBy {
			ordered[o.Column.Name] = true
		}
	}
	// The last column of the entity's key takes a new value each row, so no two records
	// share an identity (the node would keep one of them).
	key := append(append([]*cql.Column{}, t.PartitionKey...), t.Clustering...)
	last := key[len(key)-1].Name
	pools := map[string][]any{}
	pool := func(c *cql.Column, make func(i int) any) any {
		if pools[c.Name] == nil {
			for i := range 4 {
				pools[c.Name] = append(pools[c.Name], make(i))
			}
		}
		return pools[c.Name][r.Intn(len(pools[c.Name]))]
	}
	base := time.Now().UTC().Add(-6 * 24 * time.Hour).Truncate(time.Millisecond)
	var out []denorm.Values
	for i := range n {
		at := base.Add(time.Duration(i)*47*time.Minute + time.Duration(r.Intn(1000))*time.Millisecond)
		v := denorm.Values{}
		for _, c := range t.Columns {
			unique := c.Name == last || ordered[c.Name]
			switch c.Type.Name {
			case "timeuuid":
				v[c.Name] = gocql.UUIDFromTime(at)
			case "timestamp":
				v[c.Name] = at
			case "uuid":
				if unique {
					v[c.Name] = gocql.TimeUUID()
				} else {
					v[c.Name] = pool(c, func(int) any { return gocql.TimeUUID() })
				}
			case "int":
				if unique {
					v[c.Name] = i + 1
				} else {
					v[c.Name] = pool(c, func(i int) any { return i + 1 })
				}
			case "bigint":
				v[c.Name] = int64(r.Intn(100000))
			case "double":
				v[c.Name] = float64(r.Intn(1000)) / 10
			case "text":
				switch {
				case unique:
					v[c.Name] = fmt.Sprintf("%s-%04d", c.Name, i)
				case len(literals[c.Name]) > 0 && r.Intn(2) == 0:
					v[c.Name] = literals[c.Name][r.Intn(len(literals[c.Name]))]
				default:
					v[c.Name] = pool(c, func(i int) any { return fmt.Sprintf("%s-%d", c.Name, i) })
				}
			case "set":
				var tags []string
				for _, w := range []string{"go", "cql", "db", "ai"} {
					if r.Intn(3) == 0 {
						tags = append(tags, w)
					}
				}
				v[c.Name] = tags
			}
		}
		out = append(out, v)
	}
	return out
}

// paramSets are the values the markers of a query are bound to: each value of its equality
// and CONTAINS columns among the records (up to four), and range bounds at a third and at
// four fifths of the column's values.
func paramSets(st *cql.Select, recs []denorm.Values) []map[string]any {
	sets := []map[string]any{{}}
	for _, rel := range st.Where {
		if rel.Value == nil || !rel.Value.IsMarker() {
			continue
		}
		col := rel.Column().Name
		var vals []any
		switch rel.Op {
		case cql.OpEq, cql.OpContains:
			seen := map[string]bool{}
			for _, rec := range recs {
				items := []any{rec[col]}
				if tags, ok := rec[col].([]string); ok {
					items = nil
					for _, tag := range tags {
						items = append(items, tag)
					}
				}
				for _, it := range items {
					if k := norm(it); !seen[k] && len(vals) < 4 {
						seen[k] = true
						vals = append(vals, it)
					}
				}
			}
		default:
			at := len(recs) / 3
			if rel.Op == cql.OpLt || rel.Op == cql.OpLe {
				at = len(recs) * 4 / 5
			}
			vals = []any{recs[at][col]}
		}
		var next []map[string]any
		for _, s := range sets {
			for _, v := range vals {
				n := map[string]any{}
				for k, x := range s {
					n[k] = x
				}
				n[rel.Text] = v
				next = append(next, n)
			}
		}
		sets = next
	}
	return sets
}

// bruteForce evaluates the query on the records in Go: its restrictions, its order and its
// limit, and returns the selected columns of each row.
func bruteForce(st *cql.Select, ent *cql.Table, recs []denorm.Values, params map[string]any) []string {
	var rows []denorm.Values
	for _, rec := range recs {
		if matches(st, rec, params) {
			rows = append(rows, rec)
		}
	}
	rows = orderRows(st, rows)
	return project(st, ent, rows)
}

func matches(st *cql.Select, rec denorm.Values, params map[string]any) bool {
	for _, rel := range st.Where {
		v := rec[rel.Column().Name]
		var want any
		if rel.Value.IsMarker() {
			want = params[rel.Text]
		} else {
			want = rel.Value.Value
		}
		switch rel.Op {
		case cql.OpEq:
			if norm(v) != norm(want) {
				return false
			}
		case cql.OpContains:
			found := false
			for _, tag := range v.([]string) {
				found = found || tag == want
			}
			if !found {
				return false
			}
		case cql.OpGt, cql.OpGe, cql.OpLt, cql.OpLe:
			c := compare(v, want)
			ok := map[cql.Operator]bool{cql.OpGt: c > 0, cql.OpGe: c >= 0, cql.OpLt: c < 0, cql.OpLe: c <= 0}[rel.Op]
			if !ok {
				return false
			}
		}
	}
	return true
}

// orderRows sorts rows by the query's ORDER BY (values a query orders by are unique in the
// records) and applies its LIMIT; without ORDER BY the rows are sorted by their text, and
// the comparison is of sets.
func orderRows(st *cql.Select, rows []denorm.Values) []denorm.Values {
	if len(st.OrderBy) > 0 {
		o := st.OrderBy[0]
		sort.SliceStable(rows, func(i, j int) bool {
			c := compare(rows[i][o.Column.Name], rows[j][o.Column.Name])
			if o.Desc {
				return c > 0
			}
			return c < 0
		})
	}
	if st.Limit != nil && len(st.OrderBy) > 0 {
		var n int
		fmt.Sscan(st.Limit.Text, &n)
		if len(rows) > n {
			rows = rows[:n]
		}
	}
	return rows
}

func project(st *cql.Select, ent *cql.Table, rows []denorm.Values) []string {
	var cols []string
	if st.Star {
		for _, c := range ent.Columns {
			cols = append(cols, c.Name)
		}
	} else {
		for _, s := range st.Selectors {
			cols = append(cols, s.Column.Name)
		}
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		var parts []string
		for _, c := range cols {
			parts = append(parts, c+"="+norm(r[c]))
		}
		out = append(out, strings.Join(parts, " "))
	}
	if len(st.OrderBy) == 0 {
		sort.Strings(out)
	}
	return out
}

// readBack runs the rewritten query on the node for every bucket of the records' time span
// and every shard, merges the rows in the query's order and applies its limit, as a reader
// walking the buckets does.
func readBack(t *testing.T, ctx context.Context, s *gocql.Session, sv *design.Served, tb *design.Table, orig *cql.Select, ent *cql.Table,
	params map[string]any, recs []denorm.Values) []string {
	t.Helper()
	st, err := cql.Parse("q.cql", []byte(sv.Text))
	if err != nil {
		t.Fatal(err)
	}
	sel := st.(*cql.Select)
	buckets := []any{nil}
	if tb.Bucket != "" {
		w, _ := bucket.ParseWidth(tb.Bucket)
		scheme, _ := bucket.New(w)
		lo, hi := recs[0][tb.TimeColumn].(time.Time), recs[len(recs)-1][tb.TimeColumn].(time.Time)
		bs, err := scheme.Between(lo, hi.Add(time.Millisecond), 100000)
		if err != nil {
			t.Fatal(err)
		}
		buckets = nil
		for _, b := range bs {
			if tb.Bucket == "day" {
				buckets = append(buckets, b.Start())
			} else {
				buckets = append(buckets, b.String())
			}
		}
	}
	shards := []any{nil}
	if tb.Tiers != nil && tb.ShardColumn != "" {
		shards = []any{0} // the default tier: shard(id, 1)
	} else if tb.Shards > 1 {
		shards = nil
		for i := range tb.Shards {
			shards = append(shards, i)
		}
	}
	origRels := map[string]*cql.Relation{}
	for _, r := range orig.Where {
		origRels[r.Column().Name] = r
	}
	var rows []denorm.Values
	for _, b := range buckets {
		for _, sh := range shards {
			var binds []any
			for _, rel := range sel.Where {
				if rel.Value == nil || !rel.Value.IsMarker() {
					continue
				}
				switch col := rel.Column().Name; {
				case col == tb.BucketColumn:
					binds = append(binds, b)
				case col == tb.ShardColumn:
					binds = append(binds, sh)
				default:
					var key string
					if o := origRels[col]; o != nil {
						key = o.Text
					}
					for _, o := range orig.Where {
						if o.Op == cql.OpContains && ent.Column(col) == nil {
							key = o.Text // the element column of the searched collection
						}
						if o.Text == rel.Text {
							key = o.Text
						}
					}
					binds = append(binds, params[key])
				}
			}
			iter := s.Query(sel.Text, binds...).WithContext(ctx).Iter()
			for {
				m := map[string]any{}
				if !iter.MapScan(m) {
					break
				}
				rows = append(rows, denorm.Values(m))
			}
			if err := iter.Close(); err != nil {
				t.Fatalf("%s %v: %v", sel.Text, binds, err)
			}
		}
	}
	return project(orig, ent, orderRows(orig, rows))
}

// norm renders a value as both the records and the driver hold it.
func norm(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case gocql.UUID:
		return x.String()
	case []string:
		s := append([]string(nil), x...)
		sort.Strings(s)
		return "{" + strings.Join(s, ",") + "}"
	case int:
		return fmt.Sprint(int64(x))
	}
	return fmt.Sprint(v)
}

func compare(a, b any) int {
	switch x := a.(type) {
	case time.Time:
		return x.Compare(b.(time.Time))
	case string:
		return strings.Compare(x, b.(string))
	case int:
		return x - b.(int)
	}
	return strings.Compare(norm(a), norm(b))
}
