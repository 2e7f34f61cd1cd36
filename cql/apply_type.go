package cql

import (
	"sort"
	"strings"
)

// typeContext says where a type is used, for the rules that depend on it.
type typeContext int

const (
	inTable typeContext = iota
	inUDT
)

// resolveType checks t as a column or field type in keyspace ks and returns it with user
// types qualified by their keyspace. pos is where the type was written.
func resolveType(ks *Keyspace, t Type, pos Pos, ctx typeContext) (Type, error) {
	whole := t
	var walk func(t Type, inCollection, inTuple bool) (Type, error)
	walk = func(t Type, inCollection, inTuple bool) (Type, error) {
		switch t.Kind {
		case Native:
			if t.Name == "counter" {
				switch {
				case ctx == inUDT:
					return t, Errorf(pos, "a user type cannot contain counters")
				case inCollection:
					return t, Errorf(pos, "counters are not allowed inside collections: %s", whole)
				case inTuple:
					return t, Errorf(pos, "counters are not allowed inside tuples")
				}
			}
		case UDT:
			if t.Keyspace != "" && t.Keyspace != ks.Name {
				return t, Errorf(pos, "user type %s.%s is in another keyspace: user types can only be used in the keyspace %s they are defined in", QuoteName(t.Keyspace), QuoteName(t.Name), QuoteName(ks.Name))
			}
			ut := ks.Types[t.Name]
			if ut == nil {
				return t, Errorf(pos, "unknown type %s.%s", QuoteName(ks.Name), QuoteName(t.Name))
			}
			t.Keyspace = ks.Name
			if !t.Frozen {
				if ctx == inUDT {
					return t, Errorf(pos, "a user type cannot contain non-frozen user types: write frozen<%s>", QuoteName(t.Name))
				}
				if inCollection {
					return t, Errorf(pos, "non-frozen user types are not allowed inside collections: %s", whole)
				}
				for _, f := range ut.Fields {
					if f.Type.MultiCell() && f.Type.IsCollection() {
						return t, Errorf(pos, "non-frozen user types with nested non-frozen collections are not supported: write frozen<%s>", QuoteName(t.Name))
					}
				}
			}
		case List, Set, Map:
			if !t.Frozen && inCollection {
				return t, Errorf(pos, "non-frozen collections are not allowed inside collections: %s", whole)
			}
			if t.Kind == Set && len(t.Params) == 1 && t.Params[0].Kind == Native && t.Params[0].Name == "duration" {
				return t, Errorf(pos, "durations are not allowed inside sets: %s", whole)
			}
			if t.Kind == Map && len(t.Params) == 2 && t.Params[0].Kind == Native && t.Params[0].Name == "duration" {
				return t, Errorf(pos, "durations are not allowed as map keys: %s", whole)
			}
		}
		if len(t.Params) == 0 {
			return t, nil
		}
		ps := make([]Type, len(t.Params))
		for i, p := range t.Params {
			var err error
			coll := inCollection || t.Kind == List || t.Kind == Set || t.Kind == Map
			if t.Kind == Vector {
				coll = inCollection
			}
			ps[i], err = walk(p, coll, inTuple || t.Kind == Tuple)
			if err != nil {
				return t, err
			}
		}
		t.Params = ps
		return t, nil
	}
	return walk(t, false, false)
}

// usesType reports whether t refers to the user type name of keyspace ks.
func usesType(t Type, ks, name string) bool {
	return t.Contains(func(x Type) bool { return x.Kind == UDT && x.Name == name && (x.Keyspace == "" || x.Keyspace == ks) })
}

func (s *Schema) createType(st *CreateType) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		return err
	}
	name := st.Name.Name
	if ks.Types[name.Name] != nil {
		if st.IfNotExists {
			return nil
		}
		return Errorf(name.Pos, "user type %s.%s already exists", QuoteName(ks.Name), name)
	}
	ut := &UserType{Keyspace: ks.Name, Name: name.Name, Pos: st.Pos}
	for _, f := range st.Fields {
		for _, prev := range ut.Fields {
			if prev.Name == f.Name.Name {
				return Errorf(f.Name.Pos, "duplicate field %s in type %s", f.Name, name)
			}
		}
		if f.Type.Kind == UDT && !f.Type.Frozen && f.Type.Name == name.Name {
			return Errorf(f.TypePos, "a user type cannot contain non-frozen user types: write frozen<%s>", QuoteName(f.Type.Name))
		}
		typ, err := resolveType(ks, f.Type, f.TypePos, inUDT)
		if err != nil {
			return err
		}
		ut.Fields = append(ut.Fields, Field{Name: f.Name.Name, Type: typ})
	}
	ks.Types[name.Name] = ut
	return nil
}

