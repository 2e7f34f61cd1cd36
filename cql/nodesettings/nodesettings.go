// Package nodesettings decides, from a node's settings (the name and value pairs of
// system_views.settings), which statements of a history the node will refuse, before
// anything is sent. A node with a default 5.0 cassandra.yaml refuses SASI indexes, user
// defined functions, materialized views and masked columns; an operator may also set
// guardrails (how many tables, columns per table, items per collection, ...). Without this
// check a migration run learns that from the node statement by statement and stops half
// applied: the keyspace created, the first tables there, the SASI index refused.
//
// The package is pure: the caller reads the settings (cql/liveschema.ReadSettings) and
// says whether the guardrails bind the role it connects as. Cassandra applies guardrails
// to ordinary roles only: never to a superuser, and not at all on a node that requires no
// authentication (every client then counts as a superuser).
package nodesettings

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Settings are a node's settings by name, as system_views.settings lists them (a null
// value is absent).
type Settings map[string]string

// Input is what Check judges.
type Input struct {
	Settings Settings
	// Guardrails is true when the guardrails bind the connected role: the node requires
	// authentication and the role is not a superuser.
	Guardrails bool
	// Schema is the cluster's schema before the statements run (read from system_schema);
	// Check works on a copy. Its Current is the keyspace unqualified names resolve in.
	Schema *cql.Schema
	// Statements are the statements about to run, in order.
	Statements []cql.Statement
}

// Refusal is one statement the node will refuse, and the setting that makes it refuse.
type Refusal struct {
	Pos     cql.Pos // the statement's first token (or the clause at fault)
	Setting string  // e.g. sasi_indexes_enabled
	Value   string  // the setting's value on the node
	Why     string  // what the node refuses, in words
	Fix     string  // what to do instead
}

// Error renders the refusal as file:line:col: what, setting = value; fix.
func (r Refusal) Error() string {
	return fmt.Sprintf("%s: %s: the node has %s = %s; %s", r.Pos, r.Why, r.Setting, r.Value, r.Fix)
}

// Check returns every statement of in.Statements the node will refuse for its settings, in
// statement order (a statement may be refused for more than one setting). Each statement
// is applied to a copy of the schema after it is judged, so counts (tables, columns,
// indexes) include what the earlier statements create; a statement the schema model
// refuses is left to the model check and not applied here.
func Check(in Input) []Refusal {
	c := &checker{s: in.Settings, guard: in.Guardrails}
	if in.Schema != nil {
		c.schema = in.Schema.Clone()
	} else {
		c.schema = cql.NewSchema()
	}
	for _, st := range in.Statements {
		c.statement(st)
		_ = c.schema.Apply(st)
	}
	return c.out
}

type checker struct {
	s      Settings
	guard  bool
	schema *cql.Schema
	out    []Refusal
}

// disabled reports whether a boolean setting is present and false. An absent setting (an
// older node, or one that did not list it) refuses nothing.
func (c *checker) disabled(name string) bool {
	v, ok := c.s[name]
	return ok && strings.EqualFold(strings.TrimSpace(v), "false")
}

