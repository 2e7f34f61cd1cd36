package sizing

import (
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// Default value sizes for types whose values vary, used when the workload gives no avg.
// Every default used is listed in the estimate's assumptions.
var defaultRawSizes = map[string]float64{
	"text": 16, "ascii": 16, "blob": 64, "varint": 8, "decimal": 8, "inet": 4, "duration": 8,
	// Not variable, but not fixed-length to Cassandra either (written with a length prefix).
	"smallint": 2, "tinyint": 1, "date": 4, "time": 8,
	// A counter cell holds a context (db/context/CounterContext): a 2-byte count and a 2-byte
	// index per global shard, and a 32-byte shard (counter id, clock, count) per replica that
	// updated it; one replica is assumed.
	"counter": 36,
}

// exactRaw are the natively sized types that need no avg: their default is their size.
var exactRaw = map[string]bool{"smallint": true, "tinyint": true, "date": true, "time": true, "counter": true}

// Default collection shape when the workload says nothing about a collection column.
const defaultElements = 5

// valueSizer works out the serialized size of values of a column's type from the workload's
// hints, recording every default it falls back on.
type valueSizer struct {
	avg         map[string]float64 // the workload's avg, for UDT fields ("address.street")
	schema      *cql.Schema
	keyspace    string
	assumptions *[]string
	defaults    map[string]bool // columns whose default was already reported
}

func (vs *valueSizer) assume(col, format string, args ...any) {
	if vs.defaults[col] {
		return
	}
	vs.defaults[col] = true
	*vs.assumptions = append(*vs.assumptions, fmt.Sprintf("%s: ", col)+fmt.Sprintf(format, args...))
}

// raw is the size of a value of t as the native protocol serializes it (what a frozen
// collection embeds, and what a cell stores after its length prefix). col names the column
// for assumption messages; avg is the workload's avg for it (< 0 = none).
func (vs *valueSizer) raw(col string, t cql.Type, avg float64) float64 {
	if n, ok := t.FixedSize(); ok {
		return float64(n)
	}
	if avg >= 0 {
		return avg
	}
	switch t.Kind {
	case cql.Native:
		d, ok := defaultRawSizes[t.Name]
		if !ok {
			d = 16
		}
		if !exactRaw[t.Name] {
			vs.assume(col, "no avg given; a %s value is assumed to be %s bytes", t.Name, workload.FormatNumber(d))
		}
		return d
	case cql.List, cql.Set:
		elem := vs.elementRaw(col, t, 0, -1)
		return 4 + defaultElements*(4+elem)
	case cql.Map:
		k, v := vs.elementRaw(col, t, 0, -1), vs.elementRaw(col, t, 1, -1)
		return 4 + defaultElements*(8+k+v)
	case cql.Tuple:
		s := 0.0
		for _, p := range t.Params {
			s += 4 + vs.raw(col, p, -1)
		}
		return s
	case cql.Vector:
		if len(t.Params) == 1 {
			if n, ok := t.Params[0].FixedSize(); ok {
				return float64(n * t.Dim)
			}
			e := vs.raw(col, t.Params[0], -1)
			return float64(t.Dim) * (vintOf(e) + e)
		}
	case cql.UDT:
		if ut := vs.userType(t); ut != nil {
			s := 0.0
			for _, f := range ut.Fields {
				s += 4 + vs.raw(col+"."+f.Name, f.Type, hint(vs.avg, col+"."+f.Name))
			}
			return s
		}
		vs.assume(col, "user type %s is not in the schema; a value is assumed to be 64 bytes", t.Name)
		return 64
	}
	return 16
}

// elementRaw is the size of element i of collection type t (0: list/set element or map key,
// 1: map value), from the size hint (< 0 = none) or the element type.
func (vs *valueSizer) elementRaw(col string, t cql.Type, i int, hint float64) float64 {
	if i >= len(t.Params) {
		return 16
	}
	e := t.Params[i]
	if n, ok := e.FixedSize(); ok {
		return float64(n)
	}
	if hint > 0 {
		return hint
	}
	return vs.raw(col, e, -1)
}

func (vs *valueSizer) userType(t cql.Type) *cql.UserType {
	if vs.schema == nil {
		return nil
	}
	ks := t.Keyspace
	if ks == "" {
		ks = vs.keyspace
	}
	if k := vs.schema.Keyspaces[ks]; k != nil {
		return k.Types[t.Name]
	}
	return nil
}

// written is what a simple cell stores for a value of raw bytes: the bytes, after a vint
// length unless the type has a fixed length.
func written(t cql.Type, raw float64) float64 {
	if _, ok := t.FixedSize(); ok {
		return raw
	}
	return vintOf(raw) + raw
}

// withLength is vint(length) + bytes: how cell paths and multi-cell element values are
// written, whatever the type.
func withLength(raw float64) float64 { return vintOf(raw) + raw }
