package disk

import (
	"encoding/binary"
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
)

// element is one cell of a multi-cell column: its cell path and its value.
type element struct {
	path  []byte // nil for a list element: Cassandra makes a timeuuid when it writes one
	value []byte
}

// decodeElements splits the native-protocol value of a non-frozen collection or UDT into the
// cells Cassandra stores: a list element (value; its path is a timeuuid made at write time),
// a set element (the element is the path, the value empty), a map entry (the key is the path),
// a UDT field (its 2-byte index is the path; null fields have no cell). The protocol (v3 and
// later) counts and prefixes with 4-byte big-endian integers.
func decodeElements(t cql.Type, v []byte) ([]element, error) {
	if t.Kind == cql.UDT {
		var out []element
		for i := 0; len(v) > 0; i++ {
			b, rest, null, err := readValue(v)
			if err != nil {
				return nil, fmt.Errorf("field %d: %w", i, err)
			}
			v = rest
			if i > 0xFFFF {
				return nil, fmt.Errorf("more than 65536 fields")
			}
			if !null {
				out = append(out, element{path: []byte{byte(i >> 8), byte(i)}, value: b})
			}
		}
		return out, nil
	}
	if len(v) < 4 {
		return nil, fmt.Errorf("%s value of %d bytes: too short for its element count", t, len(v))
	}
	n := int64(int32(binary.BigEndian.Uint32(v)))
	v = v[4:]
	per := int64(4)
	if t.Kind == cql.Map {
		per = 8
	}
	if n < 0 || n*per > int64(len(v)) {
		return nil, fmt.Errorf("%s value: %d elements cannot fit in %d bytes", t, n, len(v))
	}
	out := make([]element, 0, n)
	for i := int64(0); i < n; i++ {
		b, rest, null, err := readValue(v)
		if err != nil {
			return nil, fmt.Errorf("%s element %d: %w", t, i, err)
		}
		if null {
			return nil, fmt.Errorf("%s element %d is null: collections cannot hold nulls", t, i)
		}
		v = rest
		switch t.Kind {
		case cql.List:
			out = append(out, element{value: b})
		case cql.Set:
			out = append(out, element{path: b})
		case cql.Map:
			val, rest, null, err := readValue(v)
			if err != nil {
				return nil, fmt.Errorf("%s value of entry %d: %w", t, i, err)
			}
			if null {
				return nil, fmt.Errorf("%s value of entry %d is null", t, i)
			}
			v = rest
			out = append(out, element{path: b, value: val})
		default:
			return nil, fmt.Errorf("%s is not a multi-cell type", t)
		}
	}
	if len(v) != 0 {
		return nil, fmt.Errorf("%s value: %d bytes left after %d elements", t, len(v), n)
	}
	return out, nil
}

// readValue reads one [int32 length][bytes] value; a negative length is null.
func readValue(v []byte) (b, rest []byte, null bool, err error) {
	if len(v) < 4 {
		return nil, nil, false, fmt.Errorf("%d bytes left, want a 4-byte length", len(v))
	}
	n := int32(binary.BigEndian.Uint32(v))
	v = v[4:]
	if n < 0 {
		return nil, v, true, nil
	}
	if int64(n) > int64(len(v)) {
		return nil, nil, false, fmt.Errorf("length %d, only %d bytes left", n, len(v))
	}
	return v[:n], v[n:], false, nil
}
