package backfill

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/cql/derive"
)

// cellMeta is a source cell's write time and remaining TTL, or, for a non-frozen
// collection, each element's.
type cellMeta struct {
	live    bool  // a single cell that holds a value
	ts      int64 // WRITETIME, microseconds
	ttl     int   // remaining TTL in seconds; 0: none
	elemTS  []int64
	elemTTL []int
	// elemKeys is a non-frozen map's keys as MAP_KEYS() reads them: in the order the node
	// stores them, which is the order of elemTS and elemTTL (a slice; nil when not read).
	elemKeys any
}

// sourceRow is one row read from the source table.
type sourceRow struct {
	token int64
	vals  map[string]any
	meta  map[string]cellMeta
	bytes int64 // the values' sizes, roughly as stored
	// readAt is when the query that read the row was sent: its TTLs are no older.
	readAt time.Time
}

// srcCol is one column of the source SELECT.
type srcCol struct {
	col   *cql.Column
	val   int // index in the scan destinations of the value, -1 when the value is not read
	wt    int // of WRITETIME(col), -1 when not read
	ttl   int // of TTL(col)
	keys  int // of MAP_KEYS(col) for a non-frozen map, -1 when not read
	multi bool
}

// sourceReader reads rows of the source table with the write time and TTL of each cell.
type sourceReader struct {
	t        *cql.Table
	cols     []srcCol
	stmt     string // ... WHERE token(pk) > ? AND token(pk) <= ?
	byKey    string // ... WHERE <primary key> (verify's re-read)
	head     string // SELECT ... FROM t WHERE (verify's reads of many rows of one partition)
	keyCols  []*cql.Column
	nsel     int
	nonFroze map[string]bool
}

// newSourceReader reads the columns p needs, with the write time and TTL of each of their
// regular and static cells. Only those: every WRITETIME() read costs the node time.
func newSourceReader(p *derive.Program) (*sourceReader, error) {
	t := p.SourceTable()
	need := map[string]bool{}
	for _, c := range p.Sources() {
		need[c] = true
	}
	r := &sourceReader{t: t, nonFroze: map[string]bool{}}
	var pk []string
	for _, c := range t.PartitionKey {
		pk = append(pk, cql.QuoteName(c.Name))
	}
	tok := "token(" + strings.Join(pk, ", ") + ")"
	sel := []string{tok}
	var meta []string
	n := 1
	for _, c := range t.Columns {
		if c.Type.Kind == cql.Native && c.Type.Name == "counter" {
			return nil, &denorm.SchemaError{Table: t.Keyspace + "." + t.Name, Column: c.Name, Msg: "is a counter: a counter cannot be copied with its write time"}
		}
		key := c.Kind == cql.PartitionKey || c.Kind == cql.Clustering
		sc := srcCol{col: c, val: -1, wt: -1, ttl: -1, keys: -1, multi: c.Type.MultiCell()}
		if c.Type.Kind == cql.UDT && !c.Type.Frozen {
			if need[c.Name] {
				return nil, &denorm.SchemaError{Table: t.Keyspace + "." + t.Name, Column: c.Name, Msg: "is a non-frozen user type: its fields' write times cannot be read, so it cannot be copied"}
			}
			continue
		}
		if key {
			r.keyCols = append(r.keyCols, c)
		}
		if need[c.Name] || key {
			sc.val = n
			n++
			sel = append(sel, cql.QuoteName(c.Name))
		}
		if !key && need[c.Name] {
			sc.wt = 0 // placed after every value, below
			meta = append(meta, "WRITETIME("+cql.QuoteName(c.Name)+")", "TTL("+cql.QuoteName(c.Name)+")")
			if sc.multi && c.Type.Kind == cql.Map {
				sc.keys = 0
				meta = append(meta, "MAP_KEYS("+cql.QuoteName(c.Name)+")")
			}
		}
		r.cols = append(r.cols, sc)
	}
	// The SELECT lists every value, then every WRITETIME and TTL pair (and a non-frozen
	// map's MAP_KEYS), in column order.
	for i := range r.cols {
		if r.cols[i].wt == 0 {
			r.cols[i].wt, r.cols[i].ttl = n, n+1
			n += 2
			if r.cols[i].keys == 0 {
				r.cols[i].keys = n
				n++
			}
		}
	}
	r.nsel = n
	from := fmt.Sprintf(" FROM %s.%s WHERE ", cql.QuoteName(t.Keyspace), cql.QuoteName(t.Name))
	head := "SELECT " + strings.Join(append(sel, meta...), ", ") + from
	r.stmt = head + tok + " > ? AND " + tok + " <= ?"
	var where []string
	for _, c := range r.keyCols {
		where = append(where, cql.QuoteName(c.Name)+" = ?")
	}
	r.byKey = head + strings.Join(where, " AND ")
	r.head = head
	return r, nil
}

// newCopier checks that p's tables can be copied cell by cell and returns what reads the
// source and what builds the target rows.
func newCopier(p *derive.Program) (*rowBuilder, *sourceReader, error) {
	b, err := newRowBuilder(p)
	if err != nil {
		return nil, nil, err
	}
	r, err := newSourceReader(p)
	if err != nil {
		return nil, nil, err
	}
	return b, r, nil
}

// scanner holds the scan destinations of one iterator: pointers to pointers, so a null
// reads as nil rather than as the type's zero value.
type scanner struct {
	r    *sourceReader
	dest []any
}

