package denorm

import (
	"errors"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
)

// WritePlan is a write plan as `cqlsize design` writes it (writeplan.yaml): for each entity,
// the tables one write of it fans out to, each with the derive rules that fill its key
// columns from the entity's row. Loaded against a schema that holds the entities and the
// design's tables, it gives the Mappings a Model writes with, so a service writes what the
// design says without restating it.
type WritePlan struct {
	File     string
	Entities []*PlannedEntity
}

// PlannedEntity is one entity of a write plan.
type PlannedEntity struct {
	Name     string // as the plan names it: "app.orders"
	Tables   []string
	Programs []*derive.Program // one per table, in the same order
	// Source is the entity's home, the table of Tables that holds every row once keyed by
	// the entity's primary key (marked source: true): the mappings read an entity back
	// from it. "" when the plan has no home for the entity (see home.go).
	Source string
	// Tiers, one per table in the same order, is the table's TierPlan when the plan puts
	// its keys on tiers, else nil.
	Tiers []*TierPlan
}

// Mappings are the entity's mappings over Values, one per table: New[Values](session,
// schema, opts, e.Mappings()...) builds the Model that writes an entity row everywhere,
// and reads it back from the Source (Load, UpdateStored, DeleteByKey). New refuses a
// subset of them that leaves out every table holding all the entity's rows.
//
// A table on tiers writes each row by its key's tier, which is data in the tier table: pass
// that table's *Tiers (NewTiers), which reads and caches the keys' tiers. Without it, the
// table's writes fail rather than put a hot key's rows where its readers do not look.
func (e *PlannedEntity) Mappings(tiers ...*Tiers) []Mapping[Values] {
	out := make([]Mapping[Values], len(e.Programs))
	for i, p := range e.Programs {
		if i < len(e.Tiers) && e.Tiers[i] != nil {
			out[i] = tieredMapping(p, e.Tiers[i], tiers)
			out[i].plan = &plannedMapping{entity: e.Name, whole: holdsEveryRow(p) == ""}
			continue
		}
		out[i] = MapValues(p)
		out[i].plan = &plannedMapping{entity: e.Name, whole: holdsEveryRow(p) == ""}
		if e.Tables[i] == e.Source {
			out[i] = out[i].Source(homeScan(p))
		}
	}
	return out
}

// TierPlan returns the tiers of the query table named table (as the plan names it, or its
// bare name), or nil when no entry puts that table on tiers.
func (p *WritePlan) TierPlan(table string) *TierPlan {
	for _, match := range []func(string) bool{
		func(n string) bool { return n == table },
		func(n string) bool { return bare(n) == bare(table) },
	} {
		for _, e := range p.Entities {
			for i, t := range e.Tiers {
				if t != nil && (match(e.Tables[i]) || match(t.Query)) {
					return t
				}
			}
		}
	}
	return nil
}

// Entity returns the entity a plan names, by its name as written or its bare table name.
func (p *WritePlan) Entity(name string) *PlannedEntity {
	for _, e := range p.Entities {
		if e.Name == name {
			return e
		}
	}
	for _, e := range p.Entities {
		if bare(e.Name) == bare(name) {
			return e
		}
	}
	return nil
}

func bare(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '.' {
			return name[i+1:]
		}
	}
	return name
}

// LoadWritePlan reads a write plan file and compiles its rules against schema (see
// ParseWritePlan).
func LoadWritePlan(path string, schema *cql.Schema) (*WritePlan, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read write plan: %w", err)
	}
	return ParseWritePlan(path, src, schema)
}

