package accuracy

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// Data is the deterministic data of one reference workload: every partition key, row,
// value, timestamp and delete, generated from the workload's declared sizes, so that what is
// written is exactly what the model is told.
type Data struct {
	Table      *cql.Table
	Workload   *workload.TableWorkload
	Partitions []*PartitionData
	stmts      []stmt
}

// PartitionData is what the generator put into one partition.
type PartitionData struct {
	Key        []any   // partition key values, in key order
	Activity   float64 // how much busier than the average key (Zipf), 1 when uniform
	Rows       int     // rows written
	Deleted    bool    // a partition delete removed it
	RowDeletes int
	Ranges     int
	CellDels   int
	ElemDels   int
}

type stmt struct {
	cql  string
	args []any
}

// Generate plans the data of a workload for tbl: keys partitions (the workload's Partitions
// when 0) with rows spread by the workload's skew, timestamps spread uniformly over its
// write spread ending at base, values of the declared sizes, nulls at the declared rates
// and deletes. The seed makes it repeatable.
func Generate(tbl *cql.Table, schema *cql.Schema, w *workload.TableWorkload, base time.Time, seed uint64) (*Data, error) {
	if !w.WriteRate.IsZero() {
		return nil, fmt.Errorf("generate %s: declare rows_per_partition, not write_rate (the harness writes a partition's whole life at once)", tbl.Name)
	}
	g := &generator{tbl: tbl, schema: schema, w: w, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	keys := int(w.Partitions)
	if keys < 1 {
		keys = 1
	}
	d := &Data{Table: tbl, Workload: w}

	// Rows per key: the average times the key's activity under the declared skew.
	counts := make([]int, keys)
	total := 0
	for k := range counts {
		act := w.Skew.Activity(float64(keys), float64(k+1))
		counts[k] = int(math.Round(w.RowsPerPartition * act))
		total += counts[k]
		pd := &PartitionData{Activity: act, Rows: counts[k]}
		for _, c := range tbl.PartitionKey {
			v, err := g.value(c, c.Type, g.avg(c.Name), k)
			if err != nil {
				return nil, err
			}
			pd.Key = append(pd.Key, v)
		}
		d.Partitions = append(d.Partitions, pd)
	}

	// Write timestamps: uniform over the spread, shuffled so every partition sees all of it.
	spread := w.WriteSpread
	if spread <= 0 {
		spread = time.Hour
	}
	start := base.Add(-spread).UnixMicro()
	order := g.rng.Perm(max(total, 1))
	tsOf := func(j int) int64 {
		return start + int64((float64(order[j])+0.5)/float64(total)*float64(spread.Microseconds()))
	}

	j := 0
	for k, pd := range d.Partitions {
		rows := make([]*rowData, counts[k])
		for i := range rows {
			r, err := g.row(pd, i, tsOf(j))
			if err != nil {
				return nil, err
			}
			rows[i] = r
			j++
			d.stmts = append(d.stmts, r.write)
		}
		if err := g.deletes(d, pd, rows); err != nil {
			return nil, err
		}
	}
	return d, nil
}

type rowData struct {
	ck    []any
	ts    int64
	elems map[string]any // one element of each written non-frozen collection, for element deletes
	write stmt
}

type generator struct {
	tbl    *cql.Table
	schema *cql.Schema
	w      *workload.TableWorkload
	rng    *rand.Rand
	seq    uint64
}

func (g *generator) avg(col string) float64 {
	if v, ok := g.w.Avg[col]; ok {
		return v
	}
	return -1
}

func (g *generator) ttl() int {
	if g.w.TTL != nil {
		return int(g.w.TTL.Seconds())
	}
	return 0
}

// row plans one row's write: INSERT (or UPDATE) of every regular and static column, each
// left null (or unset) at the declared rate.
func (g *generator) row(pd *PartitionData, i int, ts int64) (*rowData, error) {
	r := &rowData{ts: ts, elems: map[string]any{}}
	for _, c := range g.tbl.Clustering {
		v, err := g.value(c, c.Type, g.avg(c.Name), i)
		if err != nil {
			return nil, err
		}
		r.ck = append(r.ck, v)
	}
	var names []string
	var vals []any
	for _, c := range g.tbl.Columns {
		if c.Kind != cql.Regular && c.Kind != cql.Static {
			continue
		}
		missing := g.w.Nulls[c.Name]
		if _, ok := g.w.Nulls[c.Name]; !ok {
			missing = g.w.Nulls["*"]
		}
		var v any
		if g.rng.Float64() < missing {
			if g.w.NullsAs == workload.NullUnset {
				continue
			}
			v = nil
		} else {
			var err error
			if v, err = g.value(c, c.Type, g.avg(c.Name), -1); err != nil {
				return nil, err
			}
			if c.Type.MultiCell() && c.Kind == cql.Regular {
				if e := firstElement(v); e != nil {
					r.elems[c.Name] = e
				}
			}
		}
		names = append(names, c.Name)
		vals = append(vals, v)
	}
	if isCounterTable(g.tbl) {
		// Counter tables take only increments, with no client timestamp or TTL.
		var sets []string
		var args []any
		for _, c := range g.tbl.Columns {
			if c.Kind == cql.Regular {
				sets, args = append(sets, fmt.Sprintf("%s = %s + ?", c.Name, c.Name)), append(args, int64(1+g.rng.IntN(1000)))
			}
		}
		where, wargs := g.where(pd, r, true)
		r.write = stmt{fmt.Sprintf("UPDATE %s SET %s WHERE %s", g.tbl.Name, strings.Join(sets, ", "), where), append(args, wargs...)}
		return r, nil
	}
	using := "USING TIMESTAMP ?"
	uargs := []any{ts}
	if t := g.ttl(); t > 0 {
		using += " AND TTL ?"
		uargs = append(uargs, t)
	}
	if g.w.Writes == workload.Update && len(names) > 0 {
		var sets []string
		for i, n := range names {
			c := g.tbl.Column(n)
			if c.Type.MultiCell() && c.Type.Kind != cql.UDT && vals[i] != nil {
				sets = append(sets, fmt.Sprintf("%s = %s + ?", n, n)) // an append writes no collection tombstone
			} else { // a value, or null: a null collection is a collection tombstone
				sets = append(sets, n+" = ?")
			}
		}
		where, wargs := g.where(pd, r, true)
		r.write = stmt{fmt.Sprintf("UPDATE %s %s SET %s WHERE %s", g.tbl.Name, using, strings.Join(sets, ", "), where),
			append(append(uargs, vals...), wargs...)}
		return r, nil
	}
	var cols []string
	var args []any
	for i, c := range g.tbl.PartitionKey {
		cols, args = append(cols, c.Name), append(args, pd.Key[i])
	}
	for i, c := range g.tbl.Clustering {
		cols, args = append(cols, c.Name), append(args, r.ck[i])
	}
	cols, args = append(cols, names...), append(args, vals...)
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	r.write = stmt{fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s) %s", g.tbl.Name, strings.Join(cols, ", "), marks, using),
		append(args, uargs...)}
	return r, nil
}

