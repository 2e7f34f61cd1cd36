package denorm

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/gocql/gocql"
	"github.com/scylladb/go-reflectx"
	"github.com/scylladb/gocqlx/v2"

	"github.com/cqlsize/cqlsize/cql"
)

// StructOption adjusts a MapStruct mapping.
type StructOption func(*structConfig)

type structConfig struct {
	mapper  *reflectx.Mapper
	derived []derivedOption
	fanOuts []fanOutOption
	source  bool
}

type derivedOption struct {
	column string
	fn     any // func(*E) (any, error); MapStruct checks E when New binds it
}

type fanOutOption struct{ field, column string }

// WithMapper maps fields to columns with m instead of gocqlx.DefaultMapper: pass the
// Mapper a gocqlx.Session was configured with, so that denorm and the service's own
// gocqlx queries agree on every column name.
func WithMapper(m *reflectx.Mapper) StructOption {
	return func(c *structConfig) { c.mapper = m }
}

// WithColumn fills column with a value derived from the entity, for a column the struct
// has no field for: a month bucket from a timeuuid, a lower-cased copy of a name. It takes
// precedence over a field mapped to the same column. An error from value fails the write
// before anything is sent. value must take the mapping's entity type (New checks it).
func WithColumn[E any](column string, value func(e *E) (any, error)) StructOption {
	return func(c *structConfig) {
		var fn any
		if value != nil {
			fn = value
		}
		c.derived = append(c.derived, derivedOption{column: column, fn: fn})
	}
}

// FanOut writes one row per element of the slice or array field named field (its column
// name under the mapper, such as "hashtags"), with the element in column (such as
// "hashtag"); every other column is the same in each row. An empty or nil slice writes no
// row to this table. A mapping has at most one FanOut.
func FanOut(field, column string) StructOption {
	return func(c *structConfig) { c.fanOuts = append(c.fanOuts, fanOutOption{field: field, column: column}) }
}

// AsSource makes the table the one Load reads an entity back from, scanning the row into
// the struct by the same field mapping (Mapping.Source, with the scan written for you).
// The table must hold one row per entity: a fan-out table cannot be the source. Only the
// columns with a field are read, and the driver unmarshals into the fields as gocqlx's
// scan does (a null leaves a pointer or slice nil); a derived column is not read back.
func AsSource() StructOption {
	return func(c *structConfig) { c.source = true }
}

// MapStruct maps entities to rows of table by their struct fields, the way gocqlx binds
// them, so that a service whose rows are already gocqlx models adopts this package without
// writing a row function per table, and keeps one definition of each column's name.
//
// The tag rules are gocqlx's (gocqlx.DefaultMapper, built on go-reflectx, unless
// WithMapper gives another): a field's column is its `db:"name"` tag, else its name in
// snake_case (UserID is user_id, CreatedAt is created_at); `db:"-"` and unexported fields
// are skipped; the fields of an embedded struct count as the outer struct's. A name must
// equal the column's name as the schema stores it (lower case unless it was quoted). A
// field whose type embeds gocqlx.UDT is written to, and read from, a user type column
// field by field through the same mapper, as gocqlx does.
//
// Only the fields that are columns of table are written; other fields are ignored, and a
// column with no field is left unset, except that every primary key column needs a field
// or a WithColumn: New reports a missing one as a *SchemaError naming the table, the
// column and the struct type. Values go through the same path as Map's: a nil pointer,
// slice or map, or a zero time.Time, is sent unset, never as a null.
//
// The field lookup is resolved once, when New binds the mapping to the schema's table;
// a write only reads fields by their index.
func MapStruct[E any](table string, opts ...StructOption) Mapping[E] {
	cfg := structConfig{mapper: gocqlx.DefaultMapper}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.mapper == nil {
		cfg.mapper = gocqlx.DefaultMapper
	}
	typ := reflect.TypeFor[E]()
	fields, err := structFields(cfg.mapper, typ)
	return Mapping[E]{table: table, bind: binder[E](typ, fields, err, &cfg)}
}

