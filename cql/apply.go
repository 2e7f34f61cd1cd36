package cql

import (
	"fmt"
	"strings"
)

// Apply applies one statement to the schema, the way Cassandra 5.0 would: DDL changes the
// schema, USE sets the current keyspace, DML and role statements change nothing but must
// name tables that exist. A statement Cassandra would reject is an *Error at the position
// of the offending name, and leaves the schema unchanged.
//
// The rules checked are those a 5.0 node enforces (each one was tried on a real node): a
// missing or existing keyspace, table, type, index or view (unless IF [NOT] EXISTS),
// duplicate columns and fields, primary keys naming undeclared columns, static columns
// without clustering columns, counters beside other columns, non-frozen collections and
// user types where they are not allowed, invalid table options, and more.
func (s *Schema) Apply(stmt Statement) error {
	if s.Keyspaces == nil {
		s.Keyspaces = map[string]*Keyspace{}
	}
	if err := s.checkRelease(stmt); err != nil {
		return err
	}
	if err := s.systemChange(stmt); err != nil {
		return err
	}
	switch st := stmt.(type) {
	case *Use:
		return s.use(st)
	case *CreateKeyspace:
		return s.createKeyspace(st)
	case *AlterKeyspace:
		return s.alterKeyspace(st)
	case *DropKeyspace:
		return s.dropKeyspace(st)
	case *CreateTable:
		return s.createTable(st)
	case *AlterTable:
		return s.alterTable(st)
	case *DropTable:
		return s.dropTable(st)
	case *CreateType:
		return s.createType(st)
	case *AlterUserType:
		return s.alterType(st)
	case *DropType:
		return s.dropType(st)
	case *CreateIndex:
		return s.createIndex(st)
	case *DropIndex:
		return s.dropIndex(st)
	case *CreateView:
		return s.createView(st)
	case *AlterView:
		return s.alterView(st)
	case *DropView:
		return s.dropView(st)
	case *CreateFunction:
		return s.createFunction(st)
	case *DropFunction:
		return s.dropRoutine(st.Name, st.IfExists, st.HasArgs, st.ArgTypes, false)
	case *CreateAggregate:
		return s.createAggregate(st)
	case *DropAggregate:
		return s.dropRoutine(st.Name, st.IfExists, st.HasArgs, st.ArgTypes, true)
	case *Truncate:
		_, _, err := s.findTable(st.Table)
		return err
	case *CreateTrigger:
		_, _, err := s.findTable(st.Table)
		return err
	case *DropTrigger:
		_, _, err := s.findTable(st.Table)
		return err
	case *Select, *Insert, *Update, *Delete, *Batch:
		return s.checkDMLStatement(st)
	case *Auth:
		return s.applyAuth(st)
	case *Describe:
		return nil
	case nil:
		return fmt.Errorf("apply statement: nil statement")
	}
	return Errorf(stmt.Info().Pos, "unsupported statement %T", stmt)
}

// use makes an existing keyspace the current one.
func (s *Schema) use(st *Use) error {
	if s.Keyspaces[st.Keyspace.Name] == nil && !IsSystemKeyspace(st.Keyspace.Name) {
		return Errorf(st.Keyspace.Pos, "keyspace %s does not exist", st.Keyspace)
	}
	s.Current = st.Keyspace.Name
	return nil
}

func (s *Schema) dropKeyspace(st *DropKeyspace) error {
	if s.Keyspaces[st.Name.Name] == nil {
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Pos, "keyspace %s does not exist", st.Name)
	}
	delete(s.Keyspaces, st.Name.Name)
	return nil
}

func (s *Schema) dropIndex(st *DropIndex) error {
	ks, err := s.keyspaceIfExists(st.Name, st.IfExists)
	if ks == nil {
		return err
	}
	if ks.Indexes[st.Name.Name.Name] == nil {
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Name.Pos, "index %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
	}
	delete(ks.Indexes, st.Name.Name.Name)
	return nil
}

