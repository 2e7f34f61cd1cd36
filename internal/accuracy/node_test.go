package accuracy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSSTablePartitionsCSV(t *testing.T) {
	f, err := os.Open("testdata/sstablepartitions.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parts, err := ParseSSTablePartitionsCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 {
		t.Fatalf("%d partitions, want 3", len(parts))
	}
	p := parts[1]
	if p.Key != "t_testbaselineandoutoforder_492a2abc" || p.Live || p.Size != 51 || p.Table != "keyspaces" || !strings.HasSuffix(p.Data, "-Data.db") {
		t.Errorf("partition 2: %+v", p)
	}
	if _, err := ParseSSTablePartitionsCSV(strings.NewReader("key,size\n")); err == nil || !strings.Contains(err.Error(), `no "live" column`) {
		t.Errorf("a header without the columns: %v", err)
	}
	if _, err := ParseSSTablePartitionsCSV(strings.NewReader("")); err == nil {
		t.Error("empty output: no error")
	}
}

func TestParseHistogramMax(t *testing.T) {
	b, err := os.ReadFile("testdata/tablehistograms.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseHistogramMax(string(b))
	if err != nil || got != 11864 {
		t.Errorf("parseHistogramMax = %d, %v; want 11864", got, err)
	}
	if _, err := parseHistogramMax("nothing"); err == nil {
		t.Error("no Max line: no error")
	}
}

func TestFindModuleRoot(t *testing.T) {
	root, err := FindModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "scripts", "cassandra")); err != nil {
		t.Errorf("module root %s has no scripts/cassandra: %v", root, err)
	}
	if _, err := FindModuleRoot(os.TempDir()); err == nil {
		t.Error("found a module root above the temp directory")
	}
}

func TestReferenceWorkloadsParse(t *testing.T) {
	if len(References) < 8 {
		t.Fatalf("%d reference workloads, the acceptance test wants at least 8", len(References))
	}
	seen := map[string]bool{}
	for _, ref := range References {
		if seen[ref.Name] {
			t.Errorf("reference %s twice", ref.Name)
		}
		seen[ref.Name] = true
		w, err := ParseReferenceWorkload(ref)
		if err != nil {
			t.Errorf("%s: %v", ref.Name, err)
			continue
		}
		if w.RowsPerPartition <= 0 || w.Partitions < 1 {
			t.Errorf("%s: %v rows a partition, %v partitions", ref.Name, w.RowsPerPartition, w.Partitions)
		}
		if !strings.Contains(ref.Schema, "CREATE TABLE "+ref.Name+" ") {
			t.Errorf("%s: the schema does not create the table %s", ref.Name, ref.Name)
		}
	}
}

func TestCause(t *testing.T) {
	out := `Exception in thread "main" java.lang.IllegalArgumentException: Server is not initialized yet, cannot run nodetool.
	at org.apache.cassandra.tools.NodeTool.err(NodeTool.java:328)
	at org.apache.cassandra.tools.NodeTool.main(NodeTool.java:87)
`
	if got := cause(out); got != `Exception in thread "main" java.lang.IllegalArgumentException: Server is not initialized yet, cannot run nodetool.` {
		t.Errorf("cause = %q", got)
	}
	if !transient(fmt.Errorf("x: %s", cause(out))) {
		t.Error("not initialized: not transient")
	}
	if transient(fmt.Errorf("nodetool: Keyspace [nope] does not exist")) {
		t.Error("a missing keyspace is transient")
	}
}
