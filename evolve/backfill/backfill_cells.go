package backfill

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/cql/derive"
)

// stamp is a write time and a remaining TTL in seconds (0: none). A key-only row's
// liveness carries noTTL instead: its TTL cannot be read, so the target table's default
// applies.
type stamp struct {
	ts  int64
	ttl int
}

const noTTL = -1

// keyOnlyTimestamp is the write time of a key-only row's target row (1 µs after the
// epoch): the oldest there is, because the row's own write time cannot be read and any
// later one would be a guess that can beat a delete. Every write the service makes, a dual
// write or a delete, is newer, so it wins whenever it comes: a key-only row the service
// deleted in the target before the copy read it stays deleted, even when the read (at
// LOCAL_ONE) came from a replica that missed the delete in the source. In a new target
// table nothing older exists for the copy to lose to. In a table that held data before,
// the copy loses to every tombstone already there for the row (a row or partition
// deleted earlier, until compaction purges the tombstone after gc_grace_seconds): such a
// row is not copied.
const keyOnlyTimestamp = 1

// targetCell is one cell of a target row: a whole value, or (add) elements added to a
// non-frozen collection.
type targetCell struct {
	col   int // index into the writer's columns
	value any
	add   bool
}

// targetRow is one target row with its cells grouped by (write time, TTL).
type targetRow struct {
	key      []any     // the primary key values, in the writer's key order
	readAt   time.Time // when the source row's read was sent: its TTLs count down from then
	liveness stamp
	keyOnly  bool // the source row had no live regular cell
	groups   map[stamp][]targetCell
}

// tcol is a filled target column with what the writer needs to know of its source.
type tcol struct {
	derive.Target
	quoted    string
	key       bool
	srcKey    bool // the source column is in the source's primary key
	srcMulti  bool // the source column is a non-frozen collection
	dstMulti  bool // the target column is a non-frozen collection
	eachIndex int  // for each(): which of the program's each() columns, else -1
}

// rowBuilder turns source rows into target rows, following p.
type rowBuilder struct {
	p    *derive.Program
	cols []tcol
	keys []int // indexes into cols of the target's primary key, in key order
	// regular lists the source's regular columns the program reads: the oldest of their
	// cells stands for the row's own write time.
	regular []string
}

func newRowBuilder(p *derive.Program) (*rowBuilder, error) {
	b := &rowBuilder{p: p}
	dst := p.TargetTable()
	each := 0
	for _, t := range p.Columns() {
		c := tcol{Target: t, quoted: cql.QuoteName(t.Column), eachIndex: -1,
			key:    t.Kind == cql.PartitionKey || t.Kind == cql.Clustering,
			srcKey: t.Source.Kind == cql.PartitionKey || t.Source.Kind == cql.Clustering, srcMulti: t.Source.Type.MultiCell(),
			dstMulti: t.Type.MultiCell()}
		if t.Expr.Func == derive.Each {
			c.eachIndex = each
			each++
		}
		if t.Type.Kind == cql.UDT && !t.Type.Frozen {
			return nil, &denorm.SchemaError{Table: dst.Keyspace + "." + dst.Name, Column: t.Column, Msg: "is a non-frozen user type: a backfill cannot write it field by field"}
		}
		if t.Type.Kind == cql.List && !t.Type.Frozen {
			// An append is not idempotent: a retried write, or a range copied again after a
			// stop, would add every element a second time.
			return nil, &denorm.SchemaError{Table: dst.Keyspace + "." + dst.Name, Column: t.Column, Msg: fmt.Sprintf(
				"is a non-frozen list: writing it again (a retry, a range copied again) duplicates its elements; declare it frozen<%s>", t.Type)}
		}
		b.cols = append(b.cols, c)
	}
	for _, k := range append(append([]*cql.Column{}, dst.PartitionKey...), dst.Clustering...) {
		for i, c := range b.cols {
			if c.Column == k.Name {
				b.keys = append(b.keys, i)
			}
		}
	}
	if len(b.keys) != len(dst.PartitionKey)+len(dst.Clustering) {
		return nil, fmt.Errorf("backfill %s.%s: a primary key column is not filled", dst.Keyspace, dst.Name)
	}
	src := p.SourceTable()
	for _, name := range p.Sources() {
		if c := src.Column(name); c.Kind == cql.Regular && !(c.Type.Kind == cql.UDT && !c.Type.Frozen) {
			b.regular = append(b.regular, c.Name)
		}
	}
	return b, nil
}

