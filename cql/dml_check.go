package cql

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql/options"
)

// INSERT, UPDATE and DELETE are checked here the way a 5.0 node checks them before it
// writes anything: columns that exist, the whole primary key where the statement needs it,
// literals of the column's type, counter arithmetic only on counters, and USING TTL and
// TIMESTAMP in range. A migration runs statements one by one, so a statement the node
// refuses would leave the history half applied; the model refuses it first. Each rule and
// its message come from a 5.0.9 node (cql/testdata/dml/corpus.cql); when a statement is
// beyond what the model judges for sure (token(), tuple relations, IF conditions), the
// model leaves it to the node.

// maxDeletionTime is the last second a 5.0 node can store as an expiry (2038-01-19T03:14:06Z)
// with the default storage_compatibility_mode CASSANDRA_4 and the default REJECT expiration
// date overflow policy: a TTL reaching past it is refused (CASSANDRA-14092).
const maxDeletionTime = math.MaxInt32 - 1

// now is the clock the 2038 expiry check reads; tests pin it.
var now = time.Now

// checkDML checks a write against its table (t in ks).
func checkDML(ks *Keyspace, t *Table, stmt Statement) error {
	if err := checkDMLValues(ks, t, stmt); err != nil {
		return err
	}
	return checkWriteForm(t, stmt)
}

// checkDMLValues checks a write's columns, keys and literals.
func checkDMLValues(ks *Keyspace, t *Table, stmt Statement) error {
	lc := literalChecker{ks: ks}
	switch st := stmt.(type) {
	case *Insert:
		if err := checkUsing(t, st.Using, true); err != nil {
			return err
		}
		return checkInsert(lc, t, st)
	case *Update:
		if err := checkUsing(t, st.Using, true); err != nil {
			return err
		}
		return checkUpdate(lc, t, st)
	case *Delete:
		if err := checkUsing(t, st.Using, false); err != nil {
			return err
		}
		return checkDelete(lc, t, st)
	}
	return nil
}

// undefined is the node's refusal of a column the table does not have.
func undefined(t *Table, col Ident) error {
	return Errorf(col.Pos, "Undefined column name %s in table %s", col.Name, t.QualifiedName())
}

func isKey(c *Column) bool { return c.Kind == PartitionKey || c.Kind == Clustering }

func checkInsert(lc literalChecker, t *Table, st *Insert) error {
	if isCounterTable(t) {
		return Errorf(st.Table.Name.Pos, "INSERT statements are not allowed on counter tables, use UPDATE instead")
	}
	if st.JSON != nil {
		return checkInsertJSON(lc, t, st)
	}
	given := map[string]bool{}
	onlyStatic := true
	for i, col := range st.Columns {
		c := t.Column(col.Name)
		if c == nil {
			return undefined(t, col)
		}
		given[c.Name] = true
		if c.Kind == Regular {
			onlyStatic = false
		}
		if i < len(st.Values) {
			if isKey(c) && st.Values[i].Kind == TermNull {
				return Errorf(st.Values[i].Pos, "Invalid null value in condition for column %s", c.Name)
			}
			if err := lc.check(c.Type, st.Values[i], c.Name); err != nil {
				return err
			}
		}
	}
	if missing := missingColumns(t.PartitionKey, given); missing != "" {
		return Errorf(st.Table.Name.Pos, "Some partition key parts are missing: %s", missing)
	}
	// A row with only static columns needs no clustering key; any other row needs all of it.
	if !(onlyStatic && noneGiven(t.Clustering, given)) {
		if missing := missingColumns(t.Clustering, given); missing != "" {
			return Errorf(st.Table.Name.Pos, "Some clustering keys are missing: %s", missing)
		}
	}
	return nil
}

// checkInsertJSON checks an INSERT ... JSON '<object>': an object naming existing columns,
// the whole primary key, and integers that fit their columns. Other values are the node's.
func checkInsertJSON(lc literalChecker, t *Table, st *Insert) error {
	v := st.JSON
	if v.Kind != TermLiteral || v.Lit != TokString {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(v.Value))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return Errorf(v.Pos, "Could not decode JSON string as a map: %s", v.Value)
	}
	given := map[string]bool{}
	for key, val := range obj {
		name := strings.ToLower(key)
		if len(key) > 1 && strings.HasPrefix(key, `"`) && strings.HasSuffix(key, `"`) {
			name = key[1 : len(key)-1]
		}
		c := t.Column(name)
		if c == nil {
			return Errorf(v.Pos, "JSON values map contains unrecognized column: %s", name)
		}
		if val != nil {
			given[c.Name] = true
		}
		if err := jsonInt(c, val, v.Pos); err != nil {
			return err
		}
	}
	for _, c := range append(append([]*Column{}, t.PartitionKey...), t.Clustering...) {
		if !given[c.Name] {
			return Errorf(v.Pos, "Invalid null value in condition for column %s", c.Name)
		}
	}
	return nil
}