func isCounterTable(t *cql.Table) bool {
	for _, c := range t.Columns {
		if c.Type.Kind == cql.Native && c.Type.Name == "counter" {
			return true
		}
	}
	return false
}

// where is the WHERE clause of a row (withCK) or of its partition.
func (g *generator) where(pd *PartitionData, r *rowData, withCK bool) (string, []any) {
	var conds []string
	var args []any
	for i, c := range g.tbl.PartitionKey {
		conds, args = append(conds, c.Name+" = ?"), append(args, pd.Key[i])
	}
	if withCK {
		for i, c := range g.tbl.Clustering {
			conds, args = append(conds, c.Name+" = ?"), append(args, r.ck[i])
		}
	}
	return strings.Join(conds, " AND "), args
}

// deletes plans the partition's deletes on disjoint rows: range deletes over consecutive
// rows, then row, cell and element deletes, each one microsecond after what it deletes.
func (g *generator) deletes(d *Data, pd *PartitionData, rows []*rowData) error {
	if len(rows) == 0 {
		return nil
	}
	// Rows in clustering order, as a range delete sees them.
	sorted := append([]*rowData(nil), rows...)
	if len(g.tbl.Clustering) > 0 {
		sort.SliceStable(sorted, func(i, j int) bool { return less(sorted[i].ck[0], sorted[j].ck[0]) })
	}
	used := make([]bool, len(sorted))
	n := func(x workload.Delete) int { return int(math.Round(x.PerPartition * pd.Activity)) }
	next := 0
	for _, x := range g.w.Deletes {
		switch x.Kind {
		case workload.DeletePartition:
			if g.rng.Float64() < x.PerPartition {
				var ts int64
				for _, r := range rows {
					ts = max(ts, r.ts)
				}
				where, args := g.where(pd, nil, false)
				d.stmts = append(d.stmts, stmt{fmt.Sprintf("DELETE FROM %s USING TIMESTAMP ? WHERE %s", g.tbl.Name, where), append([]any{ts + 1}, args...)})
				pd.Deleted = true
			}
		case workload.DeleteRange:
			span := int(x.Rows)
			for i := 0; i < n(x); i++ {
				// Leave a row between ranges so each range has its own two markers.
				if next+span > len(sorted) {
					return fmt.Errorf("generate %s: range deletes need more rows than the partition has", g.tbl.Name)
				}
				first, last := sorted[next], sorted[next+span-1]
				var ts int64
				for k := next; k < next+span; k++ {
					ts = max(ts, sorted[k].ts)
					used[k] = true
				}
				next += span + 1
				where, args := g.where(pd, nil, false)
				c := g.tbl.Clustering[0].Name
				d.stmts = append(d.stmts, stmt{fmt.Sprintf("DELETE FROM %s USING TIMESTAMP ? WHERE %s AND %s >= ? AND %s <= ?", g.tbl.Name, where, c, c),
					append(append([]any{ts + 1}, args...), first.ck[0], last.ck[0])})
				pd.Ranges++
			}
		}
	}
	free := func() *rowData {
		for next < len(sorted) && used[next] {
			next++
		}
		if next >= len(sorted) {
			return nil
		}
		used[next] = true
		next++
		return sorted[next-1]
	}
	for _, x := range g.w.Deletes {
		for i := 0; i < n(x) && (x.Kind == workload.DeleteRow || x.Kind == workload.DeleteCell || x.Kind == workload.DeleteElement); i++ {
			r := free()
			if r == nil {
				return fmt.Errorf("generate %s: more deletes than rows", g.tbl.Name)
			}
			where, args := g.where(pd, r, true)
			switch x.Kind {
			case workload.DeleteRow:
				d.stmts = append(d.stmts, stmt{fmt.Sprintf("DELETE FROM %s USING TIMESTAMP ? WHERE %s", g.tbl.Name, where), append([]any{r.ts + 1}, args...)})
				pd.RowDeletes++
			case workload.DeleteCell:
				d.stmts = append(d.stmts, stmt{fmt.Sprintf("DELETE %s FROM %s USING TIMESTAMP ? WHERE %s", x.Column, g.tbl.Name, where), append([]any{r.ts + 1}, args...)})
				pd.CellDels++
			case workload.DeleteElement:
				e, ok := r.elems[x.Column]
				if !ok {
					i-- // this row's collection was null: take another
					continue
				}
				col := g.tbl.Column(x.Column)
				if col.Type.Kind == cql.Map {
					d.stmts = append(d.stmts, stmt{fmt.Sprintf("DELETE %s[?] FROM %s USING TIMESTAMP ? WHERE %s", x.Column, g.tbl.Name, where), append([]any{e, r.ts + 1}, args...)})
				} else {
					d.stmts = append(d.stmts, stmt{fmt.Sprintf("UPDATE %s USING TIMESTAMP ? SET %s = %s - ? WHERE %s", g.tbl.Name, x.Column, x.Column, where), append([]any{r.ts + 1, []any{e}}, args...)})
				}
				pd.ElemDels++
			}
		}
	}
	return nil
}

