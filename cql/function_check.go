package cql

import (
	"sort"
	"strings"
)

// The function calls of a statement, judged as a 5.0 node resolves them: a name that is
// neither one of the node's native functions nor a function or aggregate of the keyspace
// is unknown; a user function called with a number of arguments none of its overloads
// takes, or a column of another kind of type than its one overload's parameter, is
// refused; so is a native function's value that cannot go into its column, and a few
// calls of native functions the node refuses whatever the data. Only what is sure is
// refused (false refusals block valid deploys): an argument that is not a plain column, a
// keyspace the model does not know, a blob on either side are left to the node.

// nativeFunctions are the names of the native functions of Cassandra 5.0.9 (its
// cql3.functions classes: TokenFct, UuidFcts, TimeFcts, ToJsonFct, FromJsonFct,
// AggregateFcts, CollectionFcts, MathFcts, MaskingFcts, VectorFcts), snake_case and
// legacy names both; the cast and blob conversion functions are named after a type
// (nativePrefixes, nativeSuffixes).
var nativeFunctions = map[string]bool{
	"token": true, "uuid": true, "now": true,
	"current_timestamp": true, "currenttimestamp": true, "current_date": true, "currentdate": true,
	"current_time": true, "currenttime": true, "current_timeuuid": true, "currenttimeuuid": true,
	"min_timeuuid": true, "mintimeuuid": true, "max_timeuuid": true, "maxtimeuuid": true,
	"to_date": true, "todate": true, "to_timestamp": true, "totimestamp": true,
	"to_unix_timestamp": true, "tounixtimestamp": true, "floor": true,
	"to_json": true, "tojson": true, "from_json": true, "fromjson": true,
	"count": true, "count_rows": true, "min": true, "max": true, "sum": true, "avg": true,
	"map_keys": true, "map_values": true, "collection_count": true, "collection_min": true,
	"collection_max": true, "collection_sum": true, "collection_avg": true,
	"abs": true, "exp": true, "log": true, "log10": true, "round": true,
	"mask_null": true, "mask_default": true, "mask_replace": true, "mask_inner": true,
	"mask_outer": true, "mask_hash": true,
	"similarity_cosine": true, "similarity_euclidean": true, "similarity_dot_product": true,
	"writetime": true, "maxwritetime": true, "ttl": true,
}

var (
	nativePrefixes = []string{"cast_as_", "castas", "blob_as_", "blobas"}
	nativeSuffixes = []string{"_as_blob", "asblob"}
)

// nativeReturns are the types of the native functions that take no argument.
var nativeReturns = map[string]string{
	"now": "timeuuid", "uuid": "uuid", "current_timeuuid": "timeuuid", "currenttimeuuid": "timeuuid",
	"current_timestamp": "timestamp", "currenttimestamp": "timestamp", "current_date": "date",
	"currentdate": "date", "current_time": "time", "currenttime": "time",
}

// NativeFunctions lists the names of the native functions the model knows (the cast and
// blob conversions by one name each), sorted: the test against a node calls each.
func NativeFunctions() []string {
	out := make([]string, 0, len(nativeFunctions)+4)
	for n := range nativeFunctions {
		out = append(out, n)
	}
	out = append(out, "cast_as_int", "blob_as_int", "blobasint", "int_as_blob", "intasblob")
	sort.Strings(out)
	return out
}

// IsNativeFunction reports whether name (maybe "system.name") is a native function of a
// 5.0 node, as the model resolves calls.
func IsNativeFunction(name string) bool {
	if ks, fn, ok := strings.Cut(name, "."); ok {
		if !strings.EqualFold(ks, "system") {
			return false
		}
		name = fn
	}
	return isNative(strings.ToLower(name))
}

