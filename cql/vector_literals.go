package cql

// Vector literals are checked here, beside the table options, because both are values
// the node refuses after the statements before them have run: 5.0 refuses a literal whose
// element count is not the vector's dimension ("expected 3 elements, but given 2") in
// INSERT, UPDATE, DELETE and SELECT alike.

// checkVectorLiterals refuses a list literal written for a vector column with the wrong
// number of elements. Bind markers and function calls are left to the node.
func checkVectorLiterals(t *Table, stmt Statement) error {
	check := func(col Ident, v *Term) error {
		c := t.Column(col.Name)
		if c == nil || c.Type.Kind != Vector || v == nil || v.Kind != TermList {
			return nil
		}
		if len(v.Items) != c.Type.Dim {
			return Errorf(v.Pos, "invalid vector literal for %s of type %s: expected %d elements, but given %d",
				QuoteName(c.Name), c.Type, c.Type.Dim, len(v.Items))
		}
		return nil
	}
	relations := func(rs []*Relation) error {
		for _, r := range rs {
			if len(r.Columns) != 1 {
				continue
			}
			if err := check(r.Columns[0], r.Value); err != nil {
				return err
			}
			for _, in := range r.In {
				if err := check(r.Columns[0], in); err != nil {
					return err
				}
			}
		}
		return nil
	}
	switch st := stmt.(type) {
	case *Insert:
		for i, col := range st.Columns {
			if i < len(st.Values) {
				if err := check(col, st.Values[i]); err != nil {
					return err
				}
			}
		}
	case *Update:
		for _, a := range st.Set {
			if a.Op == AssignSet {
				if err := check(a.Column, a.Value); err != nil {
					return err
				}
			}
		}
		if err := relations(st.Where); err != nil {
			return err
		}
		return relations(st.If)
	case *Delete:
		return relations(st.Where)
	case *Select:
		return relations(st.Where)
	}
	return nil
}