// binder returns MapStruct's bind function, holding the struct's fields computed once.
func binder[E any](typ reflect.Type, fields map[string]*reflectx.FieldInfo, err error, cfg *structConfig) func(Mapping[E], *table) (Mapping[E], error) {
	return func(mp Mapping[E], t *table) (Mapping[E], error) {
		if err != nil {
			return mp, &SchemaError{Table: t.name, Msg: err.Error()}
		}
		return bindStruct(mp, t, typ, fields, cfg)
	}
}

// structFields returns the mapper's fields of typ, by column name. A mapper's name
// function may panic on a field name it cannot convert (gocqlx's panics on non-ASCII
// letters): that is reported as an error, as is a type that is not a struct.
func structFields(m *reflectx.Mapper, typ reflect.Type) (fields map[string]*reflectx.FieldInfo, err error) {
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("MapStruct needs a struct type, not %s", typ)
	}
	defer func() {
		if r := recover(); r != nil {
			fields, err = nil, fmt.Errorf("map the fields of %s: %v", typ, r)
		}
	}()
	return m.TypeMap(typ).Names, nil
}

// structField is a column filled from a field.
type structField struct {
	col   int
	index []int // traversal from the struct, through embedded structs
	udt   bool  // the field's type embeds gocqlx.UDT
}

type structDerived[E any] struct {
	col  int
	name string
	fn   func(*E) (any, error)
}

// structRows is a MapStruct mapping bound to its table.
type structRows[E any] struct {
	typ     reflect.Type
	mapper  *reflectx.Mapper
	ncols   int
	fields  []structField
	derived []structDerived[E]
	fan     *structField // the fan-out slice; col is the element's column
}

func bindStruct[E any](mp Mapping[E], t *table, typ reflect.Type, fields map[string]*reflectx.FieldInfo, cfg *structConfig) (Mapping[E], error) {
	bad := func(column, format string, args ...any) error {
		return &SchemaError{Table: t.name, Column: column, Msg: fmt.Sprintf(format, args...)}
	}
	udtType := reflect.TypeFor[gocqlx.UDT]()
	sr := &structRows[E]{typ: typ, mapper: cfg.mapper, ncols: len(t.cols)}
	filledBy := make([]string, len(t.cols)) // which option fills a column, for conflicts
	for _, d := range cfg.derived {
		i, ok := t.index[d.column]
		if !ok {
			return mp, bad("", "has no column %q (named by WithColumn)", d.column)
		}
		fn, ok := d.fn.(func(*E) (any, error))
		if !ok {
			if d.fn == nil {
				return mp, bad(d.column, "has a nil WithColumn function")
			}
			return mp, bad(d.column, "has a WithColumn function of type %T, want func(*%s) (any, error)", d.fn, typ)
		}
		if filledBy[i] != "" {
			return mp, bad(d.column, "is filled twice (%s and WithColumn)", filledBy[i])
		}
		filledBy[i] = "WithColumn"
		sr.derived = append(sr.derived, structDerived[E]{col: i, name: d.column, fn: fn})
	}
	if len(cfg.fanOuts) > 1 {
		return mp, bad("", "has %d FanOut options: a mapping fans out over one slice", len(cfg.fanOuts))
	}
	for _, f := range cfg.fanOuts {
		fi, ok := fields[f.field]
		if !ok {
			return mp, bad("", "cannot fan out over %q: %s has no field mapped to that name", f.field, typ)
		}
		if k := fi.Field.Type.Kind(); k != reflect.Slice && k != reflect.Array {
			return mp, bad("", "cannot fan out over %s.%s: it is a %s, not a slice", typ, fi.Field.Name, fi.Field.Type)
		}
		i, ok := t.index[f.column]
		if !ok {
			return mp, bad("", "has no column %q (named by FanOut)", f.column)
		}
		if filledBy[i] != "" {
			return mp, bad(f.column, "is filled twice (%s and FanOut)", filledBy[i])
		}
		filledBy[i] = "FanOut"
		sr.fan = &structField{col: i, index: fi.Index}
	}
	for i, c := range t.cols {
		if filledBy[i] != "" {
			continue
		}
		fi, ok := fields[c.name]
		if !ok {
			if c.kind == cql.PartitionKey || c.kind == cql.Clustering {
				return mp, bad(c.name, "is in the primary key but %s has no field for it: tag one `db:\"%s\"`, or derive it with WithColumn", typ, c.name)
			}
			continue
		}
		filledBy[i] = typ.String() + "." + fi.Field.Name
		sr.fields = append(sr.fields, structField{col: i, index: fi.Index, udt: fi.Field.Type.Implements(udtType)})
	}
	if mp.rows != nil {
		return mp, bad("", "MapStruct mapping has a row function")
	}
	mp.rows = sr.rows
	if !cfg.source {
		return mp, nil
	}
	if mp.source != nil {
		return mp, bad("", "has both AsSource and Source: keep one")
	}
	if sr.fan != nil {
		return mp, bad("", "cannot be the source: it fans out, so it holds several rows per entity")
	}
	sc, err := sr.scanner(t)
	if err != nil {
		return mp, bad("", "cannot be the source: %v", err)
	}
	mp.scan = sc
	return mp, nil
}

