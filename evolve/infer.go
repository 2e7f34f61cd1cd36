package evolve

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
)

// Derived is how one column of the new table is filled from the old one's row, when not
// simply by name.
type Derived struct {
	Column string `json:"column"`
	Expr   string `json:"expr"`
	// Given is true for a rule the caller passed, false for one inferred.
	Given bool `json:"given"`
	// Why says, for an inferred rule, what it was inferred from.
	Why string `json:"why,omitempty"`
}

// Rule renders the derive rule, COL=EXPR, as derive.ParseRule reads it.
func (d Derived) Rule() string { return d.Column + "=" + d.Expr }

// NeedError is a key column of the new table that the old one does not have and no rule
// could be inferred for: the user must say how it is filled.
type NeedError struct {
	Pos    cql.Pos // where the new table declares the column
	Table  string
	Column string
	Msg    string // why no rule fits
	Want   string // the shape of the rule to give, such as shard=shard(COL, N)
}

func (e *NeedError) Error() string {
	return fmt.Sprintf("%s: %s needs a derive rule: %s: give one such as %s", e.Pos, e.Column, e.Msg, e.Want)
}

// RuleError is a given rule that does not parse or does not fit the tables.
type RuleError struct {
	Rule string // as given
	Err  error  // a *derive.Error
}

func (e *RuleError) Error() string { return fmt.Sprintf("rule %q: %v", e.Rule, e.Err) }

func (e *RuleError) Unwrap() error { return e.Err }

// bucketWidths are the derive functions that cut time into buckets, by the name a bucket
// column carries (month, created_month, day_bucket...).
var bucketWidths = []derive.Func{derive.Year, derive.Month, derive.Week, derive.Day, derive.Hour}

