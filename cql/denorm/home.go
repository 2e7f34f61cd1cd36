package denorm

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
)

// An entity written only to query tables can lose rows without an error: a rating with no
// tags makes no row in a table keyed by tag, and a table keyed by a column the entity's key
// does not determine overwrites one row with another. A write plan therefore needs, for
// each entity, a table that holds every row; its home (source: true), the table keyed by
// the entity's own primary key with every column, is also where an entity is read back
// from, so Load, UpdateStored and DeleteByKey need nothing but the plan.

// plannedMapping is what New knows of a mapping that came from a write plan: its entity,
// and whether its table holds every row of it.
type plannedMapping struct {
	entity string
	whole  bool
}

// holdsEveryRow says why a program's table may miss rows of its entity, or "" when each
// entity row makes exactly one row there, a different one for each: no each(), and every
// column of the entity's primary key copied into the table's primary key.
func holdsEveryRow(p *derive.Program) string {
	src := p.SourceTable()
	for _, t := range p.Columns() {
		if t.Expr.Func == derive.Each {
			return fmt.Sprintf("it writes one row per element of %s, so a row whose %s is empty or null makes none", t.Expr.Column, t.Expr.Column)
		}
	}
	copied := map[string]bool{}
	for _, t := range p.Columns() {
		if t.Expr.Func == derive.Copy && (t.Kind == cql.PartitionKey || t.Kind == cql.Clustering) {
			copied[t.Expr.Column] = true
		}
	}
	var missing []string
	for _, c := range keyCols(src) {
		if !copied[c.Name] {
			missing = append(missing, c.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("its primary key leaves out %s of the entity's key, so two rows that differ there overwrite each other", strings.Join(missing, ", "))
	}
	return ""
}

// homeProblem says why a program's table is not its entity's home, or "" when it is: it
// holds every row, its primary key is exactly the entity's key columns copied as they are,
// and it keeps every column of the entity, so a row read from it is the whole entity.
func homeProblem(p *derive.Program) string {
	if why := holdsEveryRow(p); why != "" {
		return why
	}
	src := p.SourceTable()
	key := map[string]bool{}
	for _, c := range keyCols(src) {
		key[c.Name] = true
	}
	kept := map[string]bool{}
	for _, t := range p.Columns() {
		if t.Kind != cql.PartitionKey && t.Kind != cql.Clustering {
			if t.Expr.Func == derive.Copy {
				kept[t.Expr.Column] = true
			}
			continue
		}
		if t.Expr.Func != derive.Copy || !key[t.Expr.Column] {
			return fmt.Sprintf("its key column %s is %s, not a column of the entity's primary key (%s)", t.Column, t.Expr, keyNames(src))
		}
		kept[t.Expr.Column] = true
	}
	var missing []string
	for _, c := range src.Columns {
		if !kept[c.Name] {
			missing = append(missing, c.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("it does not keep %s, so an entity read from it would lack them", strings.Join(missing, ", "))
	}
	return ""
}

func keyCols(t *cql.Table) []*cql.Column {
	return append(append([]*cql.Column{}, t.PartitionKey...), t.Clustering...)
}

func keyNames(t *cql.Table) string {
	var names []string
	for _, c := range keyCols(t) {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// markSource records table as e's Source when its entry says source: true, and refuses a
// value that is not a boolean, a second source, and a table that is no home.
func markSource(e *PlannedEntity, table string, p *derive.Program, v *yaml.Node, at func(*yaml.Node) cql.Pos) error {
	if v == nil {
		return nil
	}
	var on bool
	if v.Kind != yaml.ScalarNode || v.Decode(&on) != nil {
		return cql.Errorf(at(v), "write plan: %s -> %s: source: %q: want true or false", e.Name, table, v.Value)
	}
	if !on {
		return nil
	}
	if e.Source != "" {
		return cql.Errorf(at(v), "write plan: %s -> %s: a second source (%s is one): an entity is read back from one table", e.Name, table, e.Source)
	}
	if why := homeProblem(p); why != "" {
		return cql.Errorf(at(v), "write plan: %s -> %s: source: true, but the source must hold every row once keyed by the entity's primary key (%s) with every column: %s", e.Name, table, keyNames(p.SourceTable()), why)
	}
	e.Source = table
	return nil
}

// checkHome refuses an entity no table of which holds every row: the plan would drop rows
// without an error. An entity with no source: true gets the one table that is a home as
// its source (a plan written before source: was), when there is exactly one.
func checkHome(e *PlannedEntity, v *yaml.Node, at func(*yaml.Node) cql.Pos) error {
	var whole, homes []string
	var whys []string
	for i, p := range e.Programs {
		why := holdsEveryRow(p)
		if why == "" {
			whole = append(whole, e.Tables[i])
		} else {
			whys = append(whys, e.Tables[i]+": "+why)
		}
		if homeProblem(p) == "" {
			homes = append(homes, e.Tables[i])
		}
	}
	if len(whole) == 0 {
		key := ""
		if len(e.Programs) > 0 {
			key = keyNames(e.Programs[0].SourceTable())
		}
		return cql.Errorf(at(v), "write plan: %s: no table holds every row, so rows would be dropped without an error (%s); add the entity's home, a table keyed by its primary key (%s) with every column, marked source: true, as cqlsize design writes it",
			e.Name, strings.Join(whys, "; "), key)
	}
	if e.Source == "" && len(homes) == 1 {
		e.Source = homes[0]
	}
	return nil
}

// homeScan turns a row read from the home back into the entity's row: each entity column
// from the home column it was copied into.
func homeScan(p *derive.Program) func(Values) (*Values, error) {
	from := map[string]string{} // home column -> entity column
	for _, t := range p.Columns() {
		if t.Expr.Func == derive.Copy {
			from[t.Column] = t.Expr.Column
		}
	}
	return func(row Values) (*Values, error) {
		out := make(Values, len(from))
		for c, v := range row {
			if ec, ok := from[c]; ok {
				out[ec] = v
			}
		}
		return &out, nil
	}
}
