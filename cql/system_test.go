package cql_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// TestSystemKeyspacesAreKnown: reads of the system tables a 5.0 node ships are judged
// against their schema, and changes to them are refused as the node refuses them (each
// verdict and message here is the dev node's, TestSystemVerdictsOnTheNode re-asks it).
func TestSystemKeyspacesAreKnown(t *testing.T) {
	for _, tc := range systemCases {
		s := cql.NewSchemaIn("app")
		err := s.ApplyFile("m.cql", []byte(tc.stmt))
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: false refusal: %v", tc.stmt, err)
		case tc.refused != "" && err == nil:
			t.Errorf("%s: accepted, the node refuses it (%s)", tc.stmt, tc.refused)
		case tc.refused != "" && !strings.Contains(err.Error(), tc.model):
			t.Errorf("%s: refused with %q, want it to say %q", tc.stmt, err, tc.model)
		}
	}
}

// systemCases are statements about the system keyspaces with the node's verdict (refused:
// the node's words, "" when it accepts) and the words the model must say. None of them
// changes anything on the node when it is accepted: the node test runs them for real.
var systemCases = []struct{ stmt, refused, model string }{
	{stmt: "SELECT release_version FROM system.local"},
	{stmt: "SELECT * FROM system.local WHERE key = 'local'"},
	{stmt: "SELECT peer, data_center FROM system.peers_v2"},
	{stmt: "SELECT * FROM system_schema.tables WHERE keyspace_name = 'app'"},
	{stmt: "SELECT column_name, type FROM system_schema.columns WHERE keyspace_name = 'app' AND table_name = 't'"},
	{stmt: "SELECT * FROM system_schema.columns WHERE table_name = 'x' ALLOW FILTERING"},
	{stmt: "SELECT name, value FROM system_views.settings"},
	{stmt: "SELECT * FROM system_virtual_schema.tables"},
	{stmt: "SELECT role FROM system_auth.roles"},
	{stmt: "SELECT * FROM system_traces.sessions"},
	{stmt: "SELECT * FROM system_distributed.repair_history"},
	{stmt: "USE system_schema; SELECT keyspace_name FROM keyspaces"},
	{"SELECT * FROM system.nosuch", "table nosuch does not exist", "does not exist"},
	{"CREATE TABLE system.x (k int PRIMARY KEY)", "system keyspace is not user-modifiable", "system keyspace is not user-modifiable"},
	{"CREATE TABLE system_views.x (k int PRIMARY KEY)", "system_views keyspace is not user-modifiable", "system_views keyspace is not user-modifiable"},
	{"CREATE TABLE system_auth.x (k int PRIMARY KEY)", "Cannot CREATE <all tables in system_auth>", "system keyspace"},
	{"ALTER TABLE system.local ADD x int", "system keyspace is not user-modifiable", "system keyspace is not user-modifiable"},
	{"ALTER TABLE system_traces.sessions ADD x int", "Cannot ALTER <table system_traces.sessions>", "system keyspace"},
	{"DROP TABLE system.local", "system keyspace is not user-modifiable", "system keyspace is not user-modifiable"},
	{"CREATE INDEX ON system.peers (data_center)", "system keyspace is not user-modifiable", "system keyspace is not user-modifiable"},
	{"CREATE TYPE system.t (a int)", "system keyspace is not user-modifiable", "system keyspace is not user-modifiable"},
	{"CREATE KEYSPACE system WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "System keyspace 'system' is not user-modifiable", "System keyspace 'system' is not user-modifiable"},
	{"CREATE KEYSPACE IF NOT EXISTS system_schema WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "System keyspace 'system_schema' is not user-modifiable", "not user-modifiable"},
	{"ALTER KEYSPACE system WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "system keyspace is not user-modifiable", "system keyspace is not user-modifiable"},
	{"DROP KEYSPACE system_traces", "Cannot DROP <keyspace system_traces>", "cannot be dropped"},
	{"INSERT INTO system_views.settings (name, value) VALUES ('x', 'y')", "Modification is not supported by table system_views.settings", "Modification is not supported"},
	{"UPDATE system_views.settings SET value = 'y' WHERE name = 'x'", "Modification is not supported by table system_views.settings", "Modification is not supported"},
}

// TestSystemModelIsComplete: the model holds the tables people read most, with the keys
// the node gives them (the node test compares every column of every table).
func TestSystemModelIsComplete(t *testing.T) {
	tables, virtual := cql.SystemTables()
	if len(tables) < 90 {
		t.Errorf("%d system tables modelled, want the ~94 a 5.0.9 node lists", len(tables))
	}
	nv := 0
	for _, v := range virtual {
		if v {
			nv++
		}
	}
	if nv < 40 {
		t.Errorf("%d virtual tables, want the ~47 of system_views and system_virtual_schema", nv)
	}
	tb := cql.SystemTable("system_schema", "tables")
	if tb == nil || len(tb.PartitionKey) != 1 || tb.PartitionKey[0].Name != "keyspace_name" || len(tb.Clustering) != 1 || tb.Clustering[0].Name != "table_name" {
		t.Fatalf("system_schema.tables: want PRIMARY KEY ((keyspace_name), table_name), got %+v", tb)
	}
	if cql.SystemTable("app", "local") != nil {
		t.Error("SystemTable found a table in a keyspace that is not a system one")
	}
}
