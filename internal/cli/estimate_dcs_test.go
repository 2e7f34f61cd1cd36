package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/dctest"
)

// dcsEstimateBound is how far estimate's bytes for a data center may be from the Data.db
// files that DC's nodes hold after a flush (relative error). A DC's figure is one replica's
// times the DC's replication factor, so its error is the byte model's: measured +1.65% to
// +2.31% over five runs (the model spreads write times over the partition's life, where one
// batch a partition writes its rows with one timestamp, and Data.db's delta-encoded
// timestamps come out smaller). A factor wrong by one copy would be off by 50% or 100%.
const dcsEstimateBound = 0.04

// TestDCsEstimatePerDC loads a table of known rows into a keyspace replicated
// {dc1: 2, dc2: 1}, flushes every node and compares estimate's bytes for each data center
// (read from the cluster: the replication from system_schema, the node count from
// system.peers) with the sum of the Data.db files of that DC's nodes. dc1 must hold two
// copies and dc2 one: the figure one replica gives is right for neither. Then profile
// --local-dc dc2 reads the table from dc2 alone and says so.
func TestDCsEstimatePerDC(t *testing.T) {
	hosts := dctest.Hosts(t)
	dctest.Lock(t)
	admin := dctest.Session(t, "")
	ks := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := cassandratest.CreateKeyspace(ctx, admin, ks, "{'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 1}"); err != nil {
		t.Fatal(err)
	}
	// Uncompressed, so Data.db holds what the byte model counts.
	cassandratest.DDL(t, admin, ks, "CREATE TABLE IF NOT EXISTS "+ks+".events (id int, seq int, body text, PRIMARY KEY (id, seq)) WITH compression = {'enabled': 'false'}")
	if err := dctest.AwaitAgreement(ctx, t); err != nil {
		t.Fatal(err)
	}

	// 200 partitions of 50 rows, each body 100 bytes, written at ALL: every replica in
	// both DCs has every row before the flush.
	const partitions, rows, body = 200, 50, 100
	text := strings.Repeat("x", body)
	for id := 0; id < partitions; id++ {
		b := admin.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
		b.SetConsistency(gocql.All)
		for seq := 0; seq < rows; seq++ {
			b.Query("INSERT INTO "+ks+".events (id, seq, body) VALUES (?, ?, ?)", id, seq, text)
		}
		if err := admin.ExecuteBatch(b); err != nil {
			t.Fatalf("write partition %d: %v", id, err)
		}
	}
	measured := map[string]float64{}
	perNode := map[int]float64{}
	nodes := dctest.Nodes(t)
	for _, n := range nodes {
		if n.DC == "" {
			t.Fatalf("node %d (%s): no data center read from the cluster", n.N, n.Host)
		}
		dctest.Nodetool(t, n.N, "flush", ks, "events")
		files, err := filepath.Glob(filepath.Join(n.Dir, "data", ks, "events-*", "*-Data.db"))
		if err != nil || n.Dir == "" {
			t.Fatalf("node %d (dir %q): %v", n.N, n.Dir, err)
		}
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			measured[n.DC] += float64(st.Size())
			perNode[n.N] += float64(st.Size())
		}
	}
	t.Logf("Data.db bytes by DC %v, by node %v", measured, perNode)

	code, out, errOut := run(t, "estimate", "--hosts", strings.Join(hosts, ","), "--keyspace", ks, "--table", "events",
		"--partitions", fmt.Sprint(partitions), "--rows", fmt.Sprint(rows), "--avg", fmt.Sprintf("body=%d", body), "--format", "json", "--fail-on", "never")
	if code != ExitOK {
		t.Fatalf("estimate: exit %d, stderr %s", code, errOut)
	}
	var r struct {
		Tables []struct {
			TotalBytes float64 `json:"total_bytes"`
			Replicas   *struct {
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
	if len(r.Tables) != 1 || r.Tables[0].Replicas == nil || r.Tables[0].Replicas.Source != "cluster" {
		t.Fatalf("no replicas read from the cluster:\n%s", out)
	}
	rp := r.Tables[0].Replicas
	want := map[string]int{"dc1": 2, "dc2": 1}
	if len(rp.DataCenters) != len(want) {
		t.Fatalf("data centers %+v, want dc1 and dc2", rp.DataCenters)
	}
	total := 0.0
	for _, d := range rp.DataCenters {
		if d.ReplicationFactor != want[d.Name] || d.Nodes != 2 {
			t.Errorf("%s: replication factor %d over %d nodes, want %d over 2", d.Name, d.ReplicationFactor, d.Nodes, want[d.Name])
		}
		got := measured[d.Name]
		if e := (d.Bytes - got) / got; e > dcsEstimateBound || e < -dcsEstimateBound {
			t.Errorf("%s: estimate %.0f bytes, its nodes' Data.db %.0f: off by %.1f%%, over the %.0f%% bound", d.Name, d.Bytes, got, 100*e, 100*dcsEstimateBound)
		} else {
			t.Logf("%s: estimate %.0f bytes, its nodes' Data.db %.0f (%+.2f%%)", d.Name, d.Bytes, got, 100*e)
		}
		total += got
	}
	if e := (rp.ClusterBytes - total) / total; e > dcsEstimateBound || e < -dcsEstimateBound {
		t.Errorf("whole cluster: estimate %.0f bytes, Data.db %.0f (%+.1f%%)", rp.ClusterBytes, total, 100*e)
	}
	// profile --local-dc dc2 reads dc2's one copy whole, and says which DC it read.
	code, out, errOut = run(t, "profile", "--hosts", strings.Join(hosts, ","), "-k", ks, "--table", "events", "--full", "--local-dc", "dc2", "--seed", "1")
	if code != ExitOK {
		t.Fatalf("profile --local-dc dc2: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"# Sampled in data center dc2 only (--local-dc: every read routed there, at LOCAL_ONE)", fmt.Sprintf("partitions: %d", partitions)} {
		if !strings.Contains(out, want) {
			t.Errorf("profile --local-dc dc2 lacks %q:\n%s", want, out)
		}
	}
	// dc1 keeps two copies on two nodes: each node holds the whole table.
	for _, n := range nodes {
		if n.DC != "dc1" {
			continue
		}
		for _, d := range rp.DataCenters {
			if d.Name == "dc1" {
				if e := (d.NodeBytes - perNode[n.N]) / perNode[n.N]; e > dcsEstimateBound || e < -dcsEstimateBound {
					t.Errorf("node %d (dc1): estimate %.0f bytes a node, Data.db %.0f (%+.1f%%)", n.N, d.NodeBytes, perNode[n.N], 100*e)
				}
			}
		}
	}
}