func (s *Schema) alterType(st *AlterUserType) error {
	ks, err := s.keyspaceIfExists(st.Name, st.IfExists)
	if ks == nil {
		return err
	}
	ut := ks.Types[st.Name.Name.Name]
	if ut == nil {
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Name.Pos, "user type %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
	}
	field := func(name string) int {
		for i, f := range ut.Fields {
			if f.Name == name {
				return i
			}
		}
		return -1
	}
	switch st.Action {
	case AlterTypeAdd:
		f := st.Add
		if field(f.Name.Name) >= 0 {
			if st.IfField {
				return nil
			}
			return Errorf(f.Name.Pos, "field %s already exists in type %s", f.Name, st.Name)
		}
		typ, err := resolveType(ks, f.Type, f.TypePos, inUDT)
		if err != nil {
			return err
		}
		if usesType(typ, ks.Name, ut.Name) {
			return Errorf(f.TypePos, "type %s cannot refer to itself", st.Name)
		}
		// A new field would change how a partition key of this type serializes, and so
		// the token of every partition already written.
		var keyed []string
		for name, t := range ks.Tables {
			for _, c := range t.PartitionKey {
				if usesType(c.Type, ks.Name, ut.Name) {
					keyed = append(keyed, QuoteName(ks.Name)+"."+QuoteName(name))
					break
				}
			}
		}
		sort.Strings(keyed)
		if len(keyed) > 0 {
			return Errorf(f.Name.Pos, "Cannot add new field %s of type %s to user type %s.%s as the type is being used in partition key by the following tables: %s",
				f.Name, typ, QuoteName(ks.Name), QuoteName(ut.Name), strings.Join(keyed, ", "))
		}
		ut.Fields = append(append([]Field(nil), ut.Fields...), Field{Name: f.Name.Name, Type: typ})
	case AlterTypeRename:
		fields := append([]Field(nil), ut.Fields...)
		for _, r := range st.Renames {
			i := -1
			for j, f := range fields {
				if f.Name == r.From.Name {
					i = j
				}
			}
			if i < 0 {
				if st.IfField {
					continue
				}
				return Errorf(r.From.Pos, "field %s does not exist in type %s", r.From, st.Name)
			}
			for _, f := range fields {
				if f.Name == r.To.Name {
					return Errorf(r.To.Pos, "field %s already exists in type %s", r.To, st.Name)
				}
			}
			fields[i].Name = r.To.Name
		}
		ut.Fields = fields
	case AlterTypeAlter:
		return Errorf(st.Field.Pos, "altering field types is no longer supported")
	}
	return nil
}

func (s *Schema) dropType(st *DropType) error {
	ks, err := s.keyspaceIfExists(st.Name, st.IfExists)
	if ks == nil {
		return err
	}
	name := st.Name.Name.Name
	if ks.Types[name] == nil {
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Name.Pos, "user type %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
	}
	var users []string
	for _, ut := range ks.Types {
		for _, f := range ut.Fields {
			if usesType(f.Type, ks.Name, name) {
				users = append(users, "type "+QuoteName(ut.Name))
				break
			}
		}
	}
	for _, t := range ks.Tables {
		for _, c := range t.Columns {
			if usesType(c.Type, ks.Name, name) {
				users = append(users, "table "+QuoteName(t.Name))
				break
			}
		}
	}
	if len(users) > 0 {
		sort.Strings(users)
		return Errorf(st.Name.Name.Pos, "cannot drop user type %s.%s: it is still used by %s", QuoteName(ks.Name), st.Name.Name, strings.Join(users, ", "))
	}
	delete(ks.Types, name)
	return nil
}