// threshold returns a guardrail's fail threshold, and false when it is not set (absent,
// null or -1, Cassandra's "disabled") or the guardrails do not bind this role.
func (c *checker) threshold(name string) (int, bool) {
	if !c.guard {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(c.s[name]))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

func (c *checker) refuse(pos cql.Pos, setting, why, fix string) {
	c.out = append(c.out, Refusal{Pos: pos, Setting: setting, Value: c.s[setting], Why: why, Fix: fix})
}

// over refuses when value passes the guardrail's fail threshold (Cassandra fails a
// statement whose value is greater than the threshold).
func (c *checker) over(pos cql.Pos, setting string, value int, what string) {
	if n, ok := c.threshold(setting); ok && value > n {
		c.refuse(pos, setting, fmt.Sprintf("%s would be %d, over the guardrail's fail threshold of %d", what, value, n),
			"stay within it, or have the operator raise "+setting+" (guardrails do not bind superusers)")
	}
}

// enabledGuard refuses when a boolean guardrail is set to false and binds this role.
func (c *checker) enabledGuard(pos cql.Pos, setting, what string) {
	if c.guard && c.disabled(setting) {
		c.refuse(pos, setting, what+" is disallowed by a guardrail",
			"leave it out, or have the operator set "+setting+": true (guardrails do not bind superusers)")
	}
}

func (c *checker) statement(st cql.Statement) {
	pos := st.Info().Pos
	switch s := st.(type) {
	case *cql.CreateIndex:
		c.createIndex(pos, s)
	case *cql.CreateFunction:
		if c.disabled("user_defined_functions_enabled") {
			c.refuse(pos, "user_defined_functions_enabled", "CREATE FUNCTION "+s.Name.String()+": user defined functions are disabled",
				"set user_defined_functions_enabled: true in cassandra.yaml on every node, or compute it in the application")
		}
	case *cql.CreateView:
		c.createView(pos, s)
	case *cql.CreateTable:
		c.createTable(pos, s)
	case *cql.AlterTable:
		c.alterTable(pos, s)
	case *cql.CreateKeyspace:
		c.keyspace(pos, s.Properties)
		c.over(pos, "keyspaces_fail_threshold", len(c.schema.Keyspaces)+1, "the number of keyspaces")
	case *cql.AlterKeyspace:
		c.keyspace(pos, s.Properties)
	case *cql.DropKeyspace:
		c.enabledGuard(pos, "drop_keyspace_enabled", "DROP KEYSPACE")
	case *cql.DropTable:
		c.enabledGuard(pos, "drop_truncate_table_enabled", "DROP TABLE")
	case *cql.Truncate:
		c.enabledGuard(pos, "drop_truncate_table_enabled", "TRUNCATE")
	case *cql.CreateType:
		c.over(pos, "fields_per_udt_fail_threshold", len(s.Fields), "the number of fields of type "+s.Name.String())
		for _, f := range s.Fields {
			c.vector(f.TypePos, f.Type)
		}
	case *cql.AlterUserType:
		if s.Action == cql.AlterTypeAdd {
			if ut := c.userType(s.Name); ut != nil {
				c.over(pos, "fields_per_udt_fail_threshold", len(ut.Fields)+1, "the number of fields of type "+s.Name.String())
			}
		}
	case *cql.Insert:
		c.write(pos, s.Using, s.Values)
	case *cql.Update:
		var vals []*cql.Term
		for _, a := range s.Set {
			vals = append(vals, a.Value)
		}
		c.write(pos, s.Using, vals)
	case *cql.Delete:
		c.write(pos, s.Using, nil)
	case *cql.Batch:
		c.write(pos, s.Using, nil)
		for _, inner := range s.Statements {
			c.statement(inner)
		}
	}
}

func (c *checker) createIndex(pos cql.Pos, s *cql.CreateIndex) {
	if s.Custom && strings.HasSuffix(strings.ToLower(s.Using), "sasiindex") && c.disabled("sasi_indexes_enabled") {
		c.refuse(pos, "sasi_indexes_enabled", "SASI index on "+s.Table.String()+": SASI indexes are disabled",
			"use USING 'sai' (StorageAttachedIndex), or set sasi_indexes_enabled: true in cassandra.yaml on every node")
	}
	if !s.Custom {
		c.enabledGuard(pos, "secondary_indexes_enabled", "a secondary index (CREATE INDEX without USING)")
	}
	if t := c.table(s.Table); t != nil {
		n := 0
		for _, ix := range c.keyspace0(s.Table).Indexes {
			if ix.Table == t.Name {
				n++
			}
		}
		c.over(pos, "secondary_indexes_per_table_fail_threshold", n+1, "the number of secondary indexes on "+t.QualifiedName())
	}
}

func (c *checker) createView(pos cql.Pos, s *cql.CreateView) {
	if c.disabled("materialized_views_enabled") {
		c.refuse(pos, "materialized_views_enabled", "materialized view "+s.Name.String()+": materialized views are disabled",
			"write the query table from the application (a denormalized table), or set materialized_views_enabled: true in cassandra.yaml on every node")
	}
	if ks := c.keyspace0(s.Base); ks != nil && ks.Tables[s.Base.Name.Name] != nil {
		n := 0
		for _, v := range ks.Views {
			if v.BaseTable == s.Base.Name.Name {
				n++
			}
		}
		c.over(pos, "materialized_views_per_table_fail_threshold", n+1, "the number of materialized views on "+s.Base.String())
	}
}

func (c *checker) createTable(pos cql.Pos, s *cql.CreateTable) {
	for _, col := range s.Columns {
		c.masked(col.Name.Pos, col.Mask, col.Name.Name)
		c.vector(col.TypePos, col.Type)
	}
	if s.CompactStorage {
		c.enabledGuard(pos, "compact_tables_enabled", "WITH COMPACT STORAGE")
	}
	c.properties(s.Properties)
	if ks := c.keyspace0(s.Name); ks == nil || ks.Tables[s.Name.Name.Name] == nil {
		c.over(pos, "tables_fail_threshold", c.userTables()+1, "the number of tables")
	}
	c.over(pos, "columns_per_table_fail_threshold", len(s.Columns), "the number of columns of "+s.Name.String())
}

func (c *checker) alterTable(pos cql.Pos, s *cql.AlterTable) {
	c.enabledGuard(pos, "alter_table_enabled", "ALTER TABLE")
	switch s.Action {
	case cql.AlterAdd:
		// No masking check here: a 5.0.9 node with masking off accepts ALTER TABLE ... ADD
		// of a MASKED WITH column (it refuses the mask in CREATE TABLE and ALTER ... MASKED).
		for _, col := range s.Add {
			c.vector(col.TypePos, col.Type)
		}
		if t := c.table(s.Name); t != nil {
			n := len(t.Columns)
			for _, col := range s.Add {
				if t.Column(col.Name.Name) == nil {
					n++
				}
			}
			c.over(pos, "columns_per_table_fail_threshold", n, "the number of columns of "+s.Name.String())
		}
	case cql.AlterMask:
		if s.Mask != "" {
			c.masked(pos, s.Mask, s.Column.Name)
		}
	case cql.AlterWith:
		c.properties(s.Properties)
	}
}

// masked refuses a MASKED WITH clause on a node with dynamic data masking off.
func (c *checker) masked(pos cql.Pos, mask, column string) {
	if mask != "" && c.disabled("dynamic_data_masking_enabled") {
		c.refuse(pos, "dynamic_data_masking_enabled", fmt.Sprintf("column %s MASKED WITH %s: dynamic data masking is disabled", cql.QuoteName(column), mask),
			"drop the MASKED WITH clause (mask in the application), or set dynamic_data_masking_enabled: true in cassandra.yaml on every node")
	}
}

// vector judges a vector type (anywhere in t) against the vector guardrails.
func (c *checker) vector(pos cql.Pos, t cql.Type) {
	if t.Name == "vector" {
		c.enabledGuard(pos, "vector_type_enabled", "the vector type")
		c.over(pos, "vector_dimensions_fail_threshold", t.Dim, "the vector's dimensions")
	}
	for _, p := range t.Params {
		c.vector(pos, p)
	}
}

// properties judges table options against table_properties_disallowed.
func (c *checker) properties(props []*cql.Property) {
	if !c.guard {
		return
	}
	list := strings.Trim(strings.TrimSpace(c.s["table_properties_disallowed"]), "[]")
	if list == "" {
		return
	}
	for _, p := range props {
		for _, d := range strings.Split(list, ",") {
			if strings.EqualFold(strings.TrimSpace(d), p.Name.Name) {
				c.refuse(p.Pos, "table_properties_disallowed", "table option "+p.Name.Name+" is disallowed by a guardrail",
					"leave the option out (the table takes the node's default), or have the operator allow it")
			}
		}
	}
}

// keyspace judges replication against simplestrategy_enabled, transient_replication_enabled
// and the replication factor guardrails.
func (c *checker) keyspace(pos cql.Pos, props []*cql.Property) {
	for _, p := range props {
		if !strings.EqualFold(p.Name.Name, "replication") {
			continue
		}
		for _, e := range p.Map {
			k, v := strings.ToLower(e.Key), e.Value
			switch {
			case k == "class":
				if strings.HasSuffix(v, "SimpleStrategy") {
					c.enabledGuard(p.Pos, "simplestrategy_enabled", "SimpleStrategy")
				}
			case strings.Contains(v, "/") && c.disabled("transient_replication_enabled"):
				// A factor "full/transient" asks for transient replicas, an experimental
				// feature a node refuses unless cassandra.yaml enables it.
				c.refuse(e.ValuePos, "transient_replication_enabled",
					fmt.Sprintf("replication %q = '%s' asks for transient replicas: transient replication is not enabled on this node", e.Key, v),
					"give a whole number of full replicas, or set transient_replication_enabled: true in cassandra.yaml on every node")
			default:
				if rf, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					c.over(p.Pos, "maximum_replication_factor_fail_threshold", rf, "the replication factor ("+e.Key+")")
					if n, ok := c.threshold("minimum_replication_factor_fail_threshold"); ok && rf < n {
						c.refuse(p.Pos, "minimum_replication_factor_fail_threshold",
							fmt.Sprintf("the replication factor (%s) would be %d, under the guardrail's minimum of %d", e.Key, rf, n),
							"raise the replication factor, or have the operator lower the minimum (guardrails do not bind superusers)")
					}
				}
			}
		}
	}
}