// ParseWritePlan reads a write plan:
//
//	version: 1
//	entities:
//	  app.orders:
//	    - table: app.orders_by_customer_id
//	      derive:
//	        - customer_id=customer_id
//	        - week=week(created_at)
//	    - table: app.orders_by_product
//	      derive:
//	        - product_id=each(product_ids)
//	        - bucket=month(created_at)
//	        - shard=shard(order_id, 1)
//	      tiers: {table: app.orders_by_product_tiers, default: {bucket: month}, hot: {bucket: hour, shards: 4}, promote_over: 200/day}
//
// and compiles each table's rules (cql/derive) against schema, which must hold the entity
// and its tables. A table with tiers: (TierPlan) writes each key's rows with the bucket
// width and shards of the key's tier; the rules' bucket and shard rules name the time and
// the id they are cut from, and the default tier's scheme. Every problem is an error naming
// file:line:col: a rule that does not parse or fit the tables, an entity or table the
// schema lacks, tiers that do not fit the rules or a tier table of another layout.
func ParseWritePlan(file string, src []byte, schema *cql.Schema) (*WritePlan, error) {
	if schema == nil {
		return nil, fmt.Errorf("write plan %s: no schema", file)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, cql.Errorf(cql.Pos{File: file, Line: 1, Col: 1}, "read write plan: %v", err)
	}
	at := func(n *yaml.Node) cql.Pos { return cql.Pos{File: file, Line: n.Line, Col: n.Column} }
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, cql.Errorf(cql.Pos{File: file, Line: 1, Col: 1}, "write plan: want a mapping with version: 1 and entities:")
	}
	root := doc.Content[0]
	plan := &WritePlan{File: file}
	var errs []error
	var entities *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "version":
			if v.Value != "1" {
				errs = append(errs, cql.Errorf(at(v), "write plan: version %q: this cqlsize reads version 1", v.Value))
			}
		case "entities":
			entities = v
		default:
			errs = append(errs, cql.Errorf(at(k), "write plan: unknown field %q (want version, entities)", k.Value))
		}
	}
	if entities == nil || entities.Kind != yaml.MappingNode {
		return nil, errors.Join(append(errs, cql.Errorf(at(root), "write plan: want entities: a mapping from entity table to the tables it is written to"))...)
	}
	for i := 0; i+1 < len(entities.Content); i += 2 {
		k, v := entities.Content[i], entities.Content[i+1]
		e, err := plannedEntity(schema, k.Value, v, at)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, ok := schema.FindTable(k.Value); !ok {
			errs = append(errs, cql.Errorf(at(k), "write plan: entity %s is not in the schema", k.Value))
			continue
		}
		plan.Entities = append(plan.Entities, e)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return plan, nil
}

// plannedEntity compiles the tables of one entity.
func plannedEntity(schema *cql.Schema, name string, v *yaml.Node, at func(*yaml.Node) cql.Pos) (*PlannedEntity, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, cql.Errorf(at(v), "write plan: %s: want a list of {table, derive}", name)
	}
	e := &PlannedEntity{Name: name}
	var errs []error
	for _, item := range v.Content {
		var table string
		var tablePos cql.Pos
		var rules []string
		var rulePos []cql.Pos
		var source *yaml.Node
		var tiers *yaml.Node
		for i := 0; item.Kind == yaml.MappingNode && i+1 < len(item.Content); i += 2 {
			k, val := item.Content[i], item.Content[i+1]
			switch k.Value {
			case "table":
				table, tablePos = val.Value, at(val)
			case "derive":
				for _, r := range val.Content {
					rules = append(rules, r.Value)
					rulePos = append(rulePos, at(r))
				}
			case "source":
				source = val
			case "tiers":
				tiers = val
			default:
				errs = append(errs, cql.Errorf(at(k), "write plan: %s: unknown field %q (want table, source, derive, tiers)", name, k.Value))
			}
		}
		if table == "" {
			errs = append(errs, cql.Errorf(at(item), "write plan: %s: an entry without table:", name))
			continue
		}
		p, err := Derive(schema, name, table, rules...)
		if err != nil {
			pos := tablePos
			var de *derive.Error
			if errors.As(err, &de) && de.Rule >= 0 && de.Rule < len(rulePos) {
				pos = rulePos[de.Rule]
				pos.Col += max(de.Col-1, 0)
			}
			errs = append(errs, cql.Errorf(pos, "write plan: %s -> %s: %v", name, table, err))
			continue
		}
		if err := markSource(e, table, p, source, at); err != nil {
			errs = append(errs, err)
		}
		var tp *TierPlan
		if tiers != nil {
			if tp, err = parseTierPlan(schema, p, tiers, at); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		e.Tables = append(e.Tables, table)
		e.Programs = append(e.Programs, p)
		e.Tiers = append(e.Tiers, tp)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := checkHome(e, v, at); err != nil {
		return nil, err
	}
	return e, nil
}
