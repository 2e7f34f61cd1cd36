package disk

import (
	"bytes"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

func TestDecodeElements(t *testing.T) {
	text := cql.Type{Kind: cql.Native, Name: "text"}
	list := cql.Type{Kind: cql.List, Name: "list", Params: []cql.Type{text}}
	set := cql.Type{Kind: cql.Set, Name: "set", Params: []cql.Type{text}}
	m := cql.Type{Kind: cql.Map, Name: "map", Params: []cql.Type{text, text}}
	udt := cql.Type{Kind: cql.UDT, Name: "address"}
	mapValue := append(i32(2), append(append(i32(1), 'a'), append(i32(1), 'x')...)...)
	mapValue = append(mapValue, append(append(i32(1), 'b'), i32(0)...)...)
	udtValue := append(append(i32(2), 'h', 'i'), append(i32(-1), append(i32(1), 'z')...)...)
	for _, c := range []struct {
		name    string
		typ     cql.Type
		v       []byte
		want    []element
		wantErr bool
	}{
		{"list", list, protocol([]byte("a"), []byte("bc")), []element{{value: []byte("a")}, {value: []byte("bc")}}, false},
		{"set", set, protocol([]byte("a")), []element{{path: []byte("a")}}, false},
		{"empty set", set, protocol(), []element{}, false},
		{"map", m, mapValue, []element{{path: []byte("a"), value: []byte("x")}, {path: []byte("b"), value: []byte{}}}, false},
		{"udt with a null field", udt, udtValue, []element{{path: []byte{0, 0}, value: []byte("hi")}, {path: []byte{0, 2}, value: []byte("z")}}, false},
		{"short", list, []byte{0, 0}, nil, true},
		{"negative count", list, i32(-1), nil, true},
		{"count beyond the bytes", list, i32(1000), nil, true},
		{"element beyond the bytes", list, append(i32(1), i32(10)...), nil, true},
		{"null element", list, append(i32(1), i32(-1)...), nil, true},
		{"trailing bytes", list, append(protocol([]byte("a")), 9), nil, true},
		{"frozen is not multi-cell", cql.Type{Kind: cql.Tuple, Name: "tuple"}, protocol([]byte("a")), nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := decodeElements(c.typ, c.v)
			if c.wantErr {
				if err == nil {
					t.Fatalf("decodeElements(% x) = %v, want an error", c.v, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d elements, want %d", len(got), len(c.want))
			}
			for i := range got {
				if !bytes.Equal(got[i].path, c.want[i].path) || !bytes.Equal(got[i].value, c.want[i].value) {
					t.Errorf("element %d = %q/%q, want %q/%q", i, got[i].path, got[i].value, c.want[i].path, c.want[i].value)
				}
			}
		})
	}
}

// FuzzDecodeElements: no input panics the decoder, and what it returns fits in its input.
func FuzzDecodeElements(f *testing.F) {
	f.Add(uint8(0), protocol([]byte("a"), []byte("bc")))
	f.Add(uint8(2), append(i32(1), append(append(i32(1), 'k'), i32(1)...)...))
	f.Add(uint8(3), append(i32(2), 'h', 'i'))
	f.Add(uint8(1), i32(-1))
	text := cql.Type{Kind: cql.Native, Name: "text"}
	types := []cql.Type{
		{Kind: cql.List, Name: "list", Params: []cql.Type{text}},
		{Kind: cql.Set, Name: "set", Params: []cql.Type{text}},
		{Kind: cql.Map, Name: "map", Params: []cql.Type{text, text}},
		{Kind: cql.UDT, Name: "u"},
		{Kind: cql.Native, Name: "text"},
	}
	f.Fuzz(func(t *testing.T, kind uint8, v []byte) {
		els, err := decodeElements(types[int(kind)%len(types)], v)
		if err != nil {
			return
		}
		total := 0
		for _, e := range els {
			total += len(e.value) + len(e.path)
		}
		if total > len(v) {
			t.Fatalf("%d bytes of elements from %d bytes of input", total, len(v))
		}
	})
}
