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
	Name     string // native type name in canonical form ("text", not "varchar"); UDT name for UDT; "list", "set", "map", "tuple" or "vector" otherwise
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
	"uuid": 16, "timeuuid": 16, "empty": 0,
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

// String renders t the way Cassandra 5.0 renders it in system_schema.columns.type (checked
// against a real 5.0 node): "text", "frozen<list<int>>", "map<text, frozen<list<int>>>",
// "frozen<tuple<int, frozen<list<int>>>>", "vector<float, 3>", "frozen<address>". Every
// frozen type prints its frozen<>, nested ones included; tuples are always frozen; vectors
// never print frozen<> and keep their element as declared.
func (t Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Type) write(b *strings.Builder) {
	frozen := t.Frozen && t.Kind != Vector
	if frozen {
		b.WriteString("frozen<")
	}
	switch t.Kind {
	case Native:
		b.WriteString(t.Name)
	case UDT:
		b.WriteString(QuoteName(t.Name))
	case List, Set, Map, Tuple:
		b.WriteString([...]string{List: "list", Set: "set", Map: "map", Tuple: "tuple"}[t.Kind])
		b.WriteByte('<')
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			p.write(b)
		}
		b.WriteByte('>')
	case Vector:
		b.WriteString("vector<")
		if len(t.Params) == 1 {
			t.Params[0].write(b)
		}
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(t.Dim))
		b.WriteByte('>')
	}
	if frozen {
		b.WriteByte('>')
	}
}

// freeze returns t frozen the way Cassandra freezes a type written frozen<t>, or a tuple:
// t and every collection, tuple and user type inside it become frozen. A vector is always
// frozen and keeps its element as declared.
func (t Type) freeze() Type {
	t.Frozen = true
	if t.Kind == Vector || t.Kind == Native {
		return t
	}
	if len(t.Params) > 0 {
		ps := make([]Type, len(t.Params))
		for i, p := range t.Params {
			if p.Kind != Native {
				p = p.freeze()
			}
			ps[i] = p
		}
		t.Params = ps
	}
	return t
}

// Equal reports whether t and u are the same type (UDT keyspaces compared only when both
// are set).
func (t Type) Equal(u Type) bool {
	if t.Kind != u.Kind || t.Name != u.Name || t.Dim != u.Dim || t.Frozen != u.Frozen || len(t.Params) != len(u.Params) {
		return false
	}
	if t.Keyspace != "" && u.Keyspace != "" && t.Keyspace != u.Keyspace {
		return false
	}
	for i := range t.Params {
		if !t.Params[i].Equal(u.Params[i]) {
			return false
		}
	}
	return true
}

// Contains reports whether t or any type inside it satisfies f.
func (t Type) Contains(f func(Type) bool) bool {
	if f(t) {
		return true
	}
	for _, p := range t.Params {
		if p.Contains(f) {
			return true
		}
	}
	return false
}