// less orders clustering values of the kinds the generator makes.
func less(a, b any) bool {
	switch x := a.(type) {
	case gocql.UUID:
		y := b.(gocql.UUID)
		if x.Version() == 1 && y.Version() == 1 {
			return x.Time().Before(y.Time()) || x.Time().Equal(y.Time()) && string(x[:]) < string(y[:])
		}
		return string(x[:]) < string(y[:])
	case string:
		return x < b.(string)
	case int32:
		return x < b.(int32)
	case int64:
		return x < b.(int64)
	case time.Time:
		return x.Before(b.(time.Time))
	}
	return fmt.Sprint(a) < fmt.Sprint(b)
}

// firstElement returns one element of a generated collection (a set member or a map key).
func firstElement(v any) any {
	switch c := v.(type) {
	case []any:
		if len(c) > 0 {
			return c[0]
		}
	case map[any]any:
		keys := make([]string, 0, len(c))
		byKey := map[string]any{}
		for k := range c {
			s := fmt.Sprint(k)
			keys = append(keys, s)
			byKey[s] = k
		}
		sort.Strings(keys)
		if len(keys) > 0 {
			return byKey[keys[0]]
		}
	}
	return nil
}

// size draws a length with mean avg: uniform over [avg/2, 3·avg/2] in whole bytes.
func (g *generator) size(avg float64) int {
	if avg < 4 {
		return int(math.Round(avg))
	}
	lo, hi := int(math.Round(avg/2)), int(math.Round(avg*3/2))
	// Keep the mean exact for odd spans: the interval is symmetric around avg.
	if lo+hi != int(math.Round(2*avg)) {
		hi = int(math.Round(2*avg)) - lo
	}
	return lo + g.rng.IntN(hi-lo+1)
}

