package denorm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// Op is what a statement does to its row.
type Op int

// Statement kinds.
const (
	OpInsert Op = iota // INSERT of a whole row (unset columns left alone)
	OpDelete           // DELETE of a row (or of the partition, for a table without clustering columns)
)

func (o Op) String() string {
	if o == OpDelete {
		return "delete"
	}
	return "insert"
}

// Statement is one row's statement in a plan.
type Statement struct {
	Table string // keyspace.table, or table when no keyspace is known
	Op    Op
	CQL   string
	Args  []any // marshalled values, gocql.UnsetValue for columns not set, then TTL and timestamp
}

// Plan is everything one write sends: built and measured before anything is sent, so a
// bad entity or an oversized batch fails with nothing written.
type Plan struct {
	Statements []Statement
	Timestamp  int64         // USING TIMESTAMP of every statement, microseconds since the epoch
	TTL        time.Duration // USING TTL of every inserted row; 0 = the table's default
	Mode       Mode
	Size       BatchSize
}

// Rows returns how many statements of the plan touch table (as Model.Tables names it).
func (p *Plan) Rows(table string) int {
	n := 0
	for _, s := range p.Statements {
		if s.Table == table {
			n++
		}
	}
	return n
}

// WriteOption adjusts one write.
type WriteOption func(*writeOptions)

type writeOptions struct {
	ts     int64
	ttl    time.Duration
	ttlSet bool
}

// At sets the write timestamp (microseconds since the epoch) instead of the clock's. Retrying
// a write with the timestamp of the first attempt (Plan.Timestamp) makes the retry a no-op
// where the first attempt landed, so retries never reorder writes.
func At(micros int64) WriteOption { return func(o *writeOptions) { o.ts = micros } }

// WithTTL sets the TTL of this write's rows, overriding Options.TTL.
func WithTTL(d time.Duration) WriteOption {
	return func(o *writeOptions) { o.ttl, o.ttlSet = d, true }
}

func (m *Model[E]) writeOpts(opts []WriteOption) (writeOptions, error) {
	wo := writeOptions{ttl: m.opts.TTL}
	for _, o := range opts {
		o(&wo)
	}
	if wo.ttl < 0 || wo.ttl > maxTTL {
		return wo, fmt.Errorf("TTL %s: want 0 (the table default) up to 20 years", wo.ttl)
	}
	if wo.ts == 0 {
		wo.ts = m.opts.Now().UnixMicro()
	}
	if wo.ts < 0 {
		return wo, fmt.Errorf("timestamp %d: must not be negative", wo.ts)
	}
	return wo, nil
}

// raw is a value already marshalled for its column, so the driver does not marshal it again.
type raw []byte

// MarshalCQL implements gocql.Marshaler.
func (r raw) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

// row is one row of one table, its values marshalled.
type row struct {
	enc    []any  // per column: raw, or gocql.UnsetValue
	pk     string // partition key bytes as Cassandra builds them (CompositeType for several columns)
	key    string // pk plus the clustering values, length-prefixed: the row's identity
	ckSize int    // bytes of the clustering values
}

type tableRows struct {
	t    *table
	rows []row
}

// collect runs every mapping for e and marshals the rows. keysOnly skips the non-key
// columns (a delete needs only the primary key).
func (m *Model[E]) collect(e *E, keysOnly bool) ([]tableRows, error) {
	if e == nil {
		return nil, errors.New("nil entity")
	}
	out := make([]tableRows, len(m.tables))
	for i, mp := range m.maps {
		t := m.tables[i]
		if !m.writes[i] { // a transition's table its stage does not write
			out[i] = tableRows{t: t}
			continue
		}
		rs := Rows{t: t, vals: make([]any, 0, len(t.cols))}
		if err := mp.rows(e, &rs); err != nil {
			return nil, fmt.Errorf("map %s: %w", t.name, err)
		}
		if rs.err != nil {
			return nil, rs.err
		}
		rows, err := t.build(rs.vals, keysOnly)
		if err != nil {
			return nil, err
		}
		out[i] = tableRows{t: t, rows: rows}
	}
	return out, nil
}

