package cql

import (
	_ "embed" // the system keyspaces' model
	"fmt"
	"sort"
	"strings"
	"sync"
)

// system50 is the schema of Cassandra 5.0's system keyspaces: every node has them, no
// migration creates them, and histories and queries do read them (SELECT release_version
// FROM system.local). Without them a model refuses such a statement as "keyspace system
// does not exist", which the node never says.
//
//go:embed system50.cql
var system50 string

// systemKeyspaces says which keyspaces a 5.0 node ships and how it treats a change to
// them: "local" keyspaces (system, system_schema, and the virtual ones) are not
// user-modifiable at all; the replicated ones (system_auth, system_distributed,
// system_traces) accept ALTER KEYSPACE, to set their replication, and refuse the rest.
var systemKeyspaces = map[string]bool{
	"system": false, "system_schema": false, "system_views": false, "system_virtual_schema": false,
	"system_auth": true, "system_distributed": true, "system_traces": true,
}

// IsSystemKeyspace reports whether name is one of the keyspaces every 5.0 node ships.
func IsSystemKeyspace(name string) bool {
	_, ok := systemKeyspaces[name]
	return ok
}

var (
	systemOnce    sync.Once
	systemSchema  *Schema
	systemVirtual map[string]bool // "ks.table" of the virtual tables
	systemErr     error
)

func loadSystem() {
	s := NewSchema()
	names := make([]string, 0, len(systemKeyspaces))
	for n := range systemKeyspaces {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s.Keyspaces[n] = NewKeyspace(n)
	}
	stmts, err := ParseFile("system50.cql", []byte(system50))
	if err != nil {
		systemErr = err
		return
	}
	systemVirtual = map[string]bool{}
	for _, st := range stmts {
		ct, ok := st.(*CreateTable)
		if !ok {
			systemErr = fmt.Errorf("system50.cql: %s is not a CREATE TABLE", st.Info().Pos)
			return
		}
		// The tables are created directly: createTable would refuse a system keyspace.
		ks := s.Keyspaces[ct.Name.Keyspace.Name]
		if ks == nil {
			systemErr = fmt.Errorf("system50.cql: %s: keyspace %s is not a system keyspace", ct.Pos, ct.Name.Keyspace)
			return
		}
		tmp := NewSchema()
		tmp.Keyspaces[ks.Name] = NewKeyspace(ks.Name)
		if err := tmp.createTable(ct); err != nil {
			systemErr = fmt.Errorf("system50.cql: %w", err)
			return
		}
		ks.Tables[ct.Name.Name.Name] = tmp.Keyspaces[ks.Name].Tables[ct.Name.Name.Name]
		if doc := strings.Split(strings.TrimSpace(ct.Doc), "\n"); strings.TrimSpace(doc[len(doc)-1]) == "-- virtual" {
			systemVirtual[ks.Name+"."+ct.Name.Name.Name] = true
		}
	}
	systemSchema = s
}

// systemKeyspace returns the model of system keyspace name (shared and read-only), or nil.
func systemKeyspace(name string) *Keyspace {
	if !IsSystemKeyspace(name) {
		return nil
	}
	systemOnce.Do(loadSystem)
	if systemErr != nil {
		panic(systemErr) // the embedded file is fixed at build time; its tests parse it
	}
	return systemSchema.Keyspaces[name]
}

// SystemTable returns the model of a table of a 5.0 node's system keyspaces
// (system.local, system_schema.tables, ...), or nil.
func SystemTable(keyspace, name string) *Table {
	if ks := systemKeyspace(keyspace); ks != nil {
		return ks.Tables[name]
	}
	return nil
}

// SystemTables returns every table of the system keyspaces' model, sorted by keyspace and
// name, and whether each is virtual.
func SystemTables() (tables []*Table, virtual []bool) {
	systemOnce.Do(loadSystem)
	if systemErr != nil {
		panic(systemErr)
	}
	for _, ks := range systemSchema.Keyspaces {
		for _, t := range ks.Tables {
			tables = append(tables, t)
		}
	}
	sort.Slice(tables, func(i, j int) bool {
		if tables[i].Keyspace != tables[j].Keyspace {
			return tables[i].Keyspace < tables[j].Keyspace
		}
		return tables[i].Name < tables[j].Name
	})
	for _, t := range tables {
		virtual = append(virtual, systemVirtual[t.Keyspace+"."+t.Name])
	}
	return tables, virtual
}

// systemChange refuses a statement that would change a system keyspace, as the node
// refuses it, or returns nil. Reads (and writes to the tables the node lets a client
// write) are judged as for any table.
func (s *Schema) systemChange(stmt Statement) error {
	var target QualifiedName
	switch st := stmt.(type) {
	case *CreateKeyspace:
		if IsSystemKeyspace(st.Name.Name) {
			return Errorf(st.Name.Pos, "System keyspace '%s' is not user-modifiable", st.Name.Name)
		}
		return nil
	case *AlterKeyspace:
		if replicated, ok := systemKeyspaces[st.Name.Name]; ok && !replicated {
			return Errorf(st.Name.Pos, "%s keyspace is not user-modifiable", st.Name.Name)
		}
		return nil
	case *DropKeyspace:
		if IsSystemKeyspace(st.Name.Name) {
			return Errorf(st.Name.Pos, "keyspace %s is a system keyspace: it cannot be dropped", st.Name.Name)
		}
		return nil
	case *CreateTable:
		target = st.Name
	case *AlterTable:
		target = st.Name
	case *DropTable:
		target = st.Name
	case *CreateType:
		target = st.Name
	case *AlterUserType:
		target = st.Name
	case *DropType:
		target = st.Name
	case *CreateIndex:
		target = st.Table
	case *DropIndex:
		target = st.Name
	case *CreateView:
		target = st.Name
	case *AlterView:
		target = st.Name
	case *DropView:
		target = st.Name
	case *CreateFunction:
		target = st.Name
	case *DropFunction:
		target = st.Name
	case *CreateAggregate:
		target = st.Name
	case *DropAggregate:
		target = st.Name
	case *CreateTrigger:
		target = st.Table
	case *DropTrigger:
		target = st.Table
	case *Insert, *Update, *Delete:
		q := dmlTable(stmt)
		name, err := s.keyspaceName(q)
		if err != nil || !IsSystemKeyspace(name) || s.Keyspaces[name] != nil {
			return nil
		}
		systemKeyspace(name)
		if systemVirtual[name+"."+q.Name.Name] {
			return Errorf(q.Name.Pos, "Modification is not supported by table %s.%s", name, q.Name.Name)
		}
		return nil
	default:
		return nil
	}
	name, err := s.keyspaceName(target)
	if err != nil || !IsSystemKeyspace(name) || s.Keyspaces[name] != nil {
		return nil
	}
	if systemKeyspaces[name] {
		// The node answers as an authorization failure ("Cannot CREATE <all tables in
		// system_auth>"): not even a superuser may.
		return Errorf(target.Pos(), "keyspace %s is a system keyspace: the node refuses to create, alter or drop anything in it", name)
	}
	return Errorf(target.Pos(), "%s keyspace is not user-modifiable.", name)
}