const letters = "abcdefghijklmnopqrstuvwxyz0123456789"

// text returns n bytes of text; unique >= 0 makes it distinct (a key or clustering value).
func (g *generator) text(n, unique int) string {
	var b strings.Builder
	if unique >= 0 {
		b.WriteString(strconv.FormatInt(int64(unique), 36))
		b.WriteByte('_')
	}
	for b.Len() < n {
		b.WriteByte(letters[g.rng.IntN(len(letters))])
	}
	return b.String()
}

// timeUUID returns a version-1 UUID whose time is t plus a sequence, so every call differs.
func (g *generator) timeUUID(t time.Time) gocql.UUID {
	g.seq++
	ticks := uint64(t.UnixNano()/100) + 0x01B21DD213814000 + g.seq%10000
	var u gocql.UUID
	binary.BigEndian.PutUint32(u[0:], uint32(ticks))
	binary.BigEndian.PutUint16(u[4:], uint16(ticks>>32))
	binary.BigEndian.PutUint16(u[6:], uint16(ticks>>48)&0x0fff|0x1000)
	binary.BigEndian.PutUint16(u[8:], uint16(g.seq>>14)&0x3fff|0x8000)
	binary.BigEndian.PutUint32(u[10:], uint32(g.seq))
	binary.BigEndian.PutUint16(u[14:], uint16(g.rng.Uint32()))
	return u
}