// build marshals the rows a mapping added, checks their keys and merges rows with the same
// primary key (a hashtag listed twice is one row, as Cassandra would store it). A value
// whose type the driver marshals without fail and whose length is known (a string for
// text, a UUID, a time.Time for a timestamp...) is handed to the driver as it is; any
// other is marshalled here, so that it is measured exactly and fails before anything is sent.
func (t *table) build(vals []any, keysOnly bool) ([]row, error) {
	nc := len(t.cols)
	n := len(vals) / nc
	rows := make([]row, 0, n)
	var seen map[string]int
	for r := 0; r < n; r++ {
		v := vals[r*nc : (r+1)*nc]
		rw := row{enc: make([]any, nc, nc+2)}
		// The row's identity: the partition key as Cassandra builds it (CompositeType for
		// several columns: u16 length, bytes, end-of-component byte), then each clustering
		// value length-prefixed. One buffer, one string; pk is a prefix of it.
		ident := make([]byte, 0, 64)
		composite := len(t.pk) > 1
		for _, i := range t.pk {
			at := len(ident)
			if composite {
				ident = append(ident, 0, 0)
			}
			var size int
			var err error
			ident, size, rw.enc[i], err = t.appendKey(ident, i, v[i], r)
			if err != nil {
				return nil, err
			}
			if composite {
				binary.BigEndian.PutUint16(ident[at:], uint16(size))
				ident = append(ident, 0)
			}
		}
		pkLen := len(ident)
		for _, i := range t.ck {
			at := len(ident)
			ident = append(ident, 0, 0, 0, 0)
			var size int
			var err error
			ident, size, rw.enc[i], err = t.appendKey(ident, i, v[i], r)
			if err != nil {
				return nil, err
			}
			binary.BigEndian.PutUint32(ident[at:], uint32(size))
			rw.ckSize += size
		}
		rw.key = string(ident)
		rw.pk = rw.key[:pkLen]
		for i := range t.cols {
			c := &t.cols[i]
			if c.kind == cql.PartitionKey || c.kind == cql.Clustering {
				continue
			}
			if keysOnly || isUnset(v[i]) {
				rw.enc[i] = gocql.UnsetValue
				continue
			}
			if _, ok := c.direct(v[i]); ok {
				rw.enc[i] = v[i]
				continue
			}
			b, err := c.marshal(v[i])
			if err != nil {
				return nil, &ValueError{Table: t.name, Column: c.name, Err: err}
			}
			if b == nil { // the driver would send a null: a tombstone
				rw.enc[i] = gocql.UnsetValue
				continue
			}
			rw.enc[i] = raw(b)
		}
		if n > 1 {
			if seen == nil {
				seen = make(map[string]int, n)
			}
			if j, dup := seen[rw.key]; dup {
				for i, x := range rw.enc {
					if x != gocql.UnsetValue {
						rows[j].enc[i] = x
					}
				}
				continue
			}
			seen[rw.key] = len(rows)
		}
		rows = append(rows, rw)
	}
	return rows, nil
}

// maxKeyBytes is the longest partition key (and clustering value) Cassandra accepts.
const maxKeyBytes = math.MaxUint16

// appendKey appends the serialized primary key value v of column i to dst, and returns its
// length and what to send for it. Nil, zero and empty partition key values are missing:
// Cassandra refuses an empty partition key, and an empty component of a composite one (a
// hashtag of "") is a caller's bug far more often than data.
func (t *table) appendKey(dst []byte, i int, v any, r int) ([]byte, int, any, error) {
	c := &t.cols[i]
	if isUnset(v) {
		return nil, 0, nil, t.missing(i, r)
	}
	enc, size := v, 0
	s, isString := v.(string)
	u, isUUID := v.(gocql.UUID)
	switch {
	case isString && c.text:
		dst, size = append(dst, s...), len(s)
	case isUUID && (c.typ.Name == "uuid" || c.typ.Name == "timeuuid") && c.typ.Kind == cql.Native:
		if u == (gocql.UUID{}) {
			return nil, 0, nil, t.missing(i, r)
		}
		dst, size = append(dst, u[:]...), 16
	default:
		b, err := c.marshal(v)
		if err != nil {
			return nil, 0, nil, &ValueError{Table: t.name, Column: c.name, Err: err}
		}
		if b == nil {
			return nil, 0, nil, t.missing(i, r)
		}
		dst, size, enc = append(dst, b...), len(b), raw(b)
	}
	if size == 0 && (c.kind == cql.PartitionKey || c.fixed > 0) {
		return nil, 0, nil, t.missing(i, r)
	}
	if size > maxKeyBytes {
		return nil, 0, nil, &ValueError{Table: t.name, Column: c.name, Err: fmt.Errorf("key value of %d bytes is over Cassandra's limit of %d", size, maxKeyBytes)}
	}
	return dst, size, enc, nil
}

func (t *table) missing(i, r int) error {
	return &MissingKeyError{Table: t.name, Column: t.cols[i].name, Row: r}
}