// write judges a data statement: USING TIMESTAMP and the items of literal collections.
func (c *checker) write(pos cql.Pos, u cql.Using, values []*cql.Term) {
	if u.Timestamp != nil {
		c.enabledGuard(u.Timestamp.Pos, "user_timestamps_enabled", "USING TIMESTAMP")
	}
	for _, v := range values {
		if v == nil {
			continue
		}
		switch v.Kind {
		case cql.TermList, cql.TermSet, cql.TermMap:
			c.over(v.Pos, "items_per_collection_fail_threshold", len(v.Items), "the number of items in the collection")
		}
	}
}

func (c *checker) keyspace0(q cql.QualifiedName) *cql.Keyspace {
	ks := q.Keyspace.Name
	if q.Keyspace.IsZero() {
		ks = c.schema.Current
	}
	return c.schema.Keyspaces[ks]
}

func (c *checker) table(q cql.QualifiedName) *cql.Table {
	if ks := c.keyspace0(q); ks != nil {
		return ks.Tables[q.Name.Name]
	}
	return nil
}

func (c *checker) userType(q cql.QualifiedName) *cql.UserType {
	if ks := c.keyspace0(q); ks != nil {
		return ks.Types[q.Name.Name]
	}
	return nil
}

// userTables counts the tables of every keyspace the schema holds (a schema read from the
// node holds the user keyspaces only).
func (c *checker) userTables() int {
	n := 0
	for _, ks := range c.schema.Keyspaces {
		n += len(ks.Tables)
	}
	return n
}
