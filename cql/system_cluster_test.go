package cql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// TestSystemKeyspacesMatchTheNode holds the model of the system keyspaces to the node's
// own catalog: every table the node lists is modelled, with each column's name, type,
// kind and key position.
func TestSystemKeyspacesMatchTheNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	s := cassandratest.Session(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type col struct {
		kind, typ string
		pos       int
	}
	live := map[string]map[string]col{}
	for _, src := range []string{"system_schema.columns", "system_virtual_schema.columns"} {
		it := s.Query("SELECT keyspace_name, table_name, column_name, kind, position, type FROM " + src).WithContext(ctx).Iter()
		var ks, tb, cn, kind, typ string
		var pos int
		for it.Scan(&ks, &tb, &cn, &kind, &pos, &typ) {
			if !cql.IsSystemKeyspace(ks) {
				continue
			}
			if live[ks+"."+tb] == nil {
				live[ks+"."+tb] = map[string]col{}
			}
			live[ks+"."+tb][cn] = col{kind, typ, pos}
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
	}
	tables, _ := cql.SystemTables()
	modelled := map[string]bool{}
	for _, tb := range tables {
		name := tb.Keyspace + "." + tb.Name
		modelled[name] = true
		cols := live[name]
		if cols == nil {
			t.Errorf("%s: modelled, the node has no such table", name)
			continue
		}
		if len(cols) != len(tb.Columns) {
			t.Errorf("%s: %d columns modelled, the node has %d", name, len(tb.Columns), len(cols))
		}
		for _, c := range tb.Columns {
			lc, ok := cols[c.Name]
			if !ok {
				t.Errorf("%s.%s: modelled, not on the node", name, c.Name)
				continue
			}
			pos := c.Position
			if c.Kind == cql.Static || c.Kind == cql.Regular {
				pos = -1
			}
			if lc.kind != c.Kind.String() || lc.typ != c.Type.String() || lc.pos != pos {
				t.Errorf("%s.%s: node %s %s at %d, model %s %s at %d", name, c.Name, lc.kind, lc.typ, lc.pos, c.Kind, c.Type, pos)
			}
		}
	}
	for name := range live {
		if !modelled[name] {
			t.Errorf("%s: on the node, not modelled", name)
		}
	}
	t.Logf("%d system tables compared with the node", len(tables))
}

// TestSystemVerdictsOnTheNode asks the node for its verdict on each of systemCases: the
// accepted ones only read, the refused ones change nothing.
func TestSystemVerdictsOnTheNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	s := cassandratest.Session(t)
	for _, tc := range systemCases {
		stmts, err := cql.SplitStatements("m.cql", []byte(tc.stmt))
		if err != nil {
			t.Fatal(err)
		}
		if len(stmts) != 1 {
			continue // USE: the driver refuses it; the model's own test covers it
		}
		// At ONE: system_traces has replication factor 2, which one node cannot serve at
		// the driver's default QUORUM; the verdict asked for is the statement's, not the
		// replication's.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err = s.Query(tc.stmt).Consistency(gocql.One).WithContext(ctx).Exec()
		cancel()
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: the node refuses it: %v", tc.stmt, err)
		case tc.refused != "" && err == nil:
			t.Fatalf("%s: the node accepts it; the case says it refuses (%s)", tc.stmt, tc.refused)
		case tc.refused != "" && !strings.Contains(err.Error(), tc.refused):
			t.Errorf("%s: the node says %q, the case %q", tc.stmt, err, tc.refused)
		}
	}
}