// direct returns the serialized length of v when the driver can be handed v as it is: its
// Go type marshals into the column's type without a possible error, and its length is
// known without marshalling. (A set with a repeated element is not direct: Cassandra
// stores it once, so it is marshalled and deduplicated here.)
func (c *column) direct(v any) (int, bool) {
	if c.complex {
		return 0, false
	}
	switch x := v.(type) {
	case string:
		return len(x), c.text
	case gocql.UUID, time.Time, int64, int32, bool, float64, float32:
		return c.fixed, c.fixed > 0 && c.typ.Kind == cql.Native && directType(c.typ.Name, v)
	case []string:
		if !c.textElems {
			return 0, false
		}
		n := 4
		for k, e := range x {
			if c.typ.Kind == cql.Set && slices.Contains(x[:k], e) {
				return 0, false
			}
			n += 4 + len(e)
		}
		return n, true
	}
	return 0, false
}

func directType(typ string, v any) bool {
	switch v.(type) {
	case gocql.UUID:
		return typ == "uuid" || typ == "timeuuid"
	case time.Time:
		return typ == "timestamp"
	case int64:
		return typ == "bigint"
	case int32:
		return typ == "int"
	case bool:
		return typ == "boolean"
	case float64:
		return typ == "double"
	case float32:
		return typ == "float"
	}
	return false
}

// encodedLen is the length of a value as it will be sent, for measuring: raw bytes, or a
// direct value. ok is false for unset.
func (c *column) encodedLen(v any) (int, bool) {
	if b, ok := v.(raw); ok {
		return len(b), true
	}
	return c.direct(v)
}

// marshal encodes v for the column the way the driver would, so that the bytes can be
// measured and sent as they are.
func (c *column) marshal(v any) ([]byte, error) {
	switch x := v.(type) {
	case raw:
		return x, nil
	case string:
		if c.typ.Kind == cql.Native && (c.typ.Name == "text" || c.typ.Name == "ascii" || c.typ.Name == "blob") {
			return []byte(x), nil
		}
	}
	if c.typ.Kind == cql.Vector {
		return marshalVector(c.typ, v)
	}
	b, err := gocql.Marshal(c.info, v)
	if err != nil {
		return nil, err
	}
	if c.fixed >= 0 && len(b) != c.fixed && len(b) != 0 {
		return nil, fmt.Errorf("marshalled %T to %d bytes, want %d for %s", v, len(b), c.fixed, c.typ)
	}
	if c.typ.Kind == cql.Set {
		b = dedupeSet(b)
	}
	return b, nil
}

// dedupeSet drops repeated elements from a serialized set, as Cassandra does when it
// rebuilds the set before storing it: the stored (and measured) value has each element once.
func dedupeSet(b []byte) []byte {
	if len(b) < 4 || binary.BigEndian.Uint32(b) < 2 {
		return b
	}
	var elems [][]byte
	dup := false
	for e := range elements(b, 1) {
		if slices.ContainsFunc(elems, func(x []byte) bool { return bytes.Equal(x, e[0]) }) {
			dup = true
			continue
		}
		elems = append(elems, e[0])
	}
	if !dup {
		return b
	}
	out := binary.BigEndian.AppendUint32(make([]byte, 0, len(b)), uint32(len(elems)))
	for _, e := range elems {
		out = binary.BigEndian.AppendUint32(out, uint32(len(e)))
		out = append(out, e...)
	}
	return out
}

// marshalVector encodes a vector<float, n> (the type embeddings use) from []float32, or
// passes bytes through. gocql v1.7.0 has no vector support of its own.
func marshalVector(t cql.Type, v any) ([]byte, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case []float32:
		if len(t.Params) != 1 || t.Params[0].Name != "float" {
			return nil, fmt.Errorf("cannot marshal []float32 into %s", t)
		}
		if len(x) != t.Dim {
			return nil, fmt.Errorf("vector of %d elements for %s", len(x), t)
		}
		b := make([]byte, 0, 4*len(x))
		for _, f := range x {
			b = binary.BigEndian.AppendUint32(b, math.Float32bits(f))
		}
		return b, nil
	}
	return nil, fmt.Errorf("cannot marshal %T into %s: pass []float32 or the serialized []byte", v, t)
}

// isUnset reports whether v means "no value": nil, gocql.UnsetValue, a nil pointer, slice
// or map, or a zero time.Time (which the driver would send as an empty value).
func isUnset(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string, int, int64, int32, bool, float64, gocql.UUID, raw:
		return false
	case *string:
		return x == nil
	case []string:
		return x == nil
	case []byte:
		return x == nil
	case time.Time:
		return x.IsZero()
	case *time.Time:
		return x == nil || x.IsZero()
	}
	if v == gocql.UnsetValue {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		if rv.IsNil() {
			return true
		}
		if rv.Kind() == reflect.Pointer {
			return isUnset(rv.Elem().Interface())
		}
	}
	return false
}