// alterView changes a view's options, which may not include a TTL.
func (s *Schema) alterView(st *AlterView) error {
	ks, err := s.keyspaceIfExists(st.Name, st.IfExists)
	if ks == nil {
		return err
	}
	v := ks.Views[st.Name.Name.Name]
	if v == nil {
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Name.Pos, "materialized view %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
	}
	if err := checkViewOptions(st.Properties); err != nil {
		return err
	}
	opts, err := tableOptions(v.Table.Options, st.Properties, false, false, s.Release)
	if err != nil {
		return err
	}
	v.Table.Options = opts
	return nil
}

func (s *Schema) dropView(st *DropView) error {
	ks, err := s.keyspaceIfExists(st.Name, st.IfExists)
	if ks == nil {
		return err
	}
	if ks.Views[st.Name.Name.Name] == nil {
		if st.IfExists {
			return nil
		}
		if ks.Tables[st.Name.Name.Name] != nil {
			return Errorf(st.Name.Name.Pos, "%s is a table, not a materialized view: use DROP TABLE", st.Name)
		}
		return Errorf(st.Name.Name.Pos, "materialized view %s.%s does not exist", QuoteName(ks.Name), st.Name.Name)
	}
	delete(ks.Views, st.Name.Name.Name)
	return nil
}

// checkDMLStatement checks a SELECT, INSERT, UPDATE, DELETE or BATCH against the schema,
// which it leaves unchanged: the tables must exist, and the statement must be one the
// node accepts for them.
func (s *Schema) checkDMLStatement(stmt Statement) error {
	switch st := stmt.(type) {
	case *Select:
		ks, t, err := s.findTableOrView(st.Table)
		if err != nil {
			return err
		}
		if err := checkVectorLiterals(t, st); err != nil {
			return err
		}
		if err := checkSelectValues(ks, t, st); err != nil {
			return err
		}
		if s.CheckSelect != nil {
			return s.CheckSelect(s, st)
		}
		return nil
	case *Batch:
		if err := checkUsing(&Table{}, st.Using, true); err != nil {
			return err
		}
		for _, b := range st.Statements {
			if err := s.Apply(b); err != nil {
				return err
			}
		}
		return s.checkBatchForm(st)
	}
	ks, t, err := s.findTable(dmlTable(stmt))
	if err != nil {
		return err
	}
	if err := checkVectorLiterals(t, stmt); err != nil {
		return err
	}
	return checkDML(ks, t, stmt)
}

// dmlTable is the table an INSERT, UPDATE or DELETE writes.
func dmlTable(stmt Statement) QualifiedName {
	switch st := stmt.(type) {
	case *Insert:
		return st.Table
	case *Update:
		return st.Table
	case *Delete:
		return st.Table
	}
	return QualifiedName{}
}

// ApplyAll applies statements in order. It is all or nothing: on the first error the
// schema is left as it was before the call.
func (s *Schema) ApplyAll(stmts []Statement) error {
	next := s.Clone()
	for _, st := range stmts {
		if err := next.Apply(st); err != nil {
			return err
		}
	}
	*s = *next
	return nil
}

// ApplyFile parses a CQL source and applies its statements in order, all or nothing.
func (s *Schema) ApplyFile(file string, src []byte) error {
	stmts, err := ParseFile(file, src)
	if err != nil {
		return err
	}
	return s.ApplyAll(stmts)
}

// ---- name resolution ----

// keyspaceName returns the keyspace a name lives in: its qualifier, or the current one.
func (s *Schema) keyspaceName(q QualifiedName) (string, error) {
	if !q.Keyspace.IsZero() {
		return q.Keyspace.Name, nil
	}
	if s.Current == "" {
		e := Errorf(q.Name.Pos, "no keyspace for %s: qualify it as keyspace.%s or USE a keyspace first", q.Name, q.Name)
		e.Err = ErrNoKeyspace
		return "", e
	}
	return s.Current, nil
}

// keyspaceOf returns the existing keyspace a name lives in.
func (s *Schema) keyspaceOf(q QualifiedName) (*Keyspace, error) {
	return s.keyspaceIfExists(q, false)
}

