package cql

import (
	"math"
	"math/big"
	"strings"
)

// Literals are checked against their column's type here because the node refuses a wrong
// one only when the statement runs, after the statements before it in a migration have
// been applied: a history would stop halfway. Every rule below was tried on a 5.0.9 node
// (cql/testdata/dml/corpus.cql keeps the evidence), and the messages are the node's own.
// Anything the model cannot judge for sure (bind markers, NULL, function calls, casts,
// arithmetic, tuples, the string forms of dates and times beyond literal_formats.go's rules)
// is left to the node: a false
// refusal would block a valid deploy, which is worse than a miss.

// literalNames are the names the node gives constants in "Invalid X constant".
var literalNames = map[TokenKind]string{
	TokString: "STRING", TokInt: "INTEGER", TokFloat: "FLOAT", TokBool: "BOOLEAN",
	TokUUID: "UUID", TokBlob: "HEX", TokDuration: "DURATION",
}

// literalAccepts says which native types take a constant of each kind, as 5.0 does.
var literalAccepts = map[TokenKind]map[string]bool{
	TokString: {"ascii": true, "text": true, "timestamp": true, "date": true, "time": true, "inet": true},
	TokInt: {"tinyint": true, "smallint": true, "int": true, "bigint": true, "counter": true, "varint": true,
		"float": true, "double": true, "decimal": true, "timestamp": true, "date": true, "time": true},
	TokFloat:    {"float": true, "double": true, "decimal": true},
	TokBool:     {"boolean": true},
	TokUUID:     {"uuid": true, "timeuuid": true},
	TokBlob:     {"blob": true},
	TokDuration: {"duration": true},
}

// intRanges are the bounds of the fixed-width integer types, with the Java type the node
// names when a constant does not fit ("Unable to make int from '2147483648'").
var intRanges = map[string]struct {
	min, max int64
	java     string
}{
	"tinyint":   {math.MinInt8, math.MaxInt8, "byte"},
	"smallint":  {math.MinInt16, math.MaxInt16, "short"},
	"int":       {math.MinInt32, math.MaxInt32, "int"},
	"bigint":    {math.MinInt64, math.MaxInt64, "long"},
	"counter":   {math.MinInt64, math.MaxInt64, "long"},
	"timestamp": {math.MinInt64, math.MaxInt64, "long"},
}

// literalChecker checks terms against types; ks resolves user types (nil leaves them be).
type literalChecker struct {
	ks *Keyspace
}

// check refuses v when it cannot be a value of type ty. name is how the node names the
// receiver: the column, or "key(m)" / "value(m)" for a map element.
func (lc literalChecker) check(ty Type, v *Term, name string) error {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case TermMarker, TermNull:
		return nil
	case TermFunc:
		return lc.function(ty, v, name)
	case TermCast:
		return lc.hint(ty, v, name)
	case TermOp:
		return lc.operation(ty, v)
	}
	if ty.Kind == Tuple {
		return lc.tuple(ty, v, name)
	}
	switch v.Kind {
	case TermLiteral:
		return lc.constant(ty, v, name)
	case TermList:
		if ty.Kind != List && ty.Kind != Vector {
			return Errorf(v.Pos, "Unexpected receiver type '%s'; only list and vector are expected", ty)
		}
		for _, it := range v.Items {
			if it.Kind == TermNull && ty.Kind == Vector {
				return Errorf(it.Pos, "null is not supported inside vectors")
			}
		}
		return lc.elements("list", ty.Params[0], v.Items, name)
	case TermSet:
		switch {
		case ty.Kind == Set:
			return lc.elements("set", ty.Params[0], v.Items, name)
		case ty.Kind == Map && len(v.Items) == 0:
			return nil
		}
		return Errorf(v.Pos, "Invalid set literal for %s of type %s", name, ty)
	case TermMap:
		if ty.Kind != Map {
			if ty.Kind == UDT {
				return nil // {a: 1} with a quoted-less key may be either: left to the node
			}
			return Errorf(v.Pos, "Invalid map literal for %s of type %s", name, ty)
		}
		for i, k := range v.Keys {
			if err := lc.element("map", "key", ty.Params[0], k, name); err != nil {
				return err
			}
			if i < len(v.Items) {
				if err := lc.element("map", "value", ty.Params[1], v.Items[i], name); err != nil {
					return err
				}
			}
		}
		return nil
	case TermUDT:
		if ty.Kind == Map {
			return nil // {k: v} with an identifier key may be either: left to the node
		}
		if ty.Kind != UDT {
			return Errorf(v.Pos, "Invalid user type literal for %s of type %s", name, ty)
		}
		return lc.userType(ty, v, name)
	case TermTuple:
		return Errorf(v.Pos, "Invalid tuple type literal for %s of type %s", name, ty)
	}
	return nil
}

