package report_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/workload"
)

// replicasReport builds a one-table report of keyspace app created with replication repl.
func replicasReport(t *testing.T, repl string, opt report.Options) *report.Report {
	t.Helper()
	s := cql.NewSchema()
	src := "CREATE KEYSPACE app WITH replication = " + repl + ";\n" +
		"CREATE TABLE app.events (id uuid, at timestamp, body text, PRIMARY KEY (id, at));\n"
	if err := s.ApplyFile("schema.cql", []byte(src)); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Parse("w.yaml", []byte("version: 1\ntables:\n  app.events:\n    partitions: 1000\n    rows_per_partition: 100\n    avg: {body: 100}\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(s, w, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Each DC's figure is one replica's bytes times that DC's replication factor, one node's
// that over the DC's nodes; the whole cluster is their sum. Worked here from total_bytes
// with the factors written out, not through the code under test.
func TestReplicasNetworkTopology(t *testing.T) {
	r := replicasReport(t, "{'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 1}",
		report.Options{Nodes: map[string]int{"dc1": 2, "dc2": 2}})
	tb := r.Tables[0]
	one := float64(tb.TotalBytes)
	if one <= 0 {
		t.Fatalf("total_bytes %v", one)
	}
	rp := tb.Replicas
	if rp == nil || rp.Class != "NetworkTopologyStrategy" || rp.Source != "schema" || len(rp.DataCenters) != 2 {
		t.Fatalf("replicas %+v", rp)
	}
	want := []report.DCReplicas{
		{Name: "dc1", ReplicationFactor: 2, Bytes: report.Num(2 * one), Nodes: 2, NodeBytes: report.Num(one)}, // both nodes hold everything
		{Name: "dc2", ReplicationFactor: 1, Bytes: report.Num(one), Nodes: 2, NodeBytes: report.Num(one / 2)}, // each node half
	}
	for i, w := range want {
		if rp.DataCenters[i] != w {
			t.Errorf("data center %d: %+v, want %+v", i, rp.DataCenters[i], w)
		}
	}
	if float64(rp.ClusterBytes) != 3*one || !rp.ClusterKnown {
		t.Errorf("cluster %v (known %v), want %v", rp.ClusterBytes, rp.ClusterKnown, 3*one)
	}
	if !strings.Contains(rp.Line(), "NetworkTopologyStrategy from the schema's CREATE KEYSPACE: dc1 2 copies") {
		t.Errorf("line %q", rp.Line())
	}
}

// --replication wins over the keyspace's own, and says so.
func TestReplicasFlagOverSchema(t *testing.T) {
	flag, err := cql.ParseReplication("", "{'class': 'NetworkTopologyStrategy', 'east': 3}")
	if err != nil {
		t.Fatal(err)
	}
	r := replicasReport(t, "{'class': 'SimpleStrategy', 'replication_factor': 1}", report.Options{Replication: &flag})
	rp := r.Tables[0].Replicas
	if rp == nil || rp.Source != "flag" || len(rp.DataCenters) != 1 || rp.DataCenters[0].Name != "east" ||
		float64(rp.DataCenters[0].Bytes) != 3*float64(r.Tables[0].TotalBytes) {
		t.Fatalf("replicas %+v", rp)
	}
}

// SimpleStrategy is one figure: the cluster's copies, spread over every node.
func TestReplicasSimple(t *testing.T) {
	r := replicasReport(t, "{'class': 'SimpleStrategy', 'replication_factor': 3}", report.Options{Nodes: map[string]int{"": 6}})
	one := float64(r.Tables[0].TotalBytes)
	rp := r.Tables[0].Replicas
	if rp == nil || len(rp.DataCenters) != 1 {
		t.Fatalf("replicas %+v", rp)
	}
	if d := rp.DataCenters[0]; d.Name != "" || d.ReplicationFactor != 3 || float64(d.Bytes) != 3*one || d.Nodes != 6 || float64(d.NodeBytes) != one/2 {
		t.Errorf("cluster entry %+v, want 3 copies of %v over 6 nodes", d, one)
	}
}

// A keyspace with no replication (migrations run with --keyspace, which create none) gives
// no replicas: the report keeps one replica's figures.
func TestReplicasUnknown(t *testing.T) {
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte("CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE app.events (id uuid, at timestamp, body text, PRIMARY KEY (id, at));")); err != nil {
		t.Fatal(err)
	}
	s.Keyspaces["app"].Replication = map[string]string{}
	w, err := workload.Parse("w.yaml", []byte("version: 1\ntables:\n  app.events:\n    partitions: 1000\n    rows_per_partition: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(s, w, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Tables[0].Replicas != nil {
		t.Errorf("replicas %+v with no replication known", r.Tables[0].Replicas)
	}
}
