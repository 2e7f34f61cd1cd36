package report_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/workload"
)

// buildOne reports one table of schema under the workload yaml, both given as text.
func buildOne(t *testing.T, schema, yaml string) *report.Table {
	t.Helper()
	dir := t.TempDir()
	sp, wp := filepath.Join(dir, "schema.cql"), filepath.Join(dir, "workload.yaml")
	if err := os.WriteFile(sp, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wp, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := cql.LoadSchema(sp)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Load(wp)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(s, w, report.Options{Tool: "cqlsize test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tables) != 1 {
		t.Fatalf("%d tables reported", len(r.Tables))
	}
	return &r.Tables[0]
}

// TestUnsetColumnsDoNotExpire: rows written by UPDATE with a TTL that set one of four
// columns (nulls_as: unset, the other three left out) expire into one cell tombstone each,
// as rows of a table with that one column do: an unset column writes no cell, so nothing of
// it expires. The tombstone model once counted all four columns as live cells (4 times the
// expired-cell tombstones; tombstone.TestModelAgainstCassandra's update_ttl_unset_columns
// case shows the node counting one).
func TestUnsetColumnsDoNotExpire(t *testing.T) {
	const rest = `    partitions: 1000
    write_rate: 2000/day
    writes: update
    ttl: 1d
`
	const ks = "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"
	four := buildOne(t, ks+"CREATE TABLE app.ev (k int, c timeuuid, a text, b text, d text, e text, PRIMARY KEY (k, c)) WITH gc_grace_seconds = 864000;\n",
		"version: 1\ntables:\n  ev:\n"+rest+"    nulls: {b: 1, d: 1, e: 1}\n    nulls_as: unset\n")
	one := buildOne(t, ks+"CREATE TABLE app.ev (k int, c timeuuid, a text, PRIMARY KEY (k, c)) WITH gc_grace_seconds = 864000;\n",
		"version: 1\ntables:\n  ev:\n"+rest)
	if one.Tombstones.PerRead <= 0 || one.Tombstones.OnDisk <= 0 {
		t.Fatalf("one column: %v tombstones a read, %v on disk: the case does not exercise expiry", one.Tombstones.PerRead, one.Tombstones.OnDisk)
	}
	if four.Tombstones.PerRead != one.Tombstones.PerRead || four.Tombstones.OnDisk != one.Tombstones.OnDisk {
		t.Errorf("3 of 4 columns unset: %v tombstones a read, %v on disk; the same rows with the one column: %v, %v",
			four.Tombstones.PerRead, four.Tombstones.OnDisk, one.Tombstones.PerRead, one.Tombstones.OnDisk)
	}
}