// jsonInt refuses a JSON value that cannot be an integer column's value: a number with a
// fraction or out of range, or a string that is not such a number.
func jsonInt(c *Column, val any, pos Pos) error {
	r, ok := intRanges[c.Type.Name]
	if c.Type.Kind != Native || !ok || c.Type.Name == "timestamp" {
		return nil
	}
	var s string
	switch x := val.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return nil // null, booleans, objects: the node words these itself
	}
	n, isInt := new(big.Int).SetString(s, 10)
	if _, number := val.(json.Number); number && !isInt {
		return Errorf(pos, "Error decoding JSON value for %s: Expected an %s value, but got a Double: %s", c.Name, r.java, s)
	}
	if !isInt || n.Cmp(big.NewInt(r.min)) < 0 || n.Cmp(big.NewInt(r.max)) > 0 {
		return Errorf(pos, "Error decoding JSON value for %s: Unable to make %s from '%s'", c.Name, r.java, s)
	}
	return nil
}

func missingColumns(cols []*Column, given map[string]bool) string {
	var out []string
	for _, c := range cols {
		if !given[c.Name] {
			out = append(out, c.Name)
		}
	}
	return strings.Join(out, ", ")
}

func noneGiven(cols []*Column, given map[string]bool) bool {
	for _, c := range cols {
		if given[c.Name] {
			return false
		}
	}
	return true
}

func checkUpdate(lc literalChecker, t *Table, st *Update) error {
	onlyStatic := true
	for _, a := range st.Set {
		c := t.Column(a.Column.Name)
		if c == nil {
			return undefined(t, a.Column)
		}
		if isKey(c) {
			return Errorf(a.Column.Pos, "PRIMARY KEY part %s found in SET part", c.Name)
		}
		if c.Kind != Static {
			onlyStatic = false
		}
		if err := checkAssignment(lc, c, a); err != nil {
			return err
		}
	}
	if err := checkConditionColumns(t, st.If); err != nil {
		return err
	}
	return checkWhere(lc, t, st.Where, "UPDATE", onlyStatic, false)
}

// checkAssignment checks one SET item: counters only add and subtract, other columns
// only add to collections, and every literal fits what it is written into.
func checkAssignment(lc literalChecker, c *Column, a *Assignment) error {
	ty := c.Type
	counter := ty.Kind == Native && ty.Name == "counter"
	if err := checkAssignmentTarget(lc, c, a); err != nil {
		return err
	}
	switch a.Op {
	case AssignSet:
		if counter {
			return Errorf(a.Column.Pos, "Cannot set the value of counter column %s (counters can only be incremented/decremented, not set)", c.Name)
		}
		return lc.check(ty, a.Value, c.Name)
	case AssignAdd, AssignSub:
		if counter {
			return lc.check(ty, a.Value, c.Name)
		}
		switch {
		case ty.Kind == Native || ty.Kind == Vector || ty.Kind == Tuple:
			sign := "+"
			if a.Op == AssignSub {
				sign = "-"
			}
			return Errorf(a.Column.Pos, "Invalid operation (%s = %s %s %s) for non counter column %s", c.Name, c.Name, sign, a.Value.Text, c.Name)
		case ty.Kind == Map && a.Op == AssignSub:
			return lc.check(Type{Kind: Set, Name: "set", Params: ty.Params[:1]}, a.Value, c.Name)
		case ty.IsCollection():
			return lc.check(ty, a.Value, c.Name)
		}
	case AssignPrepend:
		if ty.Kind == List {
			return lc.check(ty, a.Value, c.Name)
		}
		// v + c prepends, which only a list does; the node words it as a subtraction.
		return Errorf(a.Column.Pos, "Invalid operation (%s = %s - %s) for non list column %s", c.Name, a.Value.Text, c.Name, c.Name)
	case AssignElement:
		switch ty.Kind {
		case Map:
			if err := lc.check(ty.Params[0], a.Key, "key("+c.Name+")"); err != nil {
				return err
			}
			return lc.check(ty.Params[1], a.Value, "value("+c.Name+")")
		case List:
			return lc.check(ty.Params[0], a.Value, "value("+c.Name+")")
		}
	}
	return nil
}