// rows adds the entity's rows: one, or one per element of the fan-out slice.
func (sr *structRows[E]) rows(e *E, out *Rows) error {
	v := reflect.ValueOf(e).Elem()
	n := 1
	var fan reflect.Value
	if sr.fan != nil {
		var ok bool
		if fan, ok = readField(v, sr.fan.index); ok {
			n = fan.Len()
		} else {
			n = 0
		}
	}
	if n == 0 { // no row, but a derived column's error still says the entity is bad
		for _, d := range sr.derived {
			if _, err := d.fn(e); err != nil {
				return fmt.Errorf("column %s: %w", d.name, err)
			}
		}
		return nil
	}
	first := out.Add().off
	row := out.vals[first : first+sr.ncols]
	for _, d := range sr.derived {
		x, err := d.fn(e)
		if err != nil {
			return fmt.Errorf("column %s: %w", d.name, err)
		}
		row[d.col] = x
	}
	for _, f := range sr.fields {
		fv, ok := readField(v, f.index)
		if !ok {
			continue // behind a nil embedded pointer: unset
		}
		x, err := sr.value(fv, f.udt)
		if err != nil {
			return fmt.Errorf("column %s: %w", out.t.cols[f.col].name, err)
		}
		row[f.col] = x
	}
	if sr.fan == nil {
		return nil
	}
	for k := 0; k < n; k++ {
		off := first
		if k > 0 {
			off = out.Add().off
			copy(out.vals[off:off+sr.ncols], out.vals[first:first+sr.ncols])
		}
		x, err := sr.value(fan.Index(k), false)
		if err != nil {
			return fmt.Errorf("column %s: %w", out.t.cols[sr.fan.col].name, err)
		}
		out.vals[off+sr.fan.col] = x
	}
	return nil
}

// value is what is set for a field: the field's value as Map's row function would pass it,
// or, for a user type struct, a wrapper that marshals it through the mapper.
func (sr *structRows[E]) value(fv reflect.Value, udt bool) (any, error) {
	if !fv.CanInterface() {
		return nil, fmt.Errorf("field of %s cannot be read (unexported)", sr.typ)
	}
	if udt {
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				return nil, nil
			}
			fv = fv.Elem()
		}
		return udtValue{v: fv, mapper: sr.mapper}, nil
	}
	return fv.Interface(), nil
}

// readField follows index from the struct v to a field, reading through embedded
// pointers; ok is false when one of them is nil (the field has no value).
func readField(v reflect.Value, index []int) (reflect.Value, bool) {
	for _, i := range index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v, true
}

// fieldForScan follows index from the addressable struct v to a field, allocating nil
// embedded pointers on the way, so the driver can unmarshal into it.
func fieldForScan(v reflect.Value, index []int) reflect.Value {
	for _, i := range index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}