// tuple checks a tuple literal: no more components than the type has, each of its type. A
// lone constant (5.0 takes it for the first component) is left to the node.
func (lc literalChecker) tuple(ty Type, v *Term, name string) error {
	switch v.Kind {
	case TermSet:
		return Errorf(v.Pos, "Invalid set literal for %s of type %s", name, ty)
	case TermList:
		return Errorf(v.Pos, "Invalid list literal for %s of type %s", name, ty)
	case TermTuple:
	default:
		return nil
	}
	if len(v.Items) > len(ty.Params) {
		return Errorf(v.Pos, "Invalid tuple literal for %s: too many elements. Type %s expects %d but got %d", name, ty, len(ty.Params), len(v.Items))
	}
	for i, it := range v.Items {
		if err := lc.check(ty.Params[i], it, name); err != nil {
			if it.Kind == TermLiteral {
				return Errorf(it.Pos, "Invalid tuple literal for %s: component %d is not of type %s", name, i, ty.Params[i])
			}
			return err
		}
	}
	return nil
}

// elements checks each element of a list or set literal (a vector is written as a list).
func (lc literalChecker) elements(kind string, elem Type, items []*Term, name string) error {
	for _, it := range items {
		if it.Kind == TermNull {
			return Errorf(it.Pos, "null is not supported inside collections")
		}
		if err := lc.element(kind, "value", elem, it, name); err != nil {
			return err
		}
	}
	return nil
}

// element checks one element of a collection literal, worded as the node words it:
// "Invalid set literal for s: value 1 is not of type text".
func (lc literalChecker) element(kind, what string, elem Type, it *Term, name string) error {
	if err := lc.check(elem, it, name); err != nil {
		if it.Kind == TermLiteral && !literalAccepts[it.Lit][elem.Name] {
			return Errorf(it.Pos, "Invalid %s literal for %s: %s %s is not of type %s", kind, name, what, it.Text, elem)
		}
		return err
	}
	return nil
}

// userType checks a {field: value} literal against a user type the keyspace defines.
func (lc literalChecker) userType(ty Type, v *Term, name string) error {
	if lc.ks == nil || (ty.Keyspace != "" && ty.Keyspace != lc.ks.Name) {
		return nil
	}
	ut := lc.ks.Types[ty.Name]
	if ut == nil {
		return nil
	}
	for i, f := range v.Fields {
		var field *Field
		for j := range ut.Fields {
			if ut.Fields[j].Name == f.Name {
				field = &ut.Fields[j]
			}
		}
		if field == nil {
			return Errorf(f.Pos, "Unknown field '%s' in value of user defined type %s", f.Name, ut.Name)
		}
		if i < len(v.Items) {
			if err := lc.check(field.Type, v.Items[i], name+"."+f.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// constant checks a literal against a native type (a collection or user type takes no
// bare constant).
func (lc literalChecker) constant(ty Type, v *Term, name string) error {
	kind := literalNames[v.Lit]
	if kind == "" {
		return nil
	}
	if ty.Kind != Native {
		return Errorf(v.Pos, "Invalid %s constant (%s) for %q of type %s", kind, v.Value, name, ty)
	}
	if !literalAccepts[v.Lit][ty.Name] {
		if ty.Name == "duration" && v.Lit == TokInt {
			return Errorf(v.Pos, "Unable to convert '%s' to a duration", strings.TrimPrefix(v.Value, "-"))
		}
		return Errorf(v.Pos, "Invalid %s constant (%s) for %q of type %s", kind, v.Value, name, ty)
	}
	switch v.Lit {
	case TokInt:
		if r, ok := intRanges[ty.Name]; ok {
			return intInRange(v, r.min, r.max, r.java)
		}
		if strings.HasPrefix(v.Value, "-") {
			switch ty.Name {
			case "date":
				return Errorf(v.Pos, "Unable to make unsigned int (for date) from: '%s'", v.Value)
			case "time":
				return Errorf(v.Pos, "Unable to make long (for time) from: '%s'", v.Value)
			}
		}
	case TokFloat:
		if ty.Name == "decimal" && strings.ContainsAny(v.Value, "NI") {
			return Errorf(v.Pos, "unable to make BigDecimal from '%s'", v.Value)
		}
	case TokBlob:
		if digits := v.Text[min(2, len(v.Text)):]; len(digits)%2 != 0 {
			return Errorf(v.Pos, "cannot parse '%s' as hex bytes", digits)
		}
	case TokDuration:
		return durationRepeats(v)
	case TokString:
		if err := stringFormat(ty, v); err != nil {
			return err
		}
		if ty.Name == "ascii" {
			for i := 0; i < len(v.Value); i++ {
				if v.Value[i] >= 0x80 {
					return Errorf(v.Pos, "Invalid ASCII character in string literal")
				}
			}
		}
	case TokUUID:
		if ty.Name == "timeuuid" && len(v.Value) > 14 && v.Value[14] != '1' {
			return Errorf(v.Pos, "TimeUUID supports only version 1 UUIDs")
		}
	}
	return nil
}

// intInRange refuses an integer constant outside [min, max], as the node does.
func intInRange(v *Term, min, max int64, java string) error {
	n, ok := new(big.Int).SetString(v.Value, 10)
	if !ok || n.Cmp(big.NewInt(min)) < 0 || n.Cmp(big.NewInt(max)) > 0 {
		return Errorf(v.Pos, "Unable to make %s from '%s'", java, v.Value)
	}
	return nil
}