// checkAssignmentTarget refuses what the node cannot do to a column's parts: set an
// element or append to a frozen collection, set an element of a set by index, set a field
// of a frozen user type or one the type does not have.
func checkAssignmentTarget(lc literalChecker, c *Column, a *Assignment) error {
	ty := c.Type
	switch {
	case a.Op == AssignElement && ty.IsCollection() && ty.Frozen:
		return Errorf(a.Column.Pos, "Invalid operation (%s[%s] = %s) for frozen collection column %s", c.Name, a.Key.Text, a.Value.Text, c.Name)
	case a.Op == AssignElement && ty.Kind == Set:
		return Errorf(a.Column.Pos, "Invalid operation (%s[%s] = %s) for set column %s", c.Name, a.Key.Text, a.Value.Text, c.Name)
	case (a.Op == AssignAdd || a.Op == AssignSub) && ty.IsCollection() && ty.Frozen:
		sign := "+"
		if a.Op == AssignSub {
			sign = "-"
		}
		return Errorf(a.Column.Pos, "Invalid operation (%s = %s %s %s) for frozen collection column %s", c.Name, c.Name, sign, a.Value.Text, c.Name)
	case a.Op == AssignField && ty.Kind == UDT && ty.Frozen:
		return Errorf(a.Column.Pos, "Invalid operation (%s.%s = %s) for frozen UDT column %s", c.Name, a.Field.Name, a.Value.Text, c.Name)
	case a.Op == AssignField && ty.Kind == UDT:
		if ut := lc.userTypeOf(ty); ut != nil && !ut.hasField(a.Field.Name) {
			return Errorf(a.Field.Pos, "UDT column %s does not have a field named %s", c.Name, a.Field.Name)
		}
	}
	return nil
}

// userTypeOf returns the user type ty names in the checker's keyspace, nil when unknown.
func (lc literalChecker) userTypeOf(ty Type) *UserType {
	if lc.ks == nil || ty.Kind != UDT || (ty.Keyspace != "" && ty.Keyspace != lc.ks.Name) {
		return nil
	}
	return lc.ks.Types[ty.Name]
}

