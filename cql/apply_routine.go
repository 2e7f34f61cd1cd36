package cql

import "strings"

// Routine is one overload of a user-defined function or aggregate: functions of one name
// differ by their argument types, and a 5.0 node refuses a CREATE, DROP or aggregate that
// names an overload the keyspace does not have (or has already). Keyspace.Functions and
// Aggregates keep the names; Routines the overloads, for the keyspaces built from
// statements (a schema read from a node knows names only, and is not held to overloads).
type Routine struct {
	Args []Type
	// Returns is a function's return type, an aggregate's state type.
	Returns Type
	// SFunc and FinalFunc are the functions an aggregate calls (FinalFunc may be empty).
	SFunc, FinalFunc string
	Pos              Pos
}

// routineKey is how Keyspace.Routines keys a function ("f:name") or aggregate ("a:name").
func routineKey(aggregate bool, name string) string {
	if aggregate {
		return "a:" + name
	}
	return "f:" + name
}

// sameArgs reports whether two argument lists are the same types. Collections are frozen
// in a signature, however they are written.
func sameArgs(a, b []Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].freeze().Equal(b[i].freeze()) {
			return false
		}
	}
	return true
}

func signature(name string, args []Type) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// overload returns the index of the overload of name with args, -1 when there is none,
// and whether the keyspace knows the overloads of name at all.
func (ks *Keyspace) overload(aggregate bool, name string, args []Type) (int, bool) {
	rs, known := ks.Routines[routineKey(aggregate, name)]
	for i, r := range rs {
		if sameArgs(r.Args, args) {
			return i, true
		}
	}
	return -1, known
}

func (s *Schema) createFunction(st *CreateFunction) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		return err
	}
	if !strings.EqualFold(st.Language, "java") {
		// 5.0 removed JavaScript UDFs (CASSANDRA-18252); only Java is left.
		return Errorf(st.Pos, "function %s is written in %s: Cassandra 5.0 runs only LANGUAGE java functions", st.Name, st.Language)
	}
	if st.OrReplace && st.IfNotExists {
		return Errorf(st.Pos, "Cannot use both 'OR REPLACE' and 'IF NOT EXISTS' directives")
	}
	seen := map[string]bool{}
	args := make([]Type, len(st.Args))
	for i, a := range st.Args {
		if seen[a.Name.Name] {
			return Errorf(a.Name.Pos, "Duplicate argument names for given function %s: %s", st.Name.Name, a.Name)
		}
		seen[a.Name.Name] = true
		args[i] = a.Type
	}
	name := st.Name.Name.Name
	r := Routine{Args: args, Returns: st.Returns, Pos: st.Pos}
	if i, _ := ks.overload(false, name, args); i >= 0 {
		old := ks.Routines[routineKey(false, name)][i]
		switch {
		case st.IfNotExists:
			return nil
		case !st.OrReplace:
			return Errorf(st.Name.Name.Pos, "Function '%s' already exists", name)
		case !old.Returns.Equal(st.Returns):
			return Errorf(st.Name.Name.Pos, "Cannot replace function '%s', the new return type %s is not compatible with the return type %s of existing function",
				name, st.Returns, old.Returns)
		}
		ks.Routines[routineKey(false, name)][i] = r
	} else {
		ks.addRoutine(false, name, r)
	}
	ks.Functions[name] = st.Pos
	return nil
}

func (ks *Keyspace) addRoutine(aggregate bool, name string, r Routine) {
	if ks.Routines == nil {
		ks.Routines = map[string][]Routine{}
	}
	k := routineKey(aggregate, name)
	ks.Routines[k] = append(ks.Routines[k], r)
}