// liveness is the source row's own write time as far as CQL shows it: the oldest of the
// regular cells the program reads (the INSERT that made the row wrote them all; later
// updates are newer), or, for a row with none live (key columns only, or only columns the
// target does not take), keyOnlyTimestamp with no TTL.
func (b *rowBuilder) liveness(row *sourceRow) (stamp, bool) {
	var best stamp
	found := false
	consider := func(s stamp) {
		if !found || s.ts < best.ts {
			best, found = s, true
		}
	}
	for _, name := range b.regular {
		m, ok := row.meta[name]
		if !ok {
			continue
		}
		if m.live {
			consider(stamp{m.ts, m.ttl})
		}
		for i, ts := range m.elemTS {
			consider(stamp{ts, at(m.elemTTL, i)})
		}
	}
	if !found {
		return stamp{keyOnlyTimestamp, noTTL}, true
	}
	return best, false
}

func at(xs []int, i int) int {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

// build calls fn with each target row of row.
func (b *rowBuilder) build(row *sourceRow, fn func(*targetRow) error) error {
	base, keyOnly := b.liveness(row)
	return b.p.Expand(row.vals, func(vals map[string]any, elems []int) error {
		tr := &targetRow{key: make([]any, len(b.keys)), readAt: row.readAt, keyOnly: keyOnly, liveness: base, groups: map[stamp][]targetCell{}}
		for i, k := range b.keys {
			v := vals[b.cols[k].Column]
			if v == nil {
				return nil // a key derived from a null: no row to write
			}
			tr.key[i] = v
		}
		// A row fanned out of collection elements exists since its newest element was added.
		var fan stamp
		fanned := false
		for _, c := range b.cols {
			if c.eachIndex < 0 {
				continue
			}
			s := b.stampOf(row, c, elems, base)
			if !fanned || s.ts > fan.ts {
				fan, fanned = s, true
			}
		}
		if fanned {
			tr.liveness = fan
		}
		for i, c := range b.cols {
			if c.key {
				continue
			}
			v := vals[c.Column]
			if v == nil {
				continue
			}
			if c.srcMulti && c.Expr.Func == derive.Copy {
				b.addElements(tr, row, i, c, v)
				continue
			}
			s := b.stampOf(row, c, elems, tr.liveness)
			tr.groups[s] = append(tr.groups[s], targetCell{col: i, value: v})
		}
		return fn(tr)
	})
}

// stampOf is the write time and TTL a target cell filled from c takes: its source cell's,
// the chosen element's for each() of a non-frozen collection, or the row's (live) for a
// value taken from the source's primary key.
func (b *rowBuilder) stampOf(row *sourceRow, c tcol, elems []int, live stamp) stamp {
	if c.srcKey {
		return live
	}
	m := row.meta[c.Expr.Column]
	if c.srcMulti {
		if c.eachIndex >= 0 && elems[c.eachIndex] < len(m.elemTS) {
			i := elems[c.eachIndex]
			return stamp{m.elemTS[i], at(m.elemTTL, i)}
		}
		return newest(m)
	}
	return stamp{m.ts, m.ttl}
}

// newest is the stamp of a non-frozen collection copied whole into a frozen one: its
// newest element's write time, and a TTL only when every element has one (the shortest).
func newest(m cellMeta) stamp {
	var s stamp
	ttl, all := 0, true
	for i, ts := range m.elemTS {
		s.ts = max(s.ts, ts)
		t := at(m.elemTTL, i)
		if t == 0 {
			all = false
		} else if ttl == 0 || t < ttl {
			ttl = t
		}
	}
	if all {
		s.ttl = ttl
	}
	return s
}

// addElements adds a non-frozen collection's elements to a non-frozen target column,
// each with its own write time and TTL, grouped so that elements written together go in
// one statement. Into a frozen column the collection is one cell.
func (b *rowBuilder) addElements(tr *targetRow, row *sourceRow, i int, c tcol, v any) {
	m := row.meta[c.Expr.Column]
	if !c.dstMulti {
		s := newest(m)
		tr.groups[s] = append(tr.groups[s], targetCell{col: i, value: v})
		return
	}
	rv := reflect.ValueOf(v)
	parts := map[stamp]reflect.Value{}
	var order []stamp
	if rv.Kind() == reflect.Map {
		keys := mapKeys(rv, m.elemKeys)
		for k, key := range keys {
			s := stamp{m.elemTS[min(k, len(m.elemTS)-1)], at(m.elemTTL, k)}
			p, ok := parts[s]
			if !ok {
				p = reflect.MakeMap(rv.Type())
				parts[s] = p
				order = append(order, s)
			}
			p.SetMapIndex(key, rv.MapIndex(key))
		}
	} else {
		for k := 0; k < rv.Len(); k++ {
			s := stamp{m.elemTS[min(k, len(m.elemTS)-1)], at(m.elemTTL, k)}
			p, ok := parts[s]
			if !ok {
				p = reflect.MakeSlice(rv.Type(), 0, 1)
				order = append(order, s)
			}
			parts[s] = reflect.Append(p, rv.Index(k))
		}
	}
	for _, s := range order {
		tr.groups[s] = append(tr.groups[s], targetCell{col: i, value: parts[s].Interface(), add: true})
	}
}

// mapKeys is the keys of the map rv in the order of their write times: as the node's
// MAP_KEYS() read them (its comparator's order, which for a timeuuid or a uuid, a blob or a
// negative number is not Go's), or sorted when they were not read.
func mapKeys(rv reflect.Value, read any) []reflect.Value {
	if kv := reflect.ValueOf(read); read != nil && kv.Kind() == reflect.Slice && kv.Len() == rv.Len() {
		kt := rv.Type().Key()
		keys := make([]reflect.Value, 0, kv.Len())
		for i := 0; i < kv.Len(); i++ {
			k := kv.Index(i)
			if !k.Type().ConvertibleTo(kt) {
				break
			}
			keys = append(keys, k.Convert(kt))
		}
		if len(keys) == rv.Len() {
			return keys
		}
	}
	keys := rv.MapKeys()
	sort.Slice(keys, func(a, b int) bool { return lessKey(keys[a], keys[b]) })
	return keys
}

// lessKey orders map keys as Cassandra stores them for the common key types (text, ints,
// timestamps): enough to pair each entry with its write time.
func lessKey(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() < b.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() < b.Int()
	}
	return fmt.Sprint(a.Interface()) < fmt.Sprint(b.Interface())
}

