package cli

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/authtest"
)

// schemaColumns lists keyspace ks's table.column names from system_schema, sorted: what the
// node holds, whatever the bookkeeping says.
func schemaColumns(t *testing.T, admin *gocql.Session, ks string) []string {
	t.Helper()
	var cols []string
	iter := admin.Query("SELECT table_name, column_name FROM system_schema.columns WHERE keyspace_name = ?", ks).Iter()
	var tn, cn string
	for iter.Scan(&tn, &cn) {
		if !strings.HasPrefix(tn, "cqlsize_migrations") {
			cols = append(cols, tn+"."+cn)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(cols)
	return cols
}

func hasTable(t *testing.T, admin *gocql.Session, ks, table string) bool {
	t.Helper()
	var n int
	if err := admin.Query("SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

var eventsColumns = []string{"events.body", "events.id", "events.seq"}

// TestAuthMigrateUpNoCreate: a role with no permission at all runs `up`: the node refuses
// the bookkeeping table, exit 2 naming the role, CREATE and the keyspace; nothing is created.
func TestAuthMigrateUpNoCreate(t *testing.T) {
	admin, ks := authEvents(t)
	reader, pw := authtest.Role(t, admin, "reader")
	dir := migDir(t, map[string]string{"0001_a.cql": "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\n"})
	code, out, errOut := runAuth(t, authtest.Env(t, reader, pw), "migrate", "up", "--keyspace", ks, "--dir", dir)
	want := fmt.Sprintf("User %s has no CREATE permission on <all tables in %s>", reader, ks)
	if code != ExitBadInput || out != "" || !strings.Contains(errOut, want) {
		t.Errorf("up without CREATE: exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errOut, want)
	}
	if got := schemaColumns(t, admin, ks); fmt.Sprint(got) != fmt.Sprint(eventsColumns) || hasTable(t, admin, ks, "cqlsize_migrations") {
		t.Errorf("after a refused up the keyspace holds %v (bookkeeping: %v); want only %v", got, hasTable(t, admin, ks, "cqlsize_migrations"), eventsColumns)
	}
	// status reads only: with no bookkeeping yet it reports everything pending.
	code, out, errOut = runAuth(t, authtest.Env(t, reader, pw), "migrate", "status", "--keyspace", ks, "--dir", dir)
	if code != ExitOK || !strings.Contains(out, "nothing applied, 1 pending") {
		t.Errorf("status before any up: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestAuthMigrateStatusNoSelect: once the bookkeeping exists, a role that may not read it
// gets exit 2 naming the table and SELECT, and nothing on stdout.
func TestAuthMigrateStatusNoSelect(t *testing.T) {
	admin, ks := authEvents(t)
	dir := migDir(t, map[string]string{"0001_a.cql": "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\n"})
	if code, out, errOut := runAuth(t, authtest.Env(t, authtest.SuperUser, authtest.SuperPassword), "migrate", "up", "--keyspace", ks, "--dir", dir); code != ExitOK {
		t.Fatalf("up as the superuser: exit %d\n%s%s", code, out, errOut)
	}
	reader, pw := authtest.Role(t, admin, "reader")
	code, out, errOut := runAuth(t, authtest.Env(t, reader, pw), "migrate", "status", "--keyspace", ks, "--dir", dir)
	want := fmt.Sprintf("read bookkeeping table %s.cqlsize_migrations: User %s has no SELECT permission on <table %s.cqlsize_migrations>", ks, reader, ks)
	if code != ExitBadInput || out != "" || !strings.Contains(errOut, want) {
		t.Errorf("status without SELECT: exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errOut, want)
	}
}

// TestAuthMigrateUpNoAlter: a deployer that may create tables in the keyspace but not alter
// events runs a file that creates a table and then alters events. The node refuses the
// ALTER: exit 2 naming ALTER and the table, the file's first statement stays applied (DDL
// cannot be rolled back) and the bookkeeping says the file stopped partway, so nothing is
// recorded as applied that is not; events is unchanged. Once ALTER is granted, the next run
// applies statement 2 only.
//
// The role also gets SELECT on system_views.gossip_info: the migrator reads it to wait for
// schema agreement, and today a role without it waits --agreement-timeout and exits 3
// (TestAuthMigrateUpNoGossipInfo).
func TestAuthMigrateUpNoAlter(t *testing.T) {
	admin, ks := authEvents(t)
	deployer, pw := authtest.Role(t, admin, "deployer")
	authtest.Grant(t, admin, "CREATE", "KEYSPACE "+ks, deployer)
	authtest.Grant(t, admin, "SELECT", "system_views.gossip_info", deployer)
	env := authtest.Env(t, deployer, pw)
	dir := migDir(t, map[string]string{
		"0001_a.cql": "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\nALTER TABLE events ADD extra text;\n",
	})
	code, out, errOut := runAuth(t, env, "migrate", "up", "--keyspace", ks, "--dir", dir, "--agreement-timeout", "20s")
	want := fmt.Sprintf("User %s has no ALTER permission on <table %s.events>", deployer, ks)
	if code != ExitBadInput || !strings.Contains(errOut, want) || !strings.Contains(errOut, "0001_a.cql:2:1") {
		t.Errorf("up without ALTER: exit %d\nstdout: %s\nstderr: %s\nwant 2, %q and the statement's file:line:col", code, out, errOut, want)
	}
	if got, want := schemaColumns(t, admin, ks), append([]string{"a.k"}, eventsColumns...); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the refused ALTER the keyspace holds %v; want %v (the CREATE ran, events unchanged)", got, want)
	}
	upErr := errOut
	code, out, errOut = runAuth(t, env, "migrate", "status", "--keyspace", ks, "--dir", dir)
	if code != ExitFindings || !strings.Contains(out, "1/2") {
		t.Errorf("status after the refused ALTER: exit %d\nstdout: %s\nstderr: %s\nwant 1 and the file partial at statement 1/2", code, out, errOut)
	}
	t.Logf("up: %s\nstatus: %s", upErr, out)
	// Granted ALTER, the next run continues from statement 2 and the file is applied once.
	authtest.Grant(t, admin, "ALTER", "TABLE "+ks+".events", deployer)
	code, out, errOut = runAuth(t, env, "migrate", "up", "--keyspace", ks, "--dir", dir, "--agreement-timeout", "20s")
	if got, want := schemaColumns(t, admin, ks), []string{"a.k", "events.body", "events.extra", "events.id", "events.seq"}; code != ExitOK || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("up after GRANT ALTER: exit %d, keyspace %v; want 0 and %v\nstdout: %s\nstderr: %s", code, got, want, out, errOut)
	}
}

// TestAuthMigrateUpNoGossipInfo: the same deployer without SELECT on
// system_views.gossip_info. What it should get is the ALTER refusal (exit 2): every role may
// read system.local and system.peers_v2, which hold the schema versions too.
func TestAuthMigrateUpNoGossipInfo(t *testing.T) {
	admin, ks := authEvents(t)
	deployer, pw := authtest.Role(t, admin, "deployer")
	authtest.Grant(t, admin, "CREATE", "KEYSPACE "+ks, deployer)
	dir := migDir(t, map[string]string{
		"0001_a.cql": "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\nALTER TABLE events ADD extra text;\n",
	})
	code, out, errOut := runAuth(t, authtest.Env(t, deployer, pw), "migrate", "up", "--keyspace", ks, "--dir", dir, "--agreement-timeout", "5s")
	want := fmt.Sprintf("User %s has no ALTER permission on <table %s.events>", deployer, ks)
	if code != ExitBadInput || !strings.Contains(errOut, want) {
		t.Errorf("up without ALTER or gossip_info: exit %d\nstdout: %s\nstderr: %s\nwant 2 and %q", code, out, errOut, want)
	}
}