func (ut *UserType) hasField(name string) bool {
	for _, f := range ut.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// checkConditionColumns refuses IF conditions on columns the table does not have.
func checkConditionColumns(t *Table, rs []*Relation) error {
	for _, r := range rs {
		if r.Kind == RelColumn || r.Kind == RelElement || r.Kind == RelField {
			if col := r.Column(); !col.IsZero() && t.Column(col.Name) == nil {
				return undefined(t, col)
			}
		}
	}
	return nil
}

func checkDelete(lc literalChecker, t *Table, st *Delete) error {
	onlyStatic := true
	for _, d := range st.Columns {
		c := t.Column(d.Column.Name)
		if c == nil {
			return undefined(t, d.Column)
		}
		if isKey(c) {
			return Errorf(d.Column.Pos, "Invalid identifier %s for deletion (should not be a PRIMARY KEY part)", c.Name)
		}
		if d.Key != nil && c.Type.Kind == Set {
			// An element of a set is deleted by its value, not by an index.
			if err := lc.check(c.Type.Params[0], d.Key, "value("+c.Name+")"); err != nil {
				return err
			}
		}
		if !d.Field.IsZero() {
			if ut := lc.userTypeOf(c.Type); ut != nil && !ut.hasField(d.Field.Name) {
				return Errorf(d.Field.Pos, "UDT column %s does not have a field named %s", c.Name, d.Field.Name)
			}
		}
		if c.Kind != Static {
			onlyStatic = false
		}
	}
	if err := checkConditionColumns(t, st.If); err != nil {
		return err
	}
	if len(st.Columns) == 0 {
		onlyStatic = false
	}
	return checkWhere(lc, t, st.Where, "DELETE", onlyStatic, len(st.Columns) == 0)
}

// checkWhere checks the WHERE clause of an UPDATE or DELETE: known primary key columns,
// the whole partition key by = or IN, and the clustering key as the statement needs it
// (all of it by = or IN for UPDATE and column deletions; a prefix and a range for row
// deletions). Statements with token(), tuples or custom expressions are the node's.
func checkWhere(lc literalChecker, t *Table, where []*Relation, verb string, onlyStatic, rangeOK bool) error {
	eq := map[string]bool{}
	restricted := map[string]bool{}
	var first *Relation
	for _, r := range where {
		if first == nil {
			first = r
		}
		if r.Kind != RelColumn {
			if r.Kind == RelTuple {
				for _, col := range r.Columns {
					if t.Column(col.Name) == nil {
						return undefined(t, col)
					}
				}
			}
			return nil
		}
		col := r.Columns[0]
		c := t.Column(col.Name)
		if c == nil {
			return undefined(t, col)
		}
		if !isKey(c) {
			return Errorf(col.Pos, "Non PRIMARY KEY columns found in where clause: %s ", c.Name)
		}
		restricted[c.Name] = true
		switch r.Op {
		case OpEq, OpIn:
			eq[c.Name] = true
			if err := lc.check(c.Type, r.Value, c.Name); err != nil {
				return err
			}
			for _, in := range r.In {
				if err := lc.check(c.Type, in, c.Name); err != nil {
					return err
				}
			}
		default:
			if !r.Op.IsSlice() {
				return nil
			}
			if c.Kind == PartitionKey {
				return Errorf(r.Pos, "Only EQ and IN relation are supported on the partition key (unless you use the token() function) for %s statements", verb)
			}
			if !rangeOK {
				if verb == "UPDATE" {
					return Errorf(r.Pos, "Slice restrictions are not supported on the clustering columns in UPDATE statements")
				}
				return Errorf(r.Pos, "Range deletions are not supported for specific columns")
			}
		}
	}
	pos := Pos{}
	if first != nil {
		pos = first.Pos
	}
	if missing := missingColumns(t.PartitionKey, eq); missing != "" {
		return Errorf(pos, "Some partition key parts are missing: %s", missing)
	}
	if onlyStatic && verb == "UPDATE" && !noneGiven(t.Clustering, restricted) {
		return Errorf(pos, "Invalid restrictions on clustering columns since the UPDATE statement modifies only static columns")
	}
	for i := 1; i < len(t.Clustering); i++ {
		if restricted[t.Clustering[i].Name] && !restricted[t.Clustering[i-1].Name] {
			return Errorf(pos, "PRIMARY KEY column %q cannot be restricted as preceding column %q is not restricted", t.Clustering[i].Name, t.Clustering[i-1].Name)
		}
	}
	if rangeOK || (onlyStatic && noneGiven(t.Clustering, restricted)) {
		return nil
	}
	if missing := missingColumns(t.Clustering, eq); missing != "" {
		if verb == "DELETE" {
			return Errorf(pos, "Range deletions are not supported for specific columns")
		}
		return Errorf(pos, "Some clustering keys are missing: %s", missing)
	}
	return nil
}

// checkUsing checks USING TTL (when allowed) and USING TIMESTAMP constants.
func checkUsing(t *Table, u Using, ttlAllowed bool) error {
	if v := u.Timestamp; v != nil && v.Kind == TermLiteral && v.Lit == TokInt {
		if err := intInRange(v, math.MinInt64, math.MaxInt64, "long"); err != nil {
			return err
		}
		if v.Value == "-9223372036854775808" {
			return Errorf(v.Pos, "Out of bound timestamp, must be in [-9223372036854775807, 9223372036854775807]")
		}
	}
	v := u.TTL
	if !ttlAllowed || v == nil || v.Kind != TermLiteral || v.Lit != TokInt {
		return nil
	}
	if err := intInRange(v, math.MinInt32, math.MaxInt32, "int"); err != nil {
		return err
	}
	ttl, _ := new(big.Int).SetString(v.Value, 10)
	switch n := ttl.Int64(); {
	case n < 0:
		return Errorf(v.Pos, "A TTL must be greater or equal to 0, but was %d", n)
	case n > options.MaxTTL:
		return Errorf(v.Pos, "ttl is too large. requested (%d) maximum (%d)", n, options.MaxTTL)
	case n > 0 && now().Unix()+n > maxDeletionTime:
		return Errorf(v.Pos, "Request on table %s with ttl of %d seconds exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00 "+
			"(5.0's default storage_compatibility_mode CASSANDRA_4 rejects expiry past 2038, CASSANDRA-14092)", t.QualifiedName(), n)
	}
	return nil
}
