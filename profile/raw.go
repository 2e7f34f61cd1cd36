package profile

import (
	"encoding/binary"
	"fmt"

	"github.com/gocql/gocql"
)

// raw keeps a column's value as the driver received it: the bytes Cassandra serialized,
// which for a frozen value are the bytes it stores. null is true when the row has no value
// (null and unset read back the same). The slice is reused row after row.
type raw struct {
	data []byte
	null bool
}

// UnmarshalCQL implements gocql.Unmarshaler: it copies the bytes and decodes nothing, so
// every type (vectors and types the driver does not know included) is measured the same way.
func (r *raw) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	r.null = data == nil
	r.data = append(r.data[:0], data...)
	return nil
}

// int64 decodes a bigint (WRITETIME) or int (TTL) value; ok is false for null.
func (r *raw) int64() (int64, bool) {
	switch {
	case r.null:
		return 0, false
	case len(r.data) == 8:
		return int64(binary.BigEndian.Uint64(r.data)), true
	case len(r.data) == 4:
		return int64(int32(binary.BigEndian.Uint32(r.data))), true
	}
	return 0, false
}

// collection is what the serialized form of a list, set or map holds (protocol v3+: an
// int32 count, then each element as int32 length + bytes; a map's as key then value).
type collection struct {
	count int
	keys  []int // byte lengths of map keys
	vals  []int // byte lengths of list/set elements or map values
}

// decodeCollection reads a collection header and its elements' lengths. It never panics on
// malformed input: it returns an error naming what did not fit.
func decodeCollection(b []byte, isMap bool) (collection, error) {
	var c collection
	if len(b) < 4 {
		return c, fmt.Errorf("collection of %d bytes: shorter than its 4-byte count", len(b))
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if n < 0 || n > len(b) {
		return c, fmt.Errorf("collection count %d does not fit %d bytes", n, len(b))
	}
	c.count = n
	p := 4
	next := func() (int, error) {
		if len(b)-p < 4 {
			return 0, fmt.Errorf("collection element %d: length runs past the value", len(c.vals))
		}
		l := int(int32(binary.BigEndian.Uint32(b[p:])))
		p += 4
		if l < 0 {
			return 0, nil
		}
		if l > len(b)-p {
			return 0, fmt.Errorf("collection element of %d bytes runs past the value", l)
		}
		p += l
		return l, nil
	}
	for i := 0; i < n; i++ {
		if isMap {
			k, err := next()
			if err != nil {
				return c, err
			}
			c.keys = append(c.keys, k)
		}
		v, err := next()
		if err != nil {
			return c, err
		}
		c.vals = append(c.vals, v)
	}
	return c, nil
}

// decodeFields splits a serialized UDT (each field as int32 length + bytes, -1 for null) into
// its fields' lengths; a value written before fields were added has fewer of them.
func decodeFields(b []byte) ([]int, error) {
	var out []int
	for p := 0; p < len(b); {
		if len(b)-p < 4 {
			return out, fmt.Errorf("field %d: length runs past the value", len(out))
		}
		l := int(int32(binary.BigEndian.Uint32(b[p:])))
		p += 4
		if l < 0 {
			out = append(out, -1)
			continue
		}
		if l > len(b)-p {
			return out, fmt.Errorf("field %d of %d bytes runs past the value", len(out), l)
		}
		out = append(out, l)
		p += l
	}
	return out, nil
}
