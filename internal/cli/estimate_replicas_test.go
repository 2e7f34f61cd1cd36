package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// --replication and --nodes give each DC's copies and each node's share: worked here from
// the report's own total_bytes (one replica) with the factors written out.
func TestEstimateReplicationFlag(t *testing.T) {
	code, out, errOut := run(t, "estimate", "--schema", estSchema, "--workload", estWorkload, "--table", "readings",
		"--replication", "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}", "--nodes", "dc1=6, dc2=4", "--format", "json")
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	var r struct {
		Tables []struct {
			TotalBytes float64 `json:"total_bytes"`
			Replicas   struct {
				Source      string
				DataCenters []struct {
					Name              string
					ReplicationFactor int     `json:"replication_factor"`
					Bytes             float64 `json:"bytes"`
					Nodes             int     `json:"nodes"`
					NodeBytes         float64 `json:"node_bytes"`
				} `json:"data_centers"`
				ClusterBytes float64 `json:"cluster_bytes"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	one := r.Tables[0].TotalBytes
	rp := r.Tables[0].Replicas
	if rp.Source != "flag" || len(rp.DataCenters) != 2 {
		t.Fatalf("replicas %+v", rp)
	}
	// JSON keeps six significant digits: compare within one part in 10^5.
	near := func(got, want float64) bool { return got >= want*(1-1e-5) && got <= want*(1+1e-5) }
	for i, w := range []struct {
		name      string
		rf, nodes int
		bytes     float64
		node      float64
	}{{"dc1", 3, 6, 3 * one, 3 * one / 6}, {"dc2", 2, 4, 2 * one, 2 * one / 4}} {
		d := rp.DataCenters[i]
		if d.Name != w.name || d.ReplicationFactor != w.rf || d.Nodes != w.nodes || !near(d.Bytes, w.bytes) || !near(d.NodeBytes, w.node) {
			t.Errorf("data center %d: %+v, want %+v", i, d, w)
		}
	}
	if !near(rp.ClusterBytes, 5*one) {
		t.Errorf("cluster_bytes %v, want %v", rp.ClusterBytes, 5*one)
	}
}

func TestEstimateReplicationFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--replication", "{'class': 'NetworkTopologyStrategy', 'dc1': 'x'}"}, "--replication {'class': 'NetworkTopologyStrategy', 'dc1': 'x'}: 1:45: replication \"dc1\": \"x\" is not a replica count"},
		{[]string{"--replication", "3"}, "--replication 3: 1:1: expected a replication map"},
		{[]string{"--replication", "{'class': 'SimpleStrategy'}"}, "SimpleStrategy requires a replication_factor"},
		{[]string{"--nodes", "dc1=0"}, "--nodes dc1=0: dc1: \"0\" is not a node count"},
		{[]string{"--nodes", "dc1=2,dc1=3"}, "--nodes dc1=2,dc1=3: data center dc1 given twice"},
		{[]string{"--nodes", "many"}, "--nodes many: \"many\" is not a node count"},
	} {
		args := append([]string{"estimate", "--schema", estSchema, "--workload", estWorkload}, c.args...)
		code, out, errOut := run(t, args...)
		if code != ExitBadInput || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit %d naming %q", c.args, code, len(out), errOut, ExitBadInput, c.want)
		}
	}
}

// design takes the same --replication and refuses a bad one before writing anything.
func TestDesignReplicationFlag(t *testing.T) {
	dir := "../../design/testdata/cases/sensors/"
	out := t.TempDir()
	args := []string{"design", "-k", "app", "--schema", dir + "entities.cql", "--queries", dir + "queries.cql", "--workload", dir + "workload.yaml", "--out", out}
	code, stdout, errOut := run(t, append(args, "--replication", "{'class': 'NetworkTopologyStrategy', 'dc1': 3,")...)
	if code != ExitBadInput || stdout != "" || !strings.Contains(errOut, "--replication {'class': 'NetworkTopologyStrategy', 'dc1': 3,: ") {
		t.Errorf("bad --replication: exit %d, stderr %q", code, errOut)
	}
	code, stdout, errOut = run(t, append(args, "--replication", "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}")...)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(stdout, "NetworkTopologyStrategy dc1 3 copies") {
		t.Errorf("output lacks the copies per DC:\n%s", stdout)
	}
}
