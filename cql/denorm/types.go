package denorm

import (
	"fmt"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// protoVersion is the native protocol version values are marshalled with. Version 4 is
// the first with unset values, which this package relies on to never write a null.
const protoVersion = 4

var nativeTypes = map[string]gocql.Type{
	"ascii": gocql.TypeAscii, "bigint": gocql.TypeBigInt, "blob": gocql.TypeBlob,
	"boolean": gocql.TypeBoolean, "counter": gocql.TypeCounter, "date": gocql.TypeDate,
	"decimal": gocql.TypeDecimal, "double": gocql.TypeDouble, "duration": gocql.TypeDuration,
	"float": gocql.TypeFloat, "inet": gocql.TypeInet, "int": gocql.TypeInt,
	"smallint": gocql.TypeSmallInt, "text": gocql.TypeVarchar, "time": gocql.TypeTime,
	"timestamp": gocql.TypeTimestamp, "timeuuid": gocql.TypeTimeUUID, "tinyint": gocql.TypeTinyInt,
	"uuid": gocql.TypeUUID, "varint": gocql.TypeVarint,
}

// typeInfo builds the driver's description of t, so values can be marshalled (to measure
// them and to compare keys) exactly as the driver will send them. User types are resolved
// in ks; an unknown one is an error.
func typeInfo(t cql.Type, ks *cql.Keyspace) (gocql.TypeInfo, error) {
	switch t.Kind {
	case cql.Native:
		nt, ok := nativeTypes[t.Name]
		if !ok {
			return nil, fmt.Errorf("type %s: not a native type", t.Name)
		}
		return gocql.NewNativeType(protoVersion, nt, ""), nil
	case cql.List, cql.Set:
		if len(t.Params) != 1 {
			return nil, fmt.Errorf("type %s: want one element type", t)
		}
		elem, err := typeInfo(t.Params[0], ks)
		if err != nil {
			return nil, err
		}
		kind := gocql.TypeList
		if t.Kind == cql.Set {
			kind = gocql.TypeSet
		}
		return gocql.CollectionType{NativeType: gocql.NewNativeType(protoVersion, kind, ""), Elem: elem}, nil
	case cql.Map:
		if len(t.Params) != 2 {
			return nil, fmt.Errorf("type %s: want a key and a value type", t)
		}
		key, err := typeInfo(t.Params[0], ks)
		if err != nil {
			return nil, err
		}
		val, err := typeInfo(t.Params[1], ks)
		if err != nil {
			return nil, err
		}
		return gocql.CollectionType{NativeType: gocql.NewNativeType(protoVersion, gocql.TypeMap, ""), Key: key, Elem: val}, nil
	case cql.Tuple:
		elems := make([]gocql.TypeInfo, len(t.Params))
		for i, p := range t.Params {
			ti, err := typeInfo(p, ks)
			if err != nil {
				return nil, err
			}
			elems[i] = ti
		}
		return gocql.TupleTypeInfo{NativeType: gocql.NewNativeType(protoVersion, gocql.TypeTuple, ""), Elems: elems}, nil
	case cql.UDT:
		var ut *cql.UserType
		if ks != nil {
			ut = ks.Types[t.Name]
		}
		if ut == nil {
			return nil, fmt.Errorf("type %s: user type not found in the schema", t.Name)
		}
		fields := make([]gocql.UDTField, len(ut.Fields))
		for i, f := range ut.Fields {
			ti, err := typeInfo(f.Type, ks)
			if err != nil {
				return nil, fmt.Errorf("type %s field %s: %w", t.Name, f.Name, err)
			}
			fields[i] = gocql.UDTField{Name: f.Name, Type: ti}
		}
		return gocql.UDTTypeInfo{NativeType: gocql.NewNativeType(protoVersion, gocql.TypeUDT, ""), KeySpace: ut.Keyspace, Name: ut.Name, Elements: fields}, nil
	case cql.Vector:
		// gocql v1.7.0 has no vector type; values are measured from []float32/[]byte directly.
		return gocql.NewNativeType(protoVersion, gocql.TypeCustom, "org.apache.cassandra.db.marshal.VectorType"), nil
	}
	return nil, fmt.Errorf("type %s: unsupported", t)
}
