package sizing

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Replicas is a table's data across a cluster: the bytes one replica holds (what every
// other figure of the estimate is about) multiplied by the copies the keyspace's
// replication keeps in each data center and in the whole cluster, and divided over the
// nodes of a DC when their number is known. Capacity is bought per DC and per node, so
// that is where the figure must land; one replica's bytes alone understate a
// NetworkTopologyStrategy {dc1: 3, dc2: 3} keyspace six times.
type Replicas struct {
	Replication cql.Replication
	// OneReplica is the bytes of one copy of the table (Estimate.TotalBytes).
	OneReplica float64
	// DCs is one entry per data center NetworkTopologyStrategy names (sorted), or for
	// SimpleStrategy one entry with no name: the whole cluster, whose replicas disregard DCs.
	DCs []DCReplicas
	// Cluster is the bytes of every copy in the cluster; ClusterKnown is false when the
	// copies depend on nodes the estimate does not know (a NetworkTopologyStrategy
	// 'replication_factor' default with no DCs given, LocalStrategy, EverywhereStrategy).
	Cluster      float64
	ClusterKnown bool
}

// DCReplicas is one data center's share.
type DCReplicas struct {
	DC string // "" for SimpleStrategy's whole cluster
	RF int    // copies of each row kept in the DC
	// Bytes is OneReplica × RF: what the DC's disks hold together.
	Bytes float64
	// Nodes is the DC's node count when known (0 when not); NodeBytes is one node's share,
	// Bytes spread evenly over them (vnodes or balanced tokens). A DC with fewer nodes than
	// its RF keeps one copy a node: a node never holds two replicas of a row.
	Nodes     int
	NodeBytes float64
}

// Replicate spreads oneReplica bytes by replication r. nodes gives the node count of each
// DC by name, or of the whole cluster under the key "" (for SimpleStrategy; the DCs' counts
// are summed when only they are given); nil when not known. Under NetworkTopologyStrategy
// a 'replication_factor' default reaches every DC of nodes the map does not name.
func Replicate(oneReplica float64, r cql.Replication, nodes map[string]int) Replicas {
	out := Replicas{Replication: r, OneReplica: oneReplica}
	switch r.Class {
	case cql.SimpleStrategy:
		n := nodes[""]
		if n == 0 {
			for _, c := range nodes {
				n += c
			}
		}
		out.DCs = []DCReplicas{dcShare(oneReplica, "", r.Factor, n)}
	case cql.NetworkTopologyStrategy:
		rf := map[string]int{}
		for dc, n := range r.DCs {
			rf[dc] = n
		}
		out.ClusterKnown = r.Factor == 0
		if r.Factor > 0 && len(nodes) > 0 {
			for dc := range nodes {
				if _, named := rf[dc]; !named && dc != "" {
					rf[dc] = r.Factor
				}
			}
			out.ClusterKnown = true
		}
		names := make([]string, 0, len(rf))
		for dc := range rf {
			names = append(names, dc)
		}
		sort.Strings(names)
		for _, dc := range names {
			out.DCs = append(out.DCs, dcShare(oneReplica, dc, rf[dc], nodes[dc]))
		}
	default:
		return out
	}
	if r.Class == cql.SimpleStrategy {
		out.ClusterKnown = true
	}
	if out.ClusterKnown {
		for _, d := range out.DCs {
			out.Cluster += d.Bytes
		}
	}
	return out
}

func dcShare(oneReplica float64, dc string, rf, nodes int) DCReplicas {
	d := DCReplicas{DC: dc, RF: rf, Bytes: oneReplica * float64(rf), Nodes: nodes}
	if nodes > 0 {
		d.NodeBytes = oneReplica * float64(min(rf, nodes)) / float64(nodes)
	}
	return d
}

// Text is the one phrase the reports give the copies, such as "dc1 3 copies 3 MB (500 kB
// a node over 6), dc2 2 copies 2 MB; whole cluster 5 MB" (the class is the caller's to name).
func (r Replicas) Text() string {
	var parts []string
	for _, d := range r.DCs {
		s := fmt.Sprintf("%s %s", copies(d.RF), FormatBytes(d.Bytes))
		if d.DC != "" {
			s = d.DC + " " + s
		}
		if d.Nodes > 0 {
			s += fmt.Sprintf(" (%s a node over %d)", FormatBytes(d.NodeBytes), d.Nodes)
		}
		parts = append(parts, s)
	}
	text := strings.Join(parts, ", ")
	switch {
	case r.ClusterKnown && r.Replication.Class == cql.NetworkTopologyStrategy:
		text += "; whole cluster " + FormatBytes(r.Cluster)
	case !r.ClusterKnown && r.Replication.Factor > 0:
		if text != "" {
			text += "; "
		}
		text += fmt.Sprintf("%s in each other data center (%s each; which DCs the cluster has is not known)", copies(r.Replication.Factor), FormatBytes(r.OneReplica*float64(r.Replication.Factor)))
	case !r.ClusterKnown:
		text = "its copies follow the nodes: not sized"
	}
	return text
}

func copies(n int) string {
	if n == 1 {
		return "1 copy"
	}
	return fmt.Sprintf("%d copies", n)
}