func (r *sourceReader) scanner(iter *gocql.Iter) (*scanner, error) {
	rd, err := iter.RowData()
	if err != nil {
		return nil, err
	}
	if len(rd.Values) != r.nsel {
		return nil, fmt.Errorf("read %s.%s: %d columns came back, want %d", r.t.Keyspace, r.t.Name, len(rd.Values), r.nsel)
	}
	sc := &scanner{r: r, dest: make([]any, len(rd.Values))}
	for i, v := range rd.Values {
		sc.dest[i] = reflect.New(reflect.TypeOf(v)).Interface() // **T
	}
	return sc, nil
}

// row reads the destinations just scanned into a sourceRow.
func (sc *scanner) row() sourceRow {
	get := func(i int) any {
		p := reflect.ValueOf(sc.dest[i]).Elem() // *T
		if p.IsNil() {
			return nil
		}
		v := p.Elem().Interface()
		p.Set(reflect.Zero(p.Type())) // the next row's null must not read as this value
		return v
	}
	row := sourceRow{vals: make(map[string]any, len(sc.r.cols)), meta: make(map[string]cellMeta, len(sc.r.cols))}
	if tok, ok := get(0).(int64); ok {
		row.token = tok
	}
	for _, c := range sc.r.cols {
		if c.val >= 0 {
			v := get(c.val)
			if v != nil && c.multi && reflect.ValueOf(v).Len() == 0 {
				v = nil // an empty non-frozen collection is no cell at all
			}
			if v != nil {
				row.vals[c.col.Name] = v
				row.bytes += valueSize(v)
			}
		}
		if c.wt < 0 {
			continue
		}
		var m cellMeta
		if c.multi {
			m.elemTS, _ = get(c.wt).([]int64)
			m.elemTTL, _ = get(c.ttl).([]int)
			if c.keys >= 0 {
				m.elemKeys = get(c.keys)
			}
		} else if ts, ok := get(c.wt).(int64); ok {
			m.live, m.ts = true, ts
			m.ttl, _ = get(c.ttl).(int)
		} else {
			get(c.ttl)
		}
		if m.live || len(m.elemTS) > 0 {
			row.meta[c.col.Name] = m
		}
	}
	return row
}

// valueSize is about how many bytes v takes serialized: for progress and rate, not sizing.
func valueSize(v any) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x))
	case []byte:
		return int64(len(x))
	case bool, int8:
		return 1
	case int16:
		return 2
	case int32, float32:
		return 4
	case int, int64, float64, time.Time, time.Duration:
		return 8
	case gocql.UUID:
		return 16
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		var n int64
		for i := 0; i < rv.Len(); i++ {
			n += 4 + valueSize(rv.Index(i).Interface())
		}
		return n
	case reflect.Map:
		var n int64
		it := rv.MapRange()
		for it.Next() {
			n += 8 + valueSize(it.Key().Interface()) + valueSize(it.Value().Interface())
		}
		return n
	}
	return 8
}

// scanPages runs q page by page, each page a query of its own (q's argument is the paging
// state, nil for the first), and calls fn with each row and when the query that read its
// page was sent: the remaining TTLs a page carries were counted no earlier than that, so
// a copy that subtracts the time since then never writes a TTL longer than the source's.
// The next page is requested while fn takes the rows of one. fn returns false to stop.
//
// With again set, a page whose answer is an error is asked for again through again (a
// retry policy): nothing of that page has reached fn, and its paging state still names
// it, so the walk goes on where it was. Without, the error ends the walk.
func (r *sourceReader) scanPages(q func(state []byte) *gocql.Query, again func(op func() error) error, fn func(row *sourceRow) (bool, error)) error {
	type page struct {
		iter *gocql.Iter
		sent time.Time
	}
	send := func(state []byte) page {
		sent := time.Now()
		return page{iter: q(state).Iter(), sent: sent}
	}
	fetch := func(state []byte) page {
		var p page
		// An error that outlasted again is scanPage's to return.
		p.iter = sendPage(func() *gocql.Iter { p = send(state); return p.iter }, again)
		return p
	}
	cur := fetch(nil)
	for {
		var next chan page
		if state := cur.iter.PageState(); len(state) > 0 {
			next = make(chan page, 1)
			go func() { next <- fetch(state) }()
		}
		more, err := r.scanPage(cur.iter, cur.sent, fn)
		if err != nil || !more || next == nil {
			if next != nil {
				(<-next).iter.Close()
			}
			return err
		}
		cur = <-next
	}
}

// sendPage sends one page's query (send) and, with again set, sends it again through again
// while the answer is an error: nothing of a page reaches a caller before its answer is in,
// and its paging state still names it. The iterator returned may hold the last error, which
// its Close returns.
func sendPage(send func() *gocql.Iter, again func(op func() error) error) *gocql.Iter {
	if again == nil {
		return send()
	}
	var iter *gocql.Iter
	_ = again(func() error {
		iter = send()
		_, err := iter.RowData() // the page's error, if its answer was one
		if err != nil {
			iter.Close()
		}
		return err
	})
	return iter
}

// scanPage calls fn with the rows of one page and closes it.
func (r *sourceReader) scanPage(iter *gocql.Iter, sent time.Time, fn func(row *sourceRow) (bool, error)) (bool, error) {
	sc, err := r.scanner(iter)
	if err != nil {
		if cerr := iter.Close(); cerr != nil {
			return false, cerr
		}
		return false, err
	}
	for iter.Scan(sc.dest...) {
		row := sc.row()
		row.readAt = sent
		more, err := fn(&row)
		if err != nil || !more {
			iter.Close()
			return false, err
		}
	}
	return true, iter.Close()
}