// Infer returns the rules that fill every key column of dst that src does not have by name:
// the given rules first (as the caller wrote them), then one inferred per remaining
// column, by name and type:
//
//   - a column named for a bucket width (month, day, created_month, hour_bucket, ...) gets
//     that width of src's time column (timestamp, date or timeuuid), preferring one that is
//     also a key column of dst (a timeline is cut from its clustering time);
//   - a column whose type is the element type of one of src's sets or lists gets each() of
//     it, preferring the collection named as the column's plural (hashtag from hashtags);
//   - a shard column needs its shard count, which only the user can choose: it is a
//     NeedError, as is any column none of these fits.
//
// Every rule is then checked against both tables (derive.Compile): a given rule that does
// not fit is a *derive.Error wrapped with its text.
func Infer(src, dst *cql.Table, given []string) ([]Derived, *derive.Program, error) {
	var rules []derive.Rule
	var out []Derived
	named := map[string]bool{}
	for _, text := range given {
		r, err := derive.ParseRule(text)
		if err != nil {
			return nil, nil, &RuleError{Rule: text, Err: err}
		}
		rules = append(rules, r)
		named[r.Target] = true
		out = append(out, Derived{Column: r.Target, Expr: r.Expr.String(), Given: true})
	}
	var errs []error
	for _, c := range dst.Columns {
		if c.Kind != cql.PartitionKey && c.Kind != cql.Clustering || named[c.Name] || src.Column(c.Name) != nil {
			continue
		}
		d, err := inferColumn(src, dst, c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r, err := derive.ParseRule(d.Rule())
		if err != nil {
			return nil, nil, fmt.Errorf("inferred rule %s: %w", d.Rule(), err) // a bug: rules are built to parse
		}
		rules = append(rules, r)
		out = append(out, d)
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	p, err := derive.Compile(src, dst, rules)
	if err != nil {
		var de *derive.Error
		if errors.As(err, &de) && de.Rule >= 0 && de.Rule < len(given) {
			return nil, nil, &RuleError{Rule: given[de.Rule], Err: err}
		}
		return nil, nil, fmt.Errorf("fill %s from %s: %w", dst.QualifiedName(), src.QualifiedName(), err)
	}
	return out, p, nil
}

// inferColumn finds the rule for one key column of dst that src lacks.
func inferColumn(src, dst *cql.Table, c *cql.Column) (Derived, error) {
	need := func(want, format string, args ...any) error {
		return &NeedError{Pos: c.Pos, Table: dst.QualifiedName(), Column: c.Name, Msg: fmt.Sprintf(format, args...), Want: c.Name + "=" + want}
	}
	words := strings.Split(c.Name, "_")
	if slices.Contains(words, "shard") {
		return Derived{}, need("shard(COL, N)", "a shard column holds bucket.Shard of a column of %s over N shards, and N is yours "+
			"to choose (estimate's SZ102 says how many a hot key needs)", src.Name)
	}
	for _, f := range bucketWidths {
		if !slices.Contains(words, f.String()) {
			continue
		}
		from, err := timeSource(src, dst, f)
		if err != nil {
			return Derived{}, need(f.String()+"(COL)", "its name says a %s bucket, but %v", f, err)
		}
		return Derived{Column: c.Name, Expr: derive.Expr{Func: f, Column: from.Name}.String(),
			Why: fmt.Sprintf("%s names a %s bucket; %s is %s's %s %s", c.Name, f, from.Name, src.Name, from.Type, role(dst, from.Name))}, nil
	}
	var byType, byName []*cql.Column
	for _, s := range src.Columns {
		if (s.Type.Kind == cql.Set || s.Type.Kind == cql.List) && len(s.Type.Params) == 1 && elementFits(s.Type.Params[0], c.Type) {
			byType = append(byType, s)
			if cql.Singular(s.Name) == c.Name {
				byName = append(byName, s)
			}
		}
	}
	pick := byName
	if len(pick) == 0 {
		pick = byType
	}
	switch len(pick) {
	case 1:
		s := pick[0]
		return Derived{Column: c.Name, Expr: derive.Expr{Func: derive.Each, Column: s.Name}.String(),
			Why: fmt.Sprintf("%s is a %s: one row per element, its %s in %s", s.Name, s.Type, c.Type, c.Name)}, nil
	case 0:
		return Derived{}, need("EXPR", "%s has no column %s, its name names no bucket (year, month, week, day, hour) "+
			"and no set or list of %s fits it", src.Name, c.Name, c.Type)
	}
	return Derived{}, need("each(COL)", "%s has several sets or lists of %s (%s)", src.Name, c.Type, names(pick))
}

// timeSource picks the column of src a bucket of width f is cut from.
func timeSource(src, dst *cql.Table, f derive.Func) (*cql.Column, error) {
	var all, keys []*cql.Column
	for _, s := range src.Columns {
		if !isNative(s.Type, "timestamp", "timeuuid", "date") || f == derive.Hour && isNative(s.Type, "date") {
			continue
		}
		all = append(all, s)
		if d := dst.Column(s.Name); d != nil && (d.Kind == cql.Clustering || d.Kind == cql.PartitionKey) {
			keys = append(keys, s)
		}
	}
	switch {
	case len(keys) == 1:
		return keys[0], nil
	case len(keys) == 0 && len(all) == 1:
		return all[0], nil
	case len(all) == 0:
		return nil, fmt.Errorf("%s has no timestamp, date or timeuuid column to cut it from", src.Name)
	case len(keys) > 1:
		return nil, fmt.Errorf("%s has several time columns in the new table's key (%s)", src.Name, names(keys))
	}
	return nil, fmt.Errorf("%s has several time columns (%s) and none is in the new table's key", src.Name, names(all))
}

// role describes a column of the new table for an inferred rule's reason.
func role(dst *cql.Table, name string) string {
	c := dst.Column(name)
	switch {
	case c == nil:
		return "column"
	case c.Kind == cql.Clustering:
		return "column, the new table's clustering key"
	case c.Kind == cql.PartitionKey:
		return "column, in the new table's partition key"
	}
	return "column"
}

// elementFits reports whether a collection element of type e can fill a column of type t.
func elementFits(e, t cql.Type) bool {
	e.Frozen, t.Frozen = false, false
	return e.Equal(t) || isNative(e, "ascii") && isNative(t, "text") || isNative(e, "timeuuid") && isNative(t, "uuid")
}

func isNative(t cql.Type, names ...string) bool {
	return t.Kind == cql.Native && slices.Contains(names, t.Name)
}

func names(cols []*cql.Column) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return strings.Join(out, ", ")
}
