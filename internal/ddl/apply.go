package ddl

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// Apply sends stmt, a schema change its caller wrote (a test's tables, types, indexes and
// views), so that a client timeout does not fail it, as CreateTable does for cqlsize's own
// tables. A change whose effect system_schema shows is checked before each send and, after
// a send that times out or loses its connection, again once the nodes have had time to
// agree; it is sent again only while the effect is missing, until the budget ends. Those
// changes are CREATE KEYSPACE, TABLE, TYPE, INDEX and MATERIALIZED VIEW, ALTER TABLE ...
// ADD and ... DROP, and the DROP of a keyspace, table, type, index or view. A CREATE TABLE
// is given the fixed id TableID(scope, its keyspace, its name) (WithID, on the statement
// without the comments above it), so that a second send cannot leave two ids for one name. Any other statement, and one that does not
// parse, is sent once and its answer returned. keyspace is the keyspace of the names stmt
// does not qualify.
func Apply(ctx context.Context, s *gocql.Session, scope, keyspace, stmt string, opt Options) error {
	return apply(ctx, s, scope, keyspace, stmt, opt, sessionSend(s))
}

func apply(ctx context.Context, s *gocql.Session, scope, keyspace, stmt string, opt Options, send sendFunc) error {
	c, ok := judge(s, scope, keyspace, stmt)
	if !ok {
		return send(ctx, stmt)
	}
	if err := ensure(ctx, s, c.text, c.done, opt, send); err != nil {
		return fmt.Errorf("%s: %w", c.what, err)
	}
	return nil
}

// The reads of system_schema that show a change done: one row each.
const (
	keyspaceRow = `SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?`
	tableRow    = `SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`
	typeRow     = `SELECT type_name FROM system_schema.types WHERE keyspace_name = ? AND type_name = ?`
	viewRow     = `SELECT view_name FROM system_schema.views WHERE keyspace_name = ? AND view_name = ?`
	columnRow   = `SELECT column_name FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ? AND column_name = ?`
)

// change is a schema change and how system_schema shows it has taken effect.
type change struct {
	what string // "create table ks.t", for errors
	text string // what is sent
	done func(context.Context) (bool, error)
}

// judge tells what stmt changes and how to see it done; ok is false for a statement whose
// effect it cannot check (it is then sent once).
func judge(s *gocql.Session, scope, keyspace, stmt string) (c change, ok bool) {
	parsed, err := cql.Parse("", []byte(stmt))
	if err != nil {
		return change{}, false
	}
	in := func(q cql.QualifiedName) string {
		if q.Keyspace.IsZero() {
			return keyspace
		}
		return q.Keyspace.Name
	}
	has := func(query string, args ...any) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) { return found(ctx, s, query, args...) }
	}
	hasNot := func(query string, args ...any) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			ok, err := found(ctx, s, query, args...)
			return !ok, err
		}
	}
	switch st := parsed.(type) {
	case *cql.CreateKeyspace:
		return change{"create keyspace " + st.Name.Name, stmt, has(keyspaceRow, st.Name.Name)}, true
	case *cql.DropKeyspace:
		return change{"drop keyspace " + st.Name.Name, stmt, hasNot(keyspaceRow, st.Name.Name)}, true
	case *cql.CreateTable:
		ks, name := in(st.Name), st.Name.Name.Name
		there := func(ctx context.Context) (bool, error) { return tableThere(ctx, s, tableRow, ks, name) }
		return change{"create table " + ks + "." + name, WithID(st.Text, TableID(scope, ks, name)), there}, true
	case *cql.DropTable:
		ks, name := in(st.Name), st.Name.Name.Name
		return change{"drop table " + ks + "." + name, stmt, hasNot(tableRow, ks, name)}, true
	case *cql.CreateType:
		ks, name := in(st.Name), st.Name.Name.Name
		return change{"create type " + ks + "." + name, stmt, has(typeRow, ks, name)}, true
	case *cql.DropType:
		ks, name := in(st.Name), st.Name.Name.Name
		return change{"drop type " + ks + "." + name, stmt, hasNot(typeRow, ks, name)}, true
	case *cql.CreateView:
		ks, name := in(st.Name), st.Name.Name.Name
		there := func(ctx context.Context) (bool, error) { return tableThere(ctx, s, viewRow, ks, name) }
		return change{"create materialized view " + ks + "." + name, stmt, there}, true
	case *cql.DropView:
		ks, name := in(st.Name), st.Name.Name.Name
		return change{"drop materialized view " + ks + "." + name, stmt, hasNot(viewRow, ks, name)}, true
	case *cql.CreateIndex:
		if len(st.Targets) != 1 {
			return change{}, false
		}
		ks, table, target := in(st.Table), st.Table.Name.Name, st.Targets[0].String()
		done := func(ctx context.Context) (bool, error) {
			names, err := indexes(ctx, s, ks, table, target)
			if st.Name.IsZero() {
				return len(names) > 0, err
			}
			for _, n := range names {
				if n == st.Name.Name {
					return true, err
				}
			}
			return false, err
		}
		return change{"create index on " + ks + "." + table + " (" + target + ")", stmt, done}, true
	case *cql.DropIndex:
		ks, name := in(st.Name), st.Name.Name.Name
		done := func(ctx context.Context) (bool, error) {
			names, err := indexes(ctx, s, ks, "", "")
			for _, n := range names {
				if n == name {
					return false, err
				}
			}
			return true, err
		}
		return change{"drop index " + ks + "." + name, stmt, done}, true
	case *cql.AlterTable:
		ks, table := in(st.Name), st.Name.Name.Name
		var cols []string
		switch st.Action {
		case cql.AlterAdd:
			for _, d := range st.Add {
				cols = append(cols, d.Name.Name)
			}
		case cql.AlterDrop:
			for _, id := range st.Drop {
				cols = append(cols, id.Name)
			}
		default:
			return change{}, false
		}
		adding := st.Action == cql.AlterAdd
		done := func(ctx context.Context) (bool, error) {
			for _, col := range cols {
				ok, err := found(ctx, s, columnRow, ks, table, col)
				if err != nil || ok != adding {
					return false, err
				}
			}
			return true, nil
		}
		return change{"alter table " + ks + "." + table + " " + st.Action.String(), stmt, done}, true
	}
	return change{}, false
}

// indexes lists the names of keyspace's indexes: those on table whose target is target, or
// all of them when table is empty.
func indexes(ctx context.Context, s *gocql.Session, keyspace, table, target string) ([]string, error) {
	iter := s.Query(`SELECT table_name, index_name, options FROM system_schema.indexes WHERE keyspace_name = ?`, keyspace).
		WithContext(ctx).Consistency(gocql.One).Iter()
	var (
		names    []string
		tb, name string
		options  map[string]string
	)
	for iter.Scan(&tb, &name, &options) {
		if table == "" || (tb == table && options["target"] == target) {
			names = append(names, name)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system_schema: %w", err)
	}
	return names, nil
}
