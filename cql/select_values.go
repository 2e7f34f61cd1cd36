package cql

// checkSelectValues checks the values a SELECT compares and the elements it selects, as a
// 5.0 node does when it prepares the statement: a constant compared with a column is of
// its type, element selection is on a set or a map (with a key of its type), and a
// selector is not a bare constant, whose type the node cannot infer. Which columns exist
// and which restrictions the node runs is cql/check's part (check.Rejection).
func checkSelectValues(ks *Keyspace, t *Table, st *Select) error {
	lc := literalChecker{ks: ks}
	for _, r := range st.Where {
		if r.Kind != RelColumn {
			continue
		}
		c := t.Column(r.Column().Name)
		if c == nil {
			continue
		}
		switch {
		case r.Op == OpEq || r.Op == OpIn || r.Op.IsSlice():
			if err := lc.check(c.Type, r.Value, c.Name); err != nil {
				return err
			}
			for _, in := range r.In {
				if err := lc.check(c.Type, in, c.Name); err != nil {
					return err
				}
			}
		}
	}
	for _, sel := range st.Selectors {
		if sel.Kind == SelTerm && sel.Term != nil && sel.Term.Kind == TermLiteral {
			return Errorf(sel.Pos, "Cannot infer type for term %s in selection clause (try using a cast to force a type)", sel.Term.Text)
		}
		if err := checkSelectorFuncs(nil, ks, t, sel); err != nil {
			return err
		}
		if err := checkElementSelection(lc, t, sel); err != nil {
			return err
		}
	}
	return nil
}

// checkElementSelection refuses c[x] on a list (the node selects elements of sets and maps
// only) and a map key or set element of the wrong type, wherever the selector nests it.
func checkElementSelection(lc literalChecker, t *Table, sel *Selector) error {
	for _, a := range sel.Args {
		if err := checkElementSelection(lc, t, a); err != nil {
			return err
		}
	}
	if sel.Kind == SelField && len(sel.Args) == 1 && sel.Args[0].Kind == SelColumn {
		if c := t.Column(sel.Args[0].Column.Name); c != nil {
			if ut := lc.userTypeOf(c.Type); ut != nil && !ut.hasField(sel.Field.Name) {
				return Errorf(sel.Field.Pos, "%s of type %s has no field %s", c.Name, ut.Name, sel.Field.Name)
			}
		}
	}
	if sel.Kind != SelElement || len(sel.Args) == 0 || sel.Args[0].Kind != SelColumn {
		return nil
	}
	c := t.Column(sel.Args[0].Column.Name)
	if c == nil {
		return nil
	}
	switch c.Type.Kind {
	case List:
		return Errorf(sel.Pos, "Element selection is only allowed on sets and maps, but %s is a list", c.Name)
	case Map, Set:
		for _, k := range []*Term{sel.Term, sel.To} {
			if err := lc.check(c.Type.Params[0], k, "key("+c.Name+")"); err != nil {
				return err
			}
		}
	}
	return nil
}
