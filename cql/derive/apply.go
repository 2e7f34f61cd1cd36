package derive

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
)

// schemes are the UTC bucket schemes of the time functions.
var schemes = func() map[Func]bucket.Scheme {
	m := map[Func]bucket.Scheme{}
	for f, w := range map[Func]bucket.Width{Year: bucket.Year(), Month: bucket.Month(), Week: bucket.ISOWeek(), Day: bucket.Day(), Hour: bucket.Hour(), Minute: bucket.Minute()} {
		s, err := bucket.New(w)
		if err != nil {
			panic(err) // the widths above are valid constants
		}
		m[f] = s
	}
	return m
}()

// Apply returns the target rows of one source row, given by column name with values as
// the Go driver reads them (gocql's MapScan: time.Time for timestamp and date, a
// [16]byte array type for uuid and timeuuid, []T for a set or list). A column missing
// from row, or nil, is null: a value derived from it is nil too. One row comes back, or,
// with each() rules, one per element (the cross product for several); an empty or null
// collection gives none.
//
// Derived values have the types the driver reads back for the target column: a string
// label for text, a time.Time start in UTC for timestamp and date, int for an int year or
// shard, int64 for bigint, int16 for smallint and int8 for tinyint.
func (p *Program) Apply(row map[string]any) ([]map[string]any, error) {
	var out []map[string]any
	err := p.Expand(row, func(r map[string]any, _ []int) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// Expand is Apply calling fn with each target row as it is made, and with elems, the
// index of the element each each() column took, in the order of the target columns
// (so a caller can find that element's write time). fn owns r; elems is reused.
func (p *Program) Expand(row map[string]any, fn func(r map[string]any, elems []int) error) error {
	base := make(map[string]any, len(p.cols))
	lists := make([]reflect.Value, len(p.each))
	for _, t := range p.cols {
		v := deref(row[t.Expr.Column])
		if t.Expr.Func == Each {
			continue
		}
		x, err := t.value(v)
		if err != nil {
			return err
		}
		base[t.Column] = x
	}
	for k, ci := range p.each {
		t := p.cols[ci]
		v := deref(row[t.Expr.Column])
		if v == nil {
			return nil
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			return fmt.Errorf("column %s: value of type %T: each() wants a slice", cql.QuoteName(t.Expr.Column), v)
		}
		if rv.Len() == 0 {
			return nil
		}
		lists[k] = rv
	}
	elems := make([]int, len(p.each))
	for {
		r := make(map[string]any, len(p.cols))
		for c, v := range base {
			r[c] = v
		}
		for k, ci := range p.each {
			r[p.cols[ci].Column] = lists[k].Index(elems[k]).Interface()
		}
		if err := fn(r, elems); err != nil {
			return err
		}
		k := len(elems) - 1
		for ; k >= 0; k-- {
			if elems[k]++; elems[k] < lists[k].Len() {
				break
			}
			elems[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

// value derives the target value from the source value v (nil for null).
func (t Target) value(v any) (any, error) {
	if v == nil || t.Expr.Func == Copy {
		return v, nil
	}
	bad := func(want string) error {
		return fmt.Errorf("column %s: value of type %T: %s() wants %s", cql.QuoteName(t.Expr.Column), v, t.Expr.Func, want)
	}
	switch t.Expr.Func {
	case Shard:
		return t.ShardOf(v, t.Expr.Shards)
	case Year, Month, Week, Day, Hour, Minute:
		at, ok, err := instant(v)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", cql.QuoteName(t.Expr.Column), err)
		}
		if !ok {
			return nil, bad("a time.Time or a 16-byte timeuuid")
		}
		return t.BucketValue(schemes[t.Expr.Func].For(at)), nil
	}
	return nil, fmt.Errorf("column %s: %s() cannot fill a column", cql.QuoteName(t.Column), t.Expr.Func)
}

// Instant returns the time a source value holds for a time function: a time.Time, or the
// time of a version 1 uuid (a [16]byte array type). ok is false for any other value.
func Instant(v any) (at time.Time, ok bool, err error) { return instant(deref(v)) }

// BucketValue is bucket b as target column t holds it: the label for text and ascii, the
// year for int and bigint, the start in UTC for timestamp and date. A key on tiers has its
// bucket cut by its tier's scheme rather than the rule's function, and must still be
// written exactly as the rule would write it, so both go through here.
func (t Target) BucketValue(b bucket.Bucket) any {
	switch {
	case isNative(t.Type, "text", "ascii"):
		return b.String()
	case isNative(t.Type, "int", "bigint"):
		return integer(t.Type, int64(b.Start().Year()))
	}
	return b.Start().UTC()
}

// ShardOf is the shard, 0 to shards-1, of source value v as target column t holds it
// (bucket.Shard of the value's bytes): shard() with the rule's count, or a tier's.
func (t Target) ShardOf(v any, shards int) (any, error) {
	key, ok := shardKey(deref(v))
	if !ok {
		return nil, fmt.Errorf("column %s: value of type %T: shard() wants a string, []byte, a 16-byte uuid or an integer", cql.QuoteName(t.Expr.Column), v)
	}
	n, err := bucket.Shard(key, shards)
	if err != nil {
		return nil, fmt.Errorf("column %s: %w", cql.QuoteName(t.Column), err)
	}
	return integer(t.Type, int64(n)), nil
}

// integer is n in the Go type the driver reads an integer column of type t back as.
func integer(t cql.Type, n int64) any {
	switch t.Name {
	case "bigint":
		return n
	case "smallint":
		return int16(n)
	case "tinyint":
		return int8(n)
	}
	return int(n)
}

// shardKey is the bytes shard() hashes: a string's UTF-8 bytes, a blob's bytes, a uuid's
// 16 bytes, an integer's decimal digits (so any language reproduces it).
func shardKey(v any) ([]byte, bool) {
	switch x := v.(type) {
	case string:
		return []byte(x), true
	case []byte:
		return x, true
	case int:
		return strconv.AppendInt(nil, int64(x), 10), true
	case int64:
		return strconv.AppendInt(nil, x, 10), true
	case int32:
		return strconv.AppendInt(nil, int64(x), 10), true
	case int16:
		return strconv.AppendInt(nil, int64(x), 10), true
	case int8:
		return strconv.AppendInt(nil, int64(x), 10), true
	}
	if u, ok := uuidBytes(v); ok {
		return u[:], true
	}
	return nil, false
}

// instant is the time v holds: a time.Time, or the time of a version 1 uuid.
func instant(v any) (time.Time, bool, error) {
	if t, ok := v.(time.Time); ok {
		return t, true, nil
	}
	u, ok := uuidBytes(v)
	if !ok {
		return time.Time{}, false, nil
	}
	t, err := bucket.UUIDTime(u)
	return t, true, err
}

// uuidBytes reads a uuid held as any [16]byte array type (gocql.UUID is one).
func uuidBytes(v any) ([16]byte, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Array || rv.Len() != 16 || rv.Type().Elem().Kind() != reflect.Uint8 {
		return [16]byte{}, false
	}
	var u [16]byte
	reflect.Copy(reflect.ValueOf(&u).Elem(), rv)
	return u, true
}

// deref follows pointers: a nil one is a null.
func deref(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		return v
	}
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return nil
	}
	return rv.Interface()
}