// structScan reads a source row straight into a struct's fields.
type structScan struct {
	stmt   string // SELECT <the columns with a field> FROM ... WHERE <primary key>
	fields []structField
	mapper *reflectx.Mapper
}

func (sr *structRows[E]) scanner(t *table) (*structScan, error) {
	from, ok := strings.CutPrefix(t.selectKey, "SELECT * ")
	if !ok || len(sr.fields) == 0 {
		return nil, fmt.Errorf("no column is a field of %s", sr.typ)
	}
	names := make([]string, len(sr.fields))
	for k, f := range sr.fields {
		names[k] = t.cols[f.col].quoted
		// Load allocates nil embedded pointers; it cannot set an unexported one.
		st := sr.typ
		for _, i := range f.index[:len(f.index)-1] {
			sf := st.Field(i)
			if sf.Type.Kind() == reflect.Pointer && !sf.IsExported() {
				return nil, fmt.Errorf("column %s is reached through the unexported embedded pointer %s.%s", t.cols[f.col].name, st, sf.Name)
			}
			st = reflectx.Deref(sf.Type)
		}
	}
	return &structScan{stmt: "SELECT " + strings.Join(names, ", ") + " " + from, fields: sr.fields, mapper: sr.mapper}, nil
}

// dest returns where the driver unmarshals each selected column: the fields of v.
func (sc *structScan) dest(v reflect.Value) []any {
	out := make([]any, len(sc.fields))
	for k, f := range sc.fields {
		fv := fieldForScan(v, f.index)
		if f.udt {
			if fv.Kind() == reflect.Pointer {
				out[k] = &udtPointer{p: fv, mapper: sc.mapper}
				continue
			}
			out[k] = udtValue{v: fv, mapper: sc.mapper}
			continue
		}
		out[k] = fv.Addr().Interface()
	}
	return out
}

// udtValue marshals a struct embedding gocqlx.UDT into a user type field by field, each
// user type field taken from the struct field the mapper names after it (as gocqlx's own
// wrapper does). When v is addressable it also unmarshals into those fields.
type udtValue struct {
	v      reflect.Value
	mapper *reflectx.Mapper
}

// MarshalUDT implements gocql.UDTMarshaler.
func (u udtValue) MarshalUDT(name string, info gocql.TypeInfo) ([]byte, error) {
	fi, ok := u.mapper.TypeMap(u.v.Type()).Names[name]
	if !ok {
		return nil, fmt.Errorf("user type field %s: %s has no field mapped to it", name, u.v.Type())
	}
	fv, ok := readField(u.v, fi.Index)
	if !ok {
		return nil, nil // behind a nil embedded pointer: a null field inside the value, no tombstone
	}
	if !fv.CanInterface() {
		return nil, fmt.Errorf("user type field %s: the field of %s cannot be read (unexported)", name, u.v.Type())
	}
	return gocql.Marshal(info, fv.Interface())
}

// UnmarshalUDT implements gocql.UDTUnmarshaler.
func (u udtValue) UnmarshalUDT(name string, info gocql.TypeInfo, data []byte) error {
	fi, ok := u.mapper.TypeMap(u.v.Type()).Names[name]
	if !ok {
		return fmt.Errorf("user type field %s: %s has no field mapped to it", name, u.v.Type())
	}
	return gocql.Unmarshal(info, data, fieldForScan(u.v, fi.Index).Addr().Interface())
}

// udtPointer unmarshals a user type into a pointer field: nil for a null, else a new struct.
type udtPointer struct {
	p      reflect.Value // the *T field, T embedding gocqlx.UDT
	mapper *reflectx.Mapper
}

// UnmarshalCQL implements gocql.Unmarshaler.
func (u *udtPointer) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if data == nil {
		u.p.Set(reflect.Zero(u.p.Type()))
		return nil
	}
	nv := reflect.New(u.p.Type().Elem())
	if err := gocql.Unmarshal(info, data, udtValue{v: nv.Elem(), mapper: u.mapper}); err != nil {
		return err
	}
	u.p.Set(nv)
	return nil
}
