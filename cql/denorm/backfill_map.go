package denorm

import (
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
)

// Derive compiles rules (TARGET=EXPR, as derive.ParseRule reads them) for filling the
// target table from rows of the source table, both named in schema (optionally
// keyspace.table). Columns of target that no rule names are taken from source by name.
// A rule that does not parse or does not fit the tables is a *derive.Error, wrapped with
// the rule's text.
func Derive(schema *cql.Schema, source, target string, rules ...string) (*derive.Program, error) {
	if schema == nil {
		return nil, fmt.Errorf("derive %s from %s: no schema", target, source)
	}
	src, ok := schema.FindTable(source)
	if !ok {
		return nil, &SchemaError{Table: source, Msg: "not found in the schema (or ambiguous: qualify it as keyspace.table)"}
	}
	dst, ok := schema.FindTable(target)
	if !ok {
		return nil, &SchemaError{Table: target, Msg: "not found in the schema (or ambiguous: qualify it as keyspace.table)"}
	}
	parsed := make([]derive.Rule, len(rules))
	for i, text := range rules {
		r, err := derive.ParseRule(text)
		if err != nil {
			return nil, fmt.Errorf("rule %q: %w", text, err)
		}
		parsed[i] = r
	}
	p, err := derive.Compile(src, dst, parsed)
	if err != nil {
		if e, ok := err.(*derive.Error); ok && e.Rule >= 0 {
			return nil, fmt.Errorf("rule %q: %w", rules[e.Rule], err)
		}
		return nil, fmt.Errorf("derive %s from %s: %w", target, source, err)
	}
	return p, nil
}

// MapValues maps a row of the program's source table, read as Values, to the rows of its
// target table: the Mapping a service's dual writes and a backfill share, so both write the
// same derived keys. A null value, or one a rule derives from a null, is left unset.
func MapValues(p *derive.Program) Mapping[Values] {
	dst := p.TargetTable()
	name := dst.Name
	if dst.Keyspace != "" {
		name = dst.Keyspace + "." + dst.Name
	}
	return Map(name, func(e *Values, out *Rows) error {
		return p.Expand(*e, func(r map[string]any, _ []int) error {
			row := out.Add()
			for c, v := range r {
				row.Set(c, v)
			}
			return nil
		})
	})
}
