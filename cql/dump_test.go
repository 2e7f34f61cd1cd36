package cql

import (
	"fmt"
	"reflect"
	"strings"
)

// dump renders a parsed value as indented text for golden files: zero fields are left out,
// positions print as @line:col, names as name@line:col, and statement text is not repeated.
func dump(v any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(v), 0)
	return b.String()
}

var (
	posType   = reflect.TypeOf(Pos{})
	identType = reflect.TypeOf(Ident{})
	typeType  = reflect.TypeOf(Type{})
)

func dumpValue(b *strings.Builder, v reflect.Value, depth int) {
	ind := strings.Repeat("  ", depth)
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil\n")
			return
		}
		dumpValue(b, v.Elem(), depth)
		return
	}
	switch v.Type() {
	case posType:
		p := v.Interface().(Pos)
		fmt.Fprintf(b, "@%d:%d\n", p.Line, p.Col)
		return
	case identType:
		id := v.Interface().(Ident)
		q := ""
		if id.Quoted {
			q = " (quoted)"
		}
		fmt.Fprintf(b, "%q@%d:%d%s\n", id.Name, id.Pos.Line, id.Pos.Col, q)
		return
	case typeType:
		t := v.Interface().(Type)
		ks := ""
		if t.Keyspace != "" {
			ks = " (keyspace " + t.Keyspace + ")"
		}
		fmt.Fprintf(b, "%s%s\n", t, ks)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		fmt.Fprintf(b, "%s\n", v.Type().Name())
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			fv := v.Field(i)
			if f.Name == "StmtInfo" {
				info := fv.Interface().(StmtInfo)
				fmt.Fprintf(b, "%s  at %d:%d-%d:%d\n", ind, info.Pos.Line, info.Pos.Col, info.End.Line, info.End.Col)
				if info.Doc != "" {
					fmt.Fprintf(b, "%s  doc %q\n", ind, info.Doc)
				}
				continue
			}
			if fv.IsZero() || (f.Name == "Text" && depth > 0) {
				continue
			}
			fmt.Fprintf(b, "%s  %s: ", ind, f.Name)
			dumpValue(b, fv, depth+1)
		}
	case reflect.Slice:
		fmt.Fprintf(b, "[%d]\n", v.Len())
		for i := 0; i < v.Len(); i++ {
			fmt.Fprintf(b, "%s  - ", ind)
			dumpValue(b, v.Index(i), depth+1)
		}
	case reflect.String:
		fmt.Fprintf(b, "%q\n", v.String())
	default:
		if s, ok := v.Interface().(fmt.Stringer); ok {
			fmt.Fprintf(b, "%s\n", s.String())
			return
		}
		fmt.Fprintf(b, "%v\n", v.Interface())
	}
}