// keyspaceIfExists is keyspaceOf for a statement that may say IF EXISTS. With it, a
// keyspace that does not exist makes the statement do nothing (nil keyspace, nil error),
// as on a 5.0 node; a name with no keyspace at all (unqualified, no USE) is an error
// either way, as it is there too.
func (s *Schema) keyspaceIfExists(q QualifiedName, ifExists bool) (*Keyspace, error) {
	name, err := s.keyspaceName(q)
	if err != nil {
		return nil, err
	}
	ks := s.Keyspaces[name]
	if ks == nil {
		ks = systemKeyspace(name) // read-only: systemChange refuses changes to it
	}
	if ks == nil {
		if ifExists {
			return nil, nil
		}
		return nil, Errorf(q.Pos(), "keyspace %s does not exist", QuoteName(name))
	}
	return ks, nil
}

// findTable returns the table q names.
func (s *Schema) findTable(q QualifiedName) (*Keyspace, *Table, error) {
	ks, err := s.keyspaceOf(q)
	if err != nil {
		return nil, nil, err
	}
	t := ks.Tables[q.Name.Name]
	if t == nil {
		if ks.Views[q.Name.Name] != nil {
			return nil, nil, Errorf(q.Name.Pos, "%s.%s is a materialized view, not a table", QuoteName(ks.Name), q.Name)
		}
		return nil, nil, Errorf(q.Name.Pos, "table %s.%s does not exist", QuoteName(ks.Name), q.Name)
	}
	return ks, t, nil
}

// findTableOrView returns the table or view q names (SELECT reads both).
func (s *Schema) findTableOrView(q QualifiedName) (*Keyspace, *Table, error) {
	ks, err := s.keyspaceOf(q)
	if err != nil {
		return nil, nil, err
	}
	if t := ks.Tables[q.Name.Name]; t != nil {
		return ks, t, nil
	}
	if v := ks.Views[q.Name.Name]; v != nil {
		return ks, v.Table, nil
	}
	return nil, nil, Errorf(q.Name.Pos, "table %s.%s does not exist", QuoteName(ks.Name), q.Name)
}

// validName reports whether a keyspace or table name is one Cassandra accepts: letters,
// digits and underscores only.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isIdentByte(name[i]) {
			return false
		}
	}
	return true
}

// maxKeyspaceName is Cassandra's limit on keyspace name length.
const maxKeyspaceName = 48

// ---- keyspaces ----

func (s *Schema) createKeyspace(st *CreateKeyspace) error {
	name := st.Name.Name
	if !validName(name) {
		return Errorf(st.Name.Pos, "invalid keyspace name %s: use letters, digits and underscores only", st.Name)
	}
	if len(name) > maxKeyspaceName {
		return Errorf(st.Name.Pos, "keyspace name %s is %d characters long; the limit is %d", st.Name, len(name), maxKeyspaceName)
	}
	ks := NewKeyspace(name)
	ks.Pos = st.Name.Pos
	if err := keyspaceOptions(ks, st.Properties, true, st.Pos); err != nil {
		return err
	}
	if s.Keyspaces[name] != nil {
		if st.IfNotExists {
			return nil
		}
		return Errorf(st.Name.Pos, "keyspace %s already exists", st.Name)
	}
	s.Keyspaces[name] = ks
	return nil
}

func (s *Schema) alterKeyspace(st *AlterKeyspace) error {
	ks := s.Keyspaces[st.Name.Name]
	if ks == nil {
		if st.IfExists {
			return nil
		}
		return Errorf(st.Name.Pos, "keyspace %s does not exist", st.Name)
	}
	next := *ks
	if err := keyspaceOptions(&next, st.Properties, false, st.Pos); err != nil {
		return err
	}
	ks.Replication, ks.DurableWrites = next.Replication, next.DurableWrites
	return nil
}

// replicationStrategies are the replication classes Cassandra 5.0 ships, by short name.
var replicationStrategies = map[string]bool{
	"SimpleStrategy": true, "NetworkTopologyStrategy": true, "LocalStrategy": true, "EverywhereStrategy": true,
}

const locatorPackage = "org.apache.cassandra.locator."