func (g *generator) uuid() gocql.UUID {
	var u gocql.UUID
	binary.BigEndian.PutUint64(u[0:], g.rng.Uint64())
	binary.BigEndian.PutUint64(u[8:], g.rng.Uint64())
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// epoch anchors generated dates and clustering timestamps.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// value generates a value of type t with mean raw size avg (< 0: none declared). unique >= 0
// asks for a value distinct per unique (keys and clustering values).
func (g *generator) value(c *cql.Column, t cql.Type, avg float64, unique int) (any, error) {
	switch t.Kind {
	case cql.Native:
		switch t.Name {
		case "text", "ascii", "blob", "varint":
			if avg < 0 {
				return nil, fmt.Errorf("generate %s.%s: declare avg for %s", g.tbl.Name, c.Name, t)
			}
			n := g.size(avg)
			switch t.Name {
			case "blob":
				b := make([]byte, n)
				for i := range b {
					b[i] = byte(g.rng.Uint32())
				}
				return b, nil
			case "varint":
				// A positive varint of n bytes: the top byte below 0x80 keeps it n bytes long.
				b := make([]byte, max(n, 1))
				for i := range b {
					b[i] = byte(g.rng.Uint32())
				}
				b[0] = b[0]&0x7f | 0x01
				return new(big.Int).SetBytes(b), nil
			}
			return g.text(n, unique), nil
		case "uuid":
			return g.uuid(), nil
		case "timeuuid":
			return g.timeUUID(epoch.Add(time.Duration(max(unique, 0)) * time.Millisecond)), nil
		case "int":
			if unique >= 0 {
				return int32(unique), nil
			}
			return int32(g.rng.Uint32()), nil
		case "bigint", "counter":
			if unique >= 0 {
				return int64(unique), nil
			}
			return int64(g.rng.Uint64()), nil
		case "smallint":
			return int16(g.rng.Uint32()), nil
		case "tinyint":
			return int8(g.rng.Uint32()), nil
		case "boolean":
			return g.rng.IntN(2) == 1, nil
		case "float":
			return g.rng.Float32(), nil
		case "double":
			return g.rng.Float64() * 100, nil
		case "timestamp":
			if unique >= 0 {
				return epoch.Add(time.Duration(unique) * time.Second), nil
			}
			return epoch.Add(time.Duration(g.rng.IntN(1 << 30))), nil
		case "date":
			return epoch.AddDate(0, 0, max(unique, 0)), nil
		case "time":
			return time.Duration(g.rng.Int64N(int64(24 * time.Hour))), nil
		case "inet":
			return net.IPv4(10, byte(g.rng.Uint32()), byte(g.rng.Uint32()), byte(g.rng.Uint32())).To4(), nil
		}
		return nil, fmt.Errorf("generate %s.%s: the harness does not generate %s values", g.tbl.Name, c.Name, t)
	case cql.List, cql.Set, cql.Map:
		it, ok := g.w.Items[c.Name]
		if !ok {
			return nil, fmt.Errorf("generate %s.%s: declare items for %s", g.tbl.Name, c.Name, t)
		}
		count := int(math.Round(it.Count))
		elem := func(i int, et cql.Type, size float64) (any, error) {
			if _, fixed := et.FixedSize(); fixed {
				size = -1
			}
			return g.value(c, et, size, i)
		}
		if t.Kind == cql.Map {
			m := map[any]any{}
			for i := 0; i < count; i++ {
				k, err := elem(i, t.Params[0], it.KeySize)
				if err != nil {
					return nil, err
				}
				v, err := elem(-1, t.Params[1], it.Size)
				if err != nil {
					return nil, err
				}
				m[k] = v
			}
			return m, nil
		}
		var out []any
		for i := 0; i < count; i++ {
			u := -1
			if t.Kind == cql.Set {
				u = i // set elements must differ
			}
			v, err := elem(u, t.Params[0], it.Size)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case cql.UDT:
		ut := g.userType(t)
		if ut == nil {
			return nil, fmt.Errorf("generate %s.%s: user type %s not in the schema", g.tbl.Name, c.Name, t.Name)
		}
		m := map[string]any{}
		for _, f := range ut.Fields {
			v, err := g.value(c, f.Type, g.avg(c.Name+"."+f.Name), -1)
			if err != nil {
				return nil, err
			}
			m[f.Name] = v
		}
		return m, nil
	}
	return nil, fmt.Errorf("generate %s.%s: the harness does not generate %s values", g.tbl.Name, c.Name, t)
}

func (g *generator) userType(t cql.Type) *cql.UserType {
	ks := t.Keyspace
	if ks == "" {
		ks = g.tbl.Keyspace
	}
	if g.schema == nil || g.schema.Keyspaces[ks] == nil {
		return nil
	}
	return g.schema.Keyspaces[ks].Types[t.Name]
}

// Write executes the planned statements with concurrency workers.
func (d *Data) Write(ctx context.Context, s *gocql.Session, concurrency int) error {
	if concurrency < 1 {
		concurrency = 1
	}
	ch := make(chan stmt)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for i := 0; i < concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for st := range ch {
				var err error
				if strings.Contains(st.cql, "USING TIMESTAMP") {
					// Again after a timeout of a busy node: the same cells, at the same timestamp.
					err = writeBatch(ctx, s, []stmt{st})
				} else {
					// A counter increment is not sent twice: a timed-out one may have counted.
					err = s.Query(st.cql, st.args...).WithContext(ctx).Exec()
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("write %s: %s: %w", d.Table.Name, st.cql, err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, st := range d.stmts {
		mu.Lock()
		stop := first != nil
		mu.Unlock()
		if stop || ctx.Err() != nil {
			break
		}
		ch <- st
	}
	close(ch)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// Statements is how many writes and deletes the data takes.
func (d *Data) Statements() int { return len(d.stmts) }
