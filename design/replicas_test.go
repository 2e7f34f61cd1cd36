package design_test

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/design"
)

// Given DCs, the migration creates a NetworkTopologyStrategy keyspace (the entities, written
// for migrate --keyspace, create none), and each sized table's copies are one replica's
// bytes times each DC's factor: worked here from Estimate.TotalBytes with the factors
// written out.
func TestDesignReplication(t *testing.T) {
	in := load(t, filepath.Join("testdata", "cases", "sensors"), "app")
	r, err := cql.ParseReplication("", "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}")
	if err != nil {
		t.Fatal(err)
	}
	in.Replication, in.Nodes = &r, map[string]int{"dc1": 6, "dc2": 4}
	d, err := design.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	mig := d.Migration(in.Schema)
	if want := "CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '2'};"; !strings.Contains(mig, want) {
		t.Errorf("migration lacks %s:\n%s", want, mig)
	}
	if n := strings.Count(mig, "CREATE KEYSPACE"); n != 1 {
		t.Errorf("migration creates the keyspace %d times", n)
	}
	for _, tb := range d.Tables {
		rp := tb.Replicas
		if tb.Estimate == nil || rp == nil || len(rp.DCs) != 2 {
			t.Fatalf("%s: estimate %v, replicas %+v", tb.Table.QualifiedName(), tb.Estimate != nil, rp)
		}
		one := tb.Estimate.TotalBytes
		if d1, d2 := rp.DCs[0], rp.DCs[1]; d1.DC != "dc1" || !near(d1.Bytes, 3*one) || !near(d1.NodeBytes, one/2) ||
			d2.DC != "dc2" || !near(d2.Bytes, 2*one) || !near(d2.NodeBytes, one/2) || !near(rp.Cluster, 5*one) {
			t.Errorf("%s: replicas %+v of %v bytes, want dc1 3 copies over 6 nodes and dc2 2 over 4", tb.Table.QualifiedName(), rp, one)
		}
	}
	var text, js bytes.Buffer
	if err := d.WriteText(&text, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "  replicas: ") || !strings.Contains(text.String(), "NetworkTopologyStrategy dc1 3 copies") {
		t.Errorf("text lacks the replicas:\n%s", text.String())
	}
	if err := d.WriteJSON(&js, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables []struct {
			Replicas *struct {
				TotalBytes  float64 `json:"total_bytes"`
				DataCenters []struct {
					Name  string
					Bytes float64
				} `json:"data_centers"`
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if rp := doc.Tables[0].Replicas; rp == nil || len(rp.DataCenters) != 2 || rp.DataCenters[1].Name != "dc2" {
		t.Errorf("JSON replicas %+v", rp)
	}
}

// Without DCs the keyspace is written as the entities create it, and the copies follow it.
func TestDesignReplicationFromEntities(t *testing.T) {
	in := load(t, filepath.Join("testdata", "cases", "sensors"), "app")
	in.Schema.Keyspaces["app"].Replication = map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3"}
	d, err := design.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if mig := d.Migration(in.Schema); !strings.Contains(mig, "WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '3'};") {
		t.Errorf("migration:\n%s", mig)
	}
	for _, tb := range d.Tables {
		if rp := tb.Replicas; rp == nil || len(rp.DCs) != 1 || rp.DCs[0].RF != 3 || !near(rp.Cluster, 3*tb.Estimate.TotalBytes) {
			t.Errorf("%s: replicas %+v", tb.Table.QualifiedName(), rp)
		}
	}
}

// near compares within float rounding (sums of products).
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