// keyspaceOptions applies replication and durable_writes to ks.
func keyspaceOptions(ks *Keyspace, props []*Property, create bool, stmtPos Pos) error {
	seen := map[string]bool{}
	hasReplication := false
	for _, p := range props {
		name := p.Name.Name
		if seen[name] {
			return Errorf(p.Name.Pos, "multiple definitions for property %s", name)
		}
		seen[name] = true
		switch name {
		case "replication":
			if !p.IsMap {
				return Errorf(p.Pos, "invalid value for property replication: it must be a map")
			}
			m := p.MapValue()
			class := m["class"]
			if class == "" {
				return Errorf(p.Pos, "missing replication strategy class: replication needs a 'class'")
			}
			short := strings.TrimPrefix(class, locatorPackage)
			if !replicationStrategies[short] {
				return Errorf(p.Pos, "unknown replication strategy class %q", class)
			}
			// The factors as the node reads them (the rule ParseReplication and ReplicationOf
			// share): a negative or unreadable one, an option SimpleStrategy does not take, a
			// NetworkTopologyStrategy that places no replica.
			r, err := replicationRead(p.Map, p.Pos, false)
			if err != nil {
				return err
			}
			if r.Class == NetworkTopologyStrategy {
				if n, _ := r.Total(); n == 0 && r.Factor == 0 {
					return Errorf(p.Pos, "Configuration for at least one datacenter must be present")
				}
			}
			m["class"] = locatorPackage + short
			ks.Replication = m
			hasReplication = true
		case "durable_writes":
			b, err := boolOption(p)
			if err != nil {
				return err
			}
			ks.DurableWrites = b
		default:
			return Errorf(p.Name.Pos, "unknown keyspace property %s", name)
		}
	}
	if create && !hasReplication {
		return Errorf(stmtPos, "missing mandatory option replication")
	}
	return nil
}

func boolOption(p *Property) (bool, error) {
	if !p.IsMap {
		switch strings.ToLower(p.Value) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, Errorf(p.Pos, "invalid boolean value for %s", p.Name.Name)
}

// ---- cloning ----

// Clone returns a deep copy of the schema.
func (s *Schema) Clone() *Schema {
	n := &Schema{Keyspaces: make(map[string]*Keyspace, len(s.Keyspaces)), Current: s.Current, Release: s.Release, CheckSelect: s.CheckSelect}
	for name, ks := range s.Keyspaces {
		k := *ks
		k.Replication = make(map[string]string, len(ks.Replication))
		for a, b := range ks.Replication {
			k.Replication[a] = b
		}
		k.Tables = make(map[string]*Table, len(ks.Tables))
		for a, t := range ks.Tables {
			k.Tables[a] = t.clone()
		}
		k.Types = make(map[string]*UserType, len(ks.Types))
		for a, ut := range ks.Types {
			u := *ut
			u.Fields = append([]Field(nil), ut.Fields...)
			k.Types[a] = &u
		}
		k.Indexes = make(map[string]*Index, len(ks.Indexes))
		for a, ix := range ks.Indexes {
			i := *ix
			i.Options = make(map[string]string, len(ix.Options))
			for x, y := range ix.Options {
				i.Options[x] = y
			}
			k.Indexes[a] = &i
		}
		k.Views = make(map[string]*View, len(ks.Views))
		for a, v := range ks.Views {
			vv := *v
			if v.Table != nil {
				vv.Table = v.Table.clone()
			}
			k.Views[a] = &vv
		}
		k.Functions = make(map[string]Pos, len(ks.Functions))
		for a, p := range ks.Functions {
			k.Functions[a] = p
		}
		k.Aggregates = make(map[string]Pos, len(ks.Aggregates))
		for a, p := range ks.Aggregates {
			k.Aggregates[a] = p
		}
		if ks.Routines != nil {
			k.Routines = make(map[string][]Routine, len(ks.Routines))
			for a, rs := range ks.Routines {
				k.Routines[a] = append([]Routine(nil), rs...)
			}
		}
		n.Keyspaces[name] = &k
	}
	if s.Roles != nil {
		n.Roles = make(map[string]bool, len(s.Roles))
		for r, v := range s.Roles {
			n.Roles[r] = v
		}
		n.Granted = make(map[string]map[string]bool, len(s.Granted))
		for r, g := range s.Granted {
			n.Granted[r] = make(map[string]bool, len(g))
			for x := range g {
				n.Granted[r][x] = true
			}
		}
	}
	return n
}
