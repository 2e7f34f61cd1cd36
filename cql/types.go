package cql

import (
	"strconv"
	"strings"
)

// TypeKind says which family a CQL type belongs to.
type TypeKind int

// The type families of Cassandra 5.0.
const (
	Native TypeKind = iota // int, text, timeuuid, ...
	List                   // list<T>
	Set                    // set<T>
	Map                    // map<K, V>
	Tuple                  // tuple<A, B, ...> (always frozen in storage)
	UDT                    // a user-defined type
	Vector                 // vector<T, n> (always frozen in storage)
)

// Type is a CQL data type as a column declares it.
type Type struct {
	Kind     TypeKind
	Name     string // native type name in canonical form ("text", not "varchar"); UDT name for UDT
	Keyspace string // UDT keyspace, when qualified
	Params   []Type // list/set element; map key and value; tuple fields; vector element
	Dim      int    // vector dimension
	Frozen   bool   // declared frozen<...>: serialized as one cell
}

// NativeTypes lists Cassandra 5.0's native type names in canonical form.
var NativeTypes = []string{
	"ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double", "duration",
	"float", "inet", "int", "smallint", "text", "time", "timestamp", "timeuuid", "tinyint", "uuid", "varint",
}

// fixedSizes are the value lengths of fixed-length types (valueLengthIfFixed in
// org.apache.cassandra.db.marshal). Every other type is written as vint(length) + bytes.
var fixedSizes = map[string]int{
	"boolean": 1, "int": 4, "float": 4, "bigint": 8, "double": 8, "timestamp": 8,
	"uuid": 16, "timeuuid": 16,
}

// CanonicalNative maps a native type name as written to the name Cassandra uses
// (varchar is text). ok is false for names that are not native types.
func CanonicalNative(name string) (canonical string, ok bool) {
	n := strings.ToLower(name)
	if n == "varchar" {
		return "text", true
	}
	for _, t := range NativeTypes {
		if t == n {
			return t, true
		}
	}
	return "", false
}

// FixedSize returns the serialized length of a value of t when every value has the same length.
func (t Type) FixedSize() (int, bool) {
	if t.Kind != Native {
		return 0, false
	}
	n, ok := fixedSizes[t.Name]
	return n, ok
}

// MultiCell reports whether values of t are stored as one cell per element (a non-frozen
// list, set, map or UDT). Such columns can be updated element by element, and overwriting
// them whole writes a tombstone first.
func (t Type) MultiCell() bool {
	switch t.Kind {
	case List, Set, Map, UDT:
		return !t.Frozen
	}
	return false
}

// IsCollection reports whether t is a list, set or map, frozen or not.
func (t Type) IsCollection() bool { return t.Kind == List || t.Kind == Set || t.Kind == Map }

// String renders t the way Cassandra 5.0 renders it in system_schema.columns.type:
// "text", "frozen<list<int>>", "map<text, int>", "vector<float, 3>", "frozen<address>".
// Tuples and vectors are frozen implicitly and printed without frozen<>, as Cassandra does.
func (t Type) String() string {
	var b strings.Builder
	t.write(&b, false)
	return b.String()
}

func (t Type) write(b *strings.Builder, insideFrozen bool) {
	frozen := t.Frozen && !insideFrozen && t.Kind != Tuple && t.Kind != Vector
	if frozen {
		b.WriteString("frozen<")
	}
	inner := insideFrozen || t.Frozen
	switch t.Kind {
	case Native:
		b.WriteString(t.Name)
	case UDT:
		b.WriteString(t.Name)
	case List, Set, Map, Tuple:
		b.WriteString([...]string{List: "list", Set: "set", Map: "map", Tuple: "tuple"}[t.Kind])
		b.WriteByte('<')
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			// Elements of a collection are always frozen in storage; Cassandra prints the
			// frozen<> it was declared with, which the parser records on the element.
			p.write(b, inner && t.Kind != Tuple)
		}
		b.WriteByte('>')
	case Vector:
		b.WriteString("vector<")
		if len(t.Params) == 1 {
			t.Params[0].write(b, inner)
		}
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(t.Dim))
		b.WriteByte('>')
	}
	if frozen {
		b.WriteByte('>')
	}
}