// isNative reports whether name (lower case, without "system.") is a native function.
func isNative(name string) bool {
	if nativeFunctions[name] || strings.HasPrefix(name, "_") {
		return true // "_add" and the like are the node's operators, callable by name
	}
	for _, p := range nativePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, s := range nativeSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// typeFamily groups the native types whose values a node never passes one for another:
// "" for a type judged by the node only (blobs take the bytes of any value; collections,
// tuples, user types and vectors are not judged here).
func typeFamily(t Type) string {
	if t.Kind != Native {
		return ""
	}
	switch t.Name {
	case "text", "varchar", "ascii":
		return "string"
	case "tinyint", "smallint", "int", "bigint", "varint", "counter", "float", "double", "decimal":
		return "number"
	case "uuid", "timeuuid":
		return "uuid"
	case "timestamp", "date", "time":
		return "time"
	case "boolean", "inet", "duration":
		return t.Name
	}
	return ""
}

// apart reports whether values of a cannot be passed as b (both judged, in two families).
func apart(a, b Type) bool {
	fa, fb := typeFamily(a), typeFamily(b)
	return fa != "" && fb != "" && fa != fb
}

// funcRef is a function call's name resolved: the native one, or the keyspace's routines.
type funcRef struct {
	name    string // as the node names it in its messages: "system.now", "ks.f"
	native  string // the native function's lower-case name; "" for a user one
	ks      *Keyspace
	user    string // the user function's name in ks
	unknown bool
}

// resolveFunc resolves name (maybe "ks.f") as the node does: a native function, else a
// function or aggregate of ks (the statement's keyspace) or of the keyspace named.
// Nothing is said unknown unless the keyspace searched is one the model holds.
func resolveFunc(s *Schema, ks *Keyspace, name string) funcRef {
	ksName, fn, qualified := strings.Cut(name, ".")
	if !qualified {
		fn, ksName = ksName, ""
	}
	low := strings.ToLower(fn)
	if ksName == "" || strings.EqualFold(ksName, "system") {
		if isNative(low) {
			return funcRef{name: "system." + low, native: low}
		}
		if ksName != "" {
			return funcRef{name: name, unknown: true} // the system keyspace holds natives only
		}
	}
	if ksName != "" && !strings.EqualFold(ksName, "system") {
		ks = nil
		if s != nil {
			ks = s.Keyspaces[ksName]
			if ks == nil {
				ks = s.Keyspaces[strings.ToLower(ksName)]
			}
		}
	}
	if ks == nil {
		return funcRef{name: name} // a keyspace the model does not hold: the node's to judge
	}
	for _, m := range []map[string]Pos{ks.Functions, ks.Aggregates} {
		for n := range m {
			if strings.EqualFold(n, fn) {
				return funcRef{name: ks.Name + "." + n, ks: ks, user: n}
			}
		}
	}
	return funcRef{name: fn, unknown: true}
}

// userOverloads returns the argument counts of a user function's overloads, nil when the
// model does not know them (a schema read from a node) or the name is also an aggregate's.
func (f funcRef) userOverloads() []Routine {
	if f.ks == nil || f.user == "" {
		return nil
	}
	if _, agg := f.ks.Aggregates[f.user]; agg {
		return nil
	}
	return f.ks.Routines[routineKey(false, f.user)]
}

// checkSelectorFuncs judges the function calls and casts of a SELECT's selectors on t.
func checkSelectorFuncs(s *Schema, ks *Keyspace, t *Table, sel *Selector) error {
	for _, a := range sel.Args {
		if err := checkSelectorFuncs(s, ks, t, a); err != nil {
			return err
		}
	}
	colType := func(a *Selector) (Type, bool) {
		if a.Kind != SelColumn {
			return Type{}, false
		}
		c := t.Column(a.Column.Name)
		if c == nil {
			return Type{}, false
		}
		return c.Type, true
	}
	switch sel.Kind {
	case SelCast:
		if len(sel.Args) == 1 && sel.Type != nil {
			if from, ok := colType(sel.Args[0]); ok && typeFamily(from) == "string" && typeFamily(*sel.Type) != "string" && typeFamily(*sel.Type) != "" {
				// Text casts to text only: there is no cast_as_int (text).
				return Errorf(sel.Pos, "Invalid call to function system.cast_as_%s, none of its type signatures match", sel.Type)
			}
		}
	case SelFunc:
		f := resolveFunc(s, ks, sel.Func)
		if f.unknown {
			return Errorf(sel.Pos, "Unknown function '%s'", f.name)
		}
		args := make([]*Type, len(sel.Args))
		for i, a := range sel.Args {
			if ty, ok := colType(a); ok {
				args[i] = &ty
			}
		}
		if err := f.checkArgs(sel.Pos, args, func(i int) string { return sel.Args[i].Text }, func(i int) *Term { return sel.Args[i].Term }); err != nil {
			return err
		}
	}
	return nil
}

// checkArgs judges a call's arguments: args[i] is the type of a plain column argument (nil
// for anything else), text(i) how it is written, term(i) a constant argument (or nil).
func (f funcRef) checkArgs(pos Pos, args []*Type, text func(int) string, term func(int) *Term) error {
	switch f.native {
	case "mask_inner", "mask_outer":
		if len(args) > 0 && args[0] != nil && typeFamily(*args[0]) != "" && typeFamily(*args[0]) != "string" {
			return Errorf(pos, "Function %s requires an argument of type [text|varchar|ascii], but found argument %s of type %s", f.name, text(0), *args[0])
		}
	case "mask_replace":
		if len(args) == 2 && args[0] != nil {
			if v := term(1); v != nil && v.Kind == TermLiteral {
				if (literalChecker{}).constant(*args[0], v, "replacement") != nil {
					return Errorf(pos, "Type error: %s cannot be passed as argument 1 of function %s of type %s", v.Text, f.name, *args[0])
				}
			}
		}
	}
	rs := f.userOverloads()
	if len(rs) == 0 {
		return nil
	}
	var same []Routine
	for _, r := range rs {
		if len(r.Args) == len(args) {
			same = append(same, r)
		}
	}
	switch {
	case len(same) == 0 && len(rs) == 1:
		return Errorf(pos, "Invalid number of arguments in call to function %s: %d required but %d provided", f.name, len(rs[0].Args), len(args))
	case len(same) == 0:
		return Errorf(pos, "Invalid call to function %s, none of its type signatures match", f.name)
	case len(same) == 1:
		for i, a := range args {
			if a != nil && apart(*a, same[0].Args[i]) {
				return Errorf(pos, "Type error: %s cannot be passed as argument %d of function %s of type %s", text(i), i, f.name, same[0].Args[i])
			}
		}
	}
	return nil
}

// function judges a function call given as the value of a column of type ty.
func (lc literalChecker) function(ty Type, v *Term, name string) error {
	f := resolveFunc(nil, lc.ks, v.Value)
	if f.unknown {
		return Errorf(v.Pos, "Unknown function %s called", f.name)
	}
	if r, ok := nativeReturns[f.native]; ok && len(v.Items) == 0 {
		if apart(Type{Kind: Native, Name: r}, ty) {
			return Errorf(v.Pos, "Type error: cannot assign result of function %s (type %s) to %s (type %s)", f.name, r, name, ty)
		}
	}
	args := make([]*Type, len(v.Items))
	return f.checkArgs(v.Pos, args, func(i int) string { return v.Items[i].Text }, func(i int) *Term { return v.Items[i] })
}

// hint judges a type hint, (int) 5, given as the value of a column of type ty.
func (lc literalChecker) hint(ty Type, v *Term, name string) error {
	if v.Type != nil && apart(*v.Type, ty) {
		return Errorf(v.Pos, "Cannot assign value %s to %s of type %s", strings.Join(strings.Fields(v.Text), ""), name, ty)
	}
	return nil
}

// operation judges arithmetic on constants given as the value of a column of type ty: a
// text and a number do not add up, and an integer divided by a constant 0 fails.
func (lc literalChecker) operation(ty Type, v *Term) error {
	if len(v.Items) != 2 {
		return nil
	}
	l, r := v.Items[0], v.Items[1]
	if l.Kind != TermLiteral || r.Kind != TermLiteral {
		return nil
	}
	number := func(t *Term) bool { return t.Lit == TokInt || t.Lit == TokFloat }
	if typeFamily(ty) == "string" && ((l.Lit == TokString && number(r)) || (number(l) && r.Lit == TokString)) {
		return Errorf(v.Pos, "the '%s' operation is not supported between %s and %s", v.Value, l.Text, r.Text)
	}
	if (v.Value == "/" || v.Value == "%") && l.Lit == TokInt && r.Lit == TokInt && strings.TrimLeft(r.Value, "0") == "" && integerType(ty) {
		return Errorf(v.Pos, "the operation '%s %s %s' failed: %s by zero", ty, v.Value, ty, v.Value)
	}
	return nil
}

func integerType(t Type) bool {
	switch t.Name {
	case "tinyint", "smallint", "int", "bigint", "varint", "counter":
		return t.Kind == Native
	}
	return false
}
