package sizing

import (
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// The figures below are worked by hand from 1,000,000 bytes on one replica.
func TestReplicate(t *testing.T) {
	nts := cql.Replication{Class: cql.NetworkTopologyStrategy, DCs: map[string]int{"dc1": 3, "dc2": 2}}
	for _, c := range []struct {
		name    string
		r       cql.Replication
		nodes   map[string]int
		dcs     []DCReplicas
		cluster float64
		known   bool
		text    string
	}{
		{"nts, nodes unknown", nts, nil,
			[]DCReplicas{{DC: "dc1", RF: 3, Bytes: 3e6}, {DC: "dc2", RF: 2, Bytes: 2e6}}, 5e6, true,
			"dc1 3 copies 3 MB, dc2 2 copies 2 MB; whole cluster 5 MB"},
		// dc1: 3 copies over 6 nodes = 500 kB a node; dc2: 2 copies over 4 = 500 kB.
		{"nts, nodes given", nts, map[string]int{"dc1": 6, "dc2": 4},
			[]DCReplicas{{DC: "dc1", RF: 3, Bytes: 3e6, Nodes: 6, NodeBytes: 5e5}, {DC: "dc2", RF: 2, Bytes: 2e6, Nodes: 4, NodeBytes: 5e5}}, 5e6, true,
			"dc1 3 copies 3 MB (500 kB a node over 6), dc2 2 copies 2 MB (500 kB a node over 4); whole cluster 5 MB"},
		// dc2 has one node for 2 copies: that node holds one copy, 1 MB, never two.
		{"fewer nodes than copies", nts, map[string]int{"dc1": 3, "dc2": 1},
			[]DCReplicas{{DC: "dc1", RF: 3, Bytes: 3e6, Nodes: 3, NodeBytes: 1e6}, {DC: "dc2", RF: 2, Bytes: 2e6, Nodes: 1, NodeBytes: 1e6}}, 5e6, true,
			"dc1 3 copies 3 MB (1 MB a node over 3), dc2 2 copies 2 MB (1 MB a node over 1); whole cluster 5 MB"},
		// SimpleStrategy: 3 copies over 5 nodes = 600 kB a node.
		{"simple", cql.Replication{Class: cql.SimpleStrategy, Factor: 3}, map[string]int{"": 5},
			[]DCReplicas{{RF: 3, Bytes: 3e6, Nodes: 5, NodeBytes: 6e5}}, 3e6, true,
			"3 copies 3 MB (600 kB a node over 5)"},
		{"simple, one copy", cql.Replication{Class: cql.SimpleStrategy, Factor: 1}, nil,
			[]DCReplicas{{RF: 1, Bytes: 1e6}}, 1e6, true,
			"1 copy 1 MB"},
		// A 'replication_factor' default reaches the DCs the nodes name.
		{"nts default, DCs known", cql.Replication{Class: cql.NetworkTopologyStrategy, Factor: 2}, map[string]int{"east": 2, "west": 4},
			[]DCReplicas{{DC: "east", RF: 2, Bytes: 2e6, Nodes: 2, NodeBytes: 1e6}, {DC: "west", RF: 2, Bytes: 2e6, Nodes: 4, NodeBytes: 5e5}}, 4e6, true,
			"east 2 copies 2 MB (1 MB a node over 2), west 2 copies 2 MB (500 kB a node over 4); whole cluster 4 MB"},
		{"nts default, DCs unknown", cql.Replication{Class: cql.NetworkTopologyStrategy, Factor: 2}, nil,
			nil, 0, false,
			"2 copies in each other data center (2 MB each; which DCs the cluster has is not known)"},
		{"everywhere", cql.Replication{Class: "EverywhereStrategy"}, nil, nil, 0, false,
			"its copies follow the nodes: not sized"},
	} {
		got := Replicate(1e6, c.r, c.nodes)
		if len(got.DCs) != len(c.dcs) {
			t.Errorf("%s: DCs %+v, want %+v", c.name, got.DCs, c.dcs)
			continue
		}
		for i := range c.dcs {
			if got.DCs[i] != c.dcs[i] {
				t.Errorf("%s: DC %d = %+v, want %+v", c.name, i, got.DCs[i], c.dcs[i])
			}
		}
		if got.Cluster != c.cluster || got.ClusterKnown != c.known {
			t.Errorf("%s: cluster %v (%v), want %v (%v)", c.name, got.Cluster, got.ClusterKnown, c.cluster, c.known)
		}
		if s := got.Text(); s != c.text {
			t.Errorf("%s: Text()\n got %s\nwant %s", c.name, s, c.text)
		}
	}
}
