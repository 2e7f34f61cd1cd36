package cli

import (
	"strings"
	"testing"
)

// Histories that qualify every name with a keyspace their deploy creates outside the
// files need no -k: migrate validate, migrate plan, evolve plan, check and estimate read
// them as they are.
// One unqualified name, and -k is asked for at its file:line:col.
func TestQualifiedHistoryNeedsNoKeyspaceFlag(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "0001_orders.cql", "CREATE TABLE shop.orders (id int PRIMARY KEY, customer int, total int);\n")
	writeIn(t, dir, "0002_note.cql", "ALTER TABLE shop.orders ADD note text;\n")
	to := writeIn(t, t.TempDir(), "by_customer.cql", "CREATE TABLE shop.orders_by_customer (customer int, id int, total int, note text, PRIMARY KEY (customer, id));\n")

	code, out, errOut := run(t, "migrate", "validate", "--dir", dir)
	if code != ExitOK || !strings.Contains(out, "validated 2 files, 2 statements") {
		t.Errorf("validate: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = run(t, "migrate", "plan", "--dir", dir, "--offline")
	if code != ExitOK || !strings.Contains(out, "ALTER TABLE shop.orders ADD note text;") || strings.Contains(errOut, "not checked") {
		t.Errorf("plan: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = run(t, "evolve", "plan", "--from", "shop.orders", "--to", to, "--schema", dir, "--rows", "1000")
	if code != ExitOK || !strings.Contains(out, "Evolve shop.orders into shop.orders_by_customer") {
		t.Errorf("evolve plan: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	// A schema file for check and estimate, likewise.
	files := t.TempDir()
	schema := writeIn(t, files, "schema.cql", "CREATE TABLE shop.orders (id int PRIMARY KEY, total int);\n")
	queries := writeIn(t, files, "q.cql", "-- name: order\nSELECT total FROM shop.orders WHERE id = ?;\n")
	code, out, errOut = run(t, "check", "--schema", schema, "--queries", queries)
	if code != ExitOK || !strings.Contains(out, "1 query: 0 fail") && !strings.Contains(out, "1 queries: 0 fail") {
		t.Errorf("check: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = run(t, "estimate", "--schema", schema, "--table", "shop.orders", "--rows", "100")
	if code != ExitOK {
		t.Errorf("estimate: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	writeIn(t, dir, "0003_more.cql", "CREATE TABLE refunds (id int PRIMARY KEY);\n")
	code, _, errOut = run(t, "migrate", "validate", "--dir", dir)
	if code != ExitBadInput || !strings.Contains(errOut, "0003_more.cql:1:14: no keyspace for refunds") {
		t.Errorf("validate with an unqualified name: exit %d, want %d\nstderr: %s", code, ExitBadInput, errOut)
	}
}