func (s *Schema) createAggregate(st *CreateAggregate) error {
	ks, err := s.keyspaceOf(st.Name)
	if err != nil {
		return err
	}
	if st.OrReplace && st.IfNotExists {
		return Errorf(st.Pos, "Cannot use both 'OR REPLACE' and 'IF NOT EXISTS' directives")
	}
	// The state function takes the state, then the aggregate's arguments; the final
	// function takes the state. Both live in the aggregate's keyspace.
	sArgs := append([]Type{st.SType}, st.ArgTypes...)
	if i, known := ks.overload(false, st.SFunc, sArgs); i < 0 {
		if _, named := ks.Functions[st.SFunc]; !named || known {
			return Errorf(st.Pos, "State function %s.%s doesn't exist", QuoteName(ks.Name), signature(st.SFunc, sArgs))
		}
	}
	if st.FinalFunc != "" {
		fArgs := []Type{st.SType}
		if i, known := ks.overload(false, st.FinalFunc, fArgs); i < 0 {
			if _, named := ks.Functions[st.FinalFunc]; !named || known {
				return Errorf(st.Pos, "Final function %s.%s doesn't exist", QuoteName(ks.Name), signature(st.FinalFunc, fArgs))
			}
		}
	}
	if err := (literalChecker{ks: ks}).check(st.SType, st.InitCond, "(dummy)"); err != nil {
		return err
	}
	name := st.Name.Name.Name
	r := Routine{Args: st.ArgTypes, Returns: st.SType, SFunc: st.SFunc, FinalFunc: st.FinalFunc, Pos: st.Pos}
	if i, _ := ks.overload(true, name, st.ArgTypes); i >= 0 {
		switch {
		case st.IfNotExists:
			return nil
		case !st.OrReplace:
			return Errorf(st.Name.Name.Pos, "Aggregate '%s' already exists", name)
		}
		ks.Routines[routineKey(true, name)][i] = r
	} else {
		ks.addRoutine(true, name, r)
	}
	ks.Aggregates[name] = st.Pos
	return nil
}

// dropRoutine drops a function or an aggregate: the one overload the argument types name,
// or the only one there is. A function an aggregate calls stays.
func (s *Schema) dropRoutine(q QualifiedName, ifExists, hasArgs bool, args []Type, aggregate bool) error {
	what, names := "function", func(ks *Keyspace) map[string]Pos { return ks.Functions }
	if aggregate {
		what, names = "aggregate", func(ks *Keyspace) map[string]Pos { return ks.Aggregates }
	}
	ks, err := s.keyspaceIfExists(q, ifExists)
	if ks == nil {
		return err
	}
	name := q.Name.Name
	if _, ok := names(ks)[name]; !ok {
		if ifExists {
			return nil
		}
		return Errorf(q.Name.Pos, "%s %s.%s does not exist", what, QuoteName(ks.Name), q.Name)
	}
	k := routineKey(aggregate, name)
	rs, known := ks.Routines[k]
	if !known { // names only (a schema read from a node): drop the name
		delete(names(ks), name)
		return nil
	}
	i := 0
	switch {
	case hasArgs:
		if i, _ = ks.overload(aggregate, name, args); i < 0 {
			if ifExists {
				return nil
			}
			return Errorf(q.Name.Pos, "%s %s.%s doesn't exist", what, QuoteName(ks.Name), signature(name, args))
		}
	case len(rs) > 1:
		return Errorf(q.Name.Pos, "'DROP %s %s' matches multiple %s definitions; specify the argument types, e.g. DROP %s %s",
			strings.ToUpper(what), name, what, strings.ToUpper(what), signature(name, rs[0].Args))
	}
	if !aggregate {
		for _, users := range ks.Routines {
			for _, u := range users {
				if u.SFunc == name && sameArgs(append([]Type{u.Returns}, u.Args...), rs[i].Args) ||
					u.FinalFunc == name && sameArgs([]Type{u.Returns}, rs[i].Args) {
					return Errorf(q.Name.Pos, "Function %s.%s is still referenced by an aggregate", QuoteName(ks.Name), signature(name, rs[i].Args))
				}
			}
		}
	}
	rs = append(rs[:i:i], rs[i+1:]...)
	if len(rs) == 0 {
		delete(ks.Routines, k)
		delete(names(ks), name)
		return nil
	}
	ks.Routines[k] = rs
	return nil
}
