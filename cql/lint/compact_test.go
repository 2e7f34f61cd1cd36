package lint_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/lint"
)

// TestCompactStorageOnCassandra holds CS101's why to the node: 5.0 creates a COMPACT STORAGE
// table (a dense one), and refuses ALTER TABLE ... DROP COMPACT STORAGE while cassandra.yaml
// leaves drop_compact_storage_enabled at its default, false. If either changes, the lint's
// why and fix must change with it.
func TestCompactStorageOnCassandra(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	var enabled string
	if err := s.Query(`SELECT value FROM system_views.settings WHERE name = 'drop_compact_storage_enabled'`).Scan(&enabled); err != nil {
		t.Fatalf("read drop_compact_storage_enabled: %v", err)
	}
	if err := s.Query(fmt.Sprintf("CREATE TABLE %s.kv (k int, c int, v text, PRIMARY KEY (k, c)) WITH COMPACT STORAGE", ks)).Exec(); err != nil {
		t.Fatalf("the node refuses CREATE TABLE ... WITH COMPACT STORAGE (CS101 says 5.0 creates it): %v", err)
	}
	var flags []string
	if err := s.Query(`SELECT flags FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'kv'`, ks).Scan(&flags); err != nil {
		t.Fatal(err)
	}
	if strings.Join(flags, ",") != "dense" {
		t.Errorf("flags of a compact table with a clustering column: %v, want [dense]", flags)
	}
	err := s.Query(fmt.Sprintf("ALTER TABLE %s.kv DROP COMPACT STORAGE", ks)).Exec()
	switch {
	case enabled == "false" && (err == nil || !strings.Contains(err.Error(), "DROP COMPACT STORAGE is disabled")):
		t.Errorf("drop_compact_storage_enabled is false and DROP COMPACT STORAGE answered %v; CS101 says 5.0 refuses it", err)
	case enabled == "true" && err != nil:
		t.Errorf("drop_compact_storage_enabled is true and DROP COMPACT STORAGE failed: %v", err)
	}
	t.Logf("drop_compact_storage_enabled: %s; DROP COMPACT STORAGE: %v", enabled, err)

	a := lint.Lookup("CS101")
	if a == nil || !strings.Contains(a.Why, "drop_compact_storage_enabled") || strings.Contains(a.Why, "refuse to create") {
		t.Errorf("CS101's why does not say what the node does: %+v", a)
	}
}
