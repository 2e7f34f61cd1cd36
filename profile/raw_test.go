package profile

import (
	"encoding/binary"
	"testing"
)

func be32(v int) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, uint32(int32(v)))
	return b
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestDecodeCollection(t *testing.T) {
	set := cat(be32(2), be32(3), []byte("abc"), be32(1), []byte("x"))
	c, err := decodeCollection(set, false)
	if err != nil || c.count != 2 || len(c.vals) != 2 || c.vals[0] != 3 || c.vals[1] != 1 {
		t.Errorf("set: %+v, %v", c, err)
	}
	m := cat(be32(1), be32(2), []byte("ab"), be32(5), []byte("hello"))
	c, err = decodeCollection(m, true)
	if err != nil || c.count != 1 || c.keys[0] != 2 || c.vals[0] != 5 {
		t.Errorf("map: %+v, %v", c, err)
	}
	for name, bad := range map[string][]byte{
		"short":          {0, 0},
		"negative count": be32(-1),
		"huge count":     be32(1 << 30),
		"element past":   cat(be32(1), be32(10), []byte("abc")),
		"length cut":     cat(be32(2), be32(1), []byte("a"), []byte{0, 0}),
	} {
		if _, err := decodeCollection(bad, false); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}

func TestDecodeFields(t *testing.T) {
	f, err := decodeFields(cat(be32(3), []byte("abc"), be32(-1), be32(0)))
	if err != nil || len(f) != 3 || f[0] != 3 || f[1] != -1 || f[2] != 0 {
		t.Errorf("fields: %v, %v", f, err)
	}
	if _, err := decodeFields(cat(be32(9), []byte("ab"))); err == nil {
		t.Error("a field past the end decoded without an error")
	}
}
