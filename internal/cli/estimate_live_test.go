package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
)

// TestEstimateLive runs `cqlsize estimate --live` against the real node: the schema comes
// from system_schema, and what the node reports for the table sits beside the estimate.
// The table holds one partition of 100 rows, 20 of them deleted; one whole-partition read
// has run, so the node's tombstones_per_read has seen exactly the read the model predicts.
func TestEstimateLive(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	hosts := strings.Join(cassandratest.Hosts(t), ",")
	cassandratest.DDL(t, s, ks, `CREATE TABLE events (id int, at int, v text, PRIMARY KEY (id, at))`)
	for i := 0; i < 100; i++ {
		if err := s.Query(`INSERT INTO events (id, at, v) VALUES (1, ?, 'x')`, i).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 100; i += 5 {
		if err := s.Query(`DELETE FROM events WHERE id = 1 AND at = ?`, i).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	iter := s.Query(`SELECT * FROM events WHERE id = 1`).Iter()
	for iter.MapScan(map[string]any{}) {
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}

	getenv := func(k string) string {
		if k == connect.EnvHosts {
			return hosts
		}
		return ""
	}
	var out, errOut bytes.Buffer
	code := DoContext(context.Background(), []string{"estimate", "--live", "--keyspace", ks, "--table", "events",
		"--rows", "100", "--delete", "row:20", "--avg", "v=1", "--format", "json", "--fail-on", "never"},
		strings.NewReader(""), &out, &errOut, getenv)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, errOut.String())
	}
	var r struct {
		Live struct {
			Hosts        string
			SchemaSource string `json:"schema_source"`
		}
		Tables []struct {
			Name       string
			Tombstones struct {
				PerRead float64 `json:"per_read"`
			}
			Live *struct {
				Reads int64   `json:"tombstones_reads"`
				Max   float64 `json:"tombstones_per_read_max"`
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if r.Live.SchemaSource != "cluster" || len(r.Tables) != 1 || r.Tables[0].Name != ks+".events" {
		t.Fatalf("report: %s", out.String())
	}
	tbl := r.Tables[0]
	if tbl.Live == nil || tbl.Live.Reads < 1 {
		t.Fatalf("no live figures for the table that was read: %s", out.String())
	}
	// 20 row tombstones: the model's whole-partition read and the node's histogram agree
	// (20 is one of the histogram's bucket bounds, so the node reports it exactly).
	if tbl.Tombstones.PerRead != 20 || tbl.Live.Max != 20 {
		t.Errorf("tombstones a read: model %.1f, node's system_views.tombstones_per_read max %.0f; want 20 and 20", tbl.Tombstones.PerRead, tbl.Live.Max)
	}

	// With schema files as well, the files are estimated and compared with the cluster.
	dir := t.TempDir()
	file := filepath.Join(dir, "schema.cql")
	ddl := fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"+
		"CREATE TABLE %s.events (id int, at int, v text, extra int, PRIMARY KEY (id, at));\n", ks, ks)
	if err := os.WriteFile(file, []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	code = DoContext(context.Background(), []string{"estimate", "--schema", file, "--hosts", hosts, "--table", "events",
		"--rows", "100", "--fail-on", "never"}, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "the cluster's schema differs") || !strings.Contains(out.String(), "extra") {
		t.Errorf("the extra column of the schema file is not reported as a difference:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "cluster: max partition") {
		t.Errorf("no cluster line in the text report:\n%s", out.String())
	}
}