// statement is one write of a target row.
type statement struct {
	cql  string
	args []any
	// ttlArg is the index in args of the TTL (-1: none), the source's remaining TTL when
	// the row was read at readAt: argsAt counts it down to when the write is sent.
	ttlArg int
	readAt time.Time
}

// argsAt is the statement's arguments for a write sent at now: the TTL less the time
// since the source was read (rounded up, so the target cell never outlives the source
// cell), and at least 1 s (a cell that expired meanwhile expires at once in the target).
func (s statement) argsAt(now time.Time) []any {
	if s.ttlArg < 0 {
		return s.args
	}
	args := append([]any(nil), s.args...)
	args[s.ttlArg] = remainingTTL(s.args[s.ttlArg].(int), now.Sub(s.readAt))
	return args
}

// remainingTTL is a TTL of ttl seconds read elapsed ago, counted down to now.
func remainingTTL(ttl int, elapsed time.Duration) int {
	gone := int((max(0, elapsed) + time.Second - 1) / time.Second)
	return max(1, ttl-gone)
}

// rowWriter renders target rows as statements, caching their text.
type rowWriter struct {
	b     *rowBuilder
	table string // keyspace.table, quoted
	where string
	// pkWhere restricts the partition key only: an UPDATE that sets static columns alone
	// must not name the clustering columns (the node refuses it).
	pkWhere string
	npk     int
	texts   map[textKey]string
	keyIns  string // INSERT INTO t (k1, k2
}

func newRowWriter(b *rowBuilder) *rowWriter {
	dst := b.p.TargetTable()
	w := &rowWriter{b: b, table: cql.QuoteName(dst.Keyspace) + "." + cql.QuoteName(dst.Name), texts: map[textKey]string{}}
	var where, names []string
	for _, k := range b.keys {
		where = append(where, b.cols[k].quoted+" = ?")
		names = append(names, b.cols[k].quoted)
	}
	w.where = strings.Join(where, " AND ")
	w.npk = len(dst.PartitionKey)
	w.pkWhere = strings.Join(where[:w.npk], " AND ")
	w.keyIns = strings.Join(names, ", ")
	return w
}

// statements renders tr: an INSERT carrying the row's liveness (with the cells written at
// the same time), then an UPDATE per other (write time, TTL), so no cell takes another
// cell's write time. The writeSet sends a row's statements as one batch of its partition.
func (w *rowWriter) statements(tr *targetRow) []statement {
	stamps := make([]stamp, 0, len(tr.groups)+1)
	for s := range tr.groups {
		stamps = append(stamps, s)
	}
	if _, ok := tr.groups[tr.liveness]; !ok {
		stamps = append(stamps, tr.liveness)
	}
	sort.Slice(stamps, func(i, j int) bool {
		if stamps[i].ts != stamps[j].ts {
			return stamps[i].ts < stamps[j].ts
		}
		return stamps[i].ttl < stamps[j].ttl
	})
	out := make([]statement, 0, len(stamps)+1)
	for _, s := range stamps {
		var plain, adds []targetCell
		for _, c := range tr.groups[s] {
			if c.add {
				adds = append(adds, c)
			} else {
				plain = append(plain, c)
			}
		}
		if s == tr.liveness {
			out = append(out, w.insert(tr, s, plain))
			plain = nil
		}
		if len(plain)+len(adds) > 0 {
			out = append(out, w.update(tr, s, plain, adds))
		}
	}
	return out
}

func using(s stamp) (string, []any) {
	if s.ttl == noTTL {
		return "USING TIMESTAMP ?", []any{s.ts}
	}
	if s.ttl == 0 {
		// No TTL on the source cell: none on the target either, whatever the target
		// table's default_time_to_live says would not match the source.
		return "USING TTL 0 AND TIMESTAMP ?", []any{s.ts}
	}
	return "USING TTL ? AND TIMESTAMP ?", []any{s.ttl, s.ts}
}

// textKey names the text of a statement: its kind, its USING clause and the columns it
// sets, so that a row's statements find their text without building a string a row.
type textKey struct {
	update, static bool
	using          string // one of using's three clauses
	plain, adds    colSet
}

// colSet is a set of the writer's column indexes below maxKeyedCol.
type colSet [4]uint64

const maxKeyedCol = 256

func (c *colSet) add(col int) { c[col/64] |= 1 << (col % 64) }

// key is the textKey of a statement setting plain and adds; false when a column is past
// what a colSet holds (a table that wide gets its text built each time).
func (w *rowWriter) key(update bool, using string, plain, adds []targetCell) (textKey, bool) {
	k := textKey{update: update, using: using}
	for _, c := range plain {
		if c.col >= maxKeyedCol {
			return k, false
		}
		k.plain.add(c.col)
	}
	for _, c := range adds {
		if c.col >= maxKeyedCol {
			return k, false
		}
		k.adds.add(c.col)
	}
	return k, true
}

func (w *rowWriter) insert(tr *targetRow, s stamp, cells []targetCell) statement {
	u, uargs := using(s)
	args := make([]any, 0, len(tr.key)+len(cells)+len(uargs))
	args = append(args, tr.key...)
	for _, c := range cells {
		args = append(args, c.value)
	}
	k, keyed := w.key(false, u, cells, nil)
	text, ok := w.texts[k]
	if !ok || !keyed {
		names := w.keyIns
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(tr.key)), ", ")
		for _, c := range cells {
			names += ", " + w.b.cols[c.col].quoted
			marks += ", ?"
		}
		text = "INSERT INTO " + w.table + " (" + names + ") VALUES (" + marks + ") " + u
		if keyed {
			w.texts[k] = text
		}
	}
	ttlArg := -1
	if len(uargs) == 2 {
		ttlArg = len(args)
	}
	return statement{cql: text, args: append(args, uargs...), ttlArg: ttlArg, readAt: tr.readAt}
}

func (w *rowWriter) update(tr *targetRow, s stamp, plain, adds []targetCell) statement {
	u, uargs := using(s)
	args := make([]any, 0, len(uargs)+len(plain)+len(adds)+len(tr.key))
	args = append(args, uargs...)
	for _, c := range plain {
		args = append(args, c.value)
	}
	for _, c := range adds {
		args = append(args, c.value)
	}
	k, keyed := w.key(true, u, plain, adds)
	where, key := w.where, tr.key
	if allStatic(w.b, plain, adds) {
		k.static = true
		where, key = w.pkWhere, tr.key[:w.npk]
	}
	args = append(args, key...)
	text, ok := w.texts[k]
	if !ok || !keyed {
		var set []string
		for _, c := range plain {
			set = append(set, w.b.cols[c.col].quoted+" = ?")
		}
		for _, c := range adds {
			q := w.b.cols[c.col].quoted
			set = append(set, q+" = "+q+" + ?")
		}
		text = "UPDATE " + w.table + " " + u + " SET " + strings.Join(set, ", ") + " WHERE " + where
		if keyed {
			w.texts[k] = text
		}
	}
	ttlArg := -1
	if len(uargs) == 2 {
		ttlArg = 0
	}
	return statement{cql: text, args: args, ttlArg: ttlArg, readAt: tr.readAt}
}

// allStatic reports whether every cell an UPDATE sets is a static column's.
func allStatic(b *rowBuilder, cellSets ...[]targetCell) bool {
	n := 0
	for _, cells := range cellSets {
		for _, c := range cells {
			if b.cols[c.col].Kind != cql.Static {
				return false
			}
			n++
		}
	}
	return n > 0
}
