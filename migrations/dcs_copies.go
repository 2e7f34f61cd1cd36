package migrations

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// A run that applies while a DC has replicas down leaves that DC without the bookkeeping
// rows, and without the data migrations' rows, it missed. The schema comes back by
// gossip; the rows come back only by hints, which are best-effort (dropped past
// max_hint_window, on a coordinator restart, under load), or by repair, which is not.
// So the run names the repair to run (Result.Behind, RepairPlan), and CompareDCs checks
// afterwards, per DC, that its replicas hold the whole history.

// RepairCommands are the nodetool commands that bring a node that missed writes up to
// date with the other replicas of the bookkeeping keyspace and the target keyspace: a
// full repair of each (not incremental: the node's missed rows may sit in sstables
// already marked repaired elsewhere), to run once every DC is up on the nodes RepairPlan
// names.
func (m *Migrator) RepairCommands() []string {
	var out []string
	for _, ks := range m.repairKeyspaces() {
		out = append(out, repairCommand(ks))
	}
	return out
}

// repairKeyspaces are the keyspaces a run writes to: the bookkeeping first.
func (m *Migrator) repairKeyspaces() []string {
	if m.opt.Keyspace == m.opt.BookkeepingKeyspace {
		return []string{m.opt.BookkeepingKeyspace}
	}
	return []string{m.opt.BookkeepingKeyspace, m.opt.Keyspace}
}

func repairCommand(keyspace string) string { return "nodetool repair -full " + keyspace }

// Repair is one command to run on one node.
type Repair struct {
	Host    string // the node's address without its port, as nodetool and an operator name it
	Command string
}

// RepairPlan is what to run so that hosts, nodes of dc (those that were down, or all of
// dc's when it lacks history), hold what the other replicas do: RepairCommands on each of
// hosts, except that a keyspace whose replication puts at least as many replicas in dc as
// dc has nodes (nodes) is repaired on the first of hosts only. Every node of dc then holds
// a replica of every range of that keyspace, and a full repair on one node repairs every
// range it holds with all of that range's replicas, in every DC: the other hosts' copies
// come out whole from it, and a repair on each of them would repeat the same work (minutes
// a node on a busy cluster). When a replication cannot be read, every host repairs.
func (m *Migrator) RepairPlan(ctx context.Context, dc string, nodes int, hosts []string) []Repair {
	keyspaces := m.repairKeyspaces()
	rf := map[string]int{}
	for _, ks := range keyspaces {
		if r, err := networkReplication(ctx, m.s, ks); err == nil {
			rf[ks] = r[dc]
		}
	}
	return repairPlan(keyspaces, rf, nodes, hosts)
}

// repairPlan is RepairPlan's rule over the replication of each keyspace in the DC (rf,
// 0 or absent when unknown).
func repairPlan(keyspaces []string, rf map[string]int, nodes int, hosts []string) []Repair {
	var out []Repair
	for i, h := range hosts {
		for _, ks := range keyspaces {
			if i == 0 || nodes <= 0 || rf[ks] < nodes {
				out = append(out, Repair{Host: Host(h), Command: repairCommand(ks)})
			}
		}
	}
	return out
}

// Host is a node's address without its port, as nodetool and an operator name it.
func Host(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// DCCopy is the history as one datacenter's replicas hold it.
type DCCopy struct {
	DC    string
	Nodes []string // the DC's nodes, their CQL address and port
	// Records is each version's state and checksum ("applied 1a2b..."), read at
	// LOCAL_QUORUM through the DC's own nodes alone. Nil when ReadErr is set.
	Records map[int64]string
	ReadErr error
	// Lacks are the versions another DC records that this DC does not, or records
	// otherwise (another state or checksum).
	Lacks []int64
	// Schema is each node's own schema version, "" when the node did not answer.
	Schema map[string]string
	// SchemaLags are the nodes whose schema version is not the one most nodes hold, or
	// that did not answer.
	SchemaLags []string
}

// Whole reports whether the DC could be read and holds everything the other DCs do.
func (c DCCopy) Whole() bool { return c.ReadErr == nil && len(c.Lacks) == 0 && len(c.SchemaLags) == 0 }

// Opener opens a session whose queries go to the given hosts (host:port) alone.
type Opener func(ctx context.Context, hosts []string) (*gocql.Session, error)

// CompareDCs reads, for every DC, the bookkeeping at LOCAL_QUORUM through a session
// confined to that DC's nodes, and each node's own schema version, then marks what each
// DC lacks against the others. A LOCAL_QUORUM read in the DC sees exactly what that DC's
// replicas hold (its read repair stays in the DC); a read at QUORUM would not tell the
// DCs apart, and would repair the very rows it should find missing.
func (m *Migrator) CompareDCs(ctx context.Context, open Opener) ([]DCCopy, error) {
	nodes, err := readView(ctx, m.s)
	if err != nil {
		return nil, err
	}
	byDC := map[string][]string{}
	for _, n := range nodes {
		if n.member() && n.Native != "" {
			byDC[n.DC] = append(byDC[n.DC], n.Native)
		}
	}
	var out []DCCopy
	for dc, hosts := range byDC {
		sort.Strings(hosts)
		c := DCCopy{DC: dc, Nodes: hosts, Schema: map[string]string{}}
		c.Records, c.ReadErr = m.dcRecords(ctx, open, hosts)
		for _, h := range hosts {
			c.Schema[h] = ownSchema(ctx, open, h)
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].DC < out[j].DC })
	markLacks(out)
	return out, nil
}

func (m *Migrator) dcRecords(ctx context.Context, open Opener, hosts []string) (map[int64]string, error) {
	s, err := open(ctx, hosts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	opt := m.opt
	opt.Consistency = gocql.LocalQuorum
	// A DC whose nodes are down is an answer (ReadErr), not something to wait out.
	opt.AgreementTimeout = 5 * time.Second
	recs, err := newStore(s, opt).records(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int64]string{}
	for v, r := range recs {
		out[v] = string(r.State) + " " + r.Checksum
	}
	return out, nil
}

func ownSchema(ctx context.Context, open Opener, host string) string {
	s, err := open(ctx, []string{host})
	if err != nil {
		return ""
	}
	defer s.Close()
	var v gocql.UUID
	if err := s.Query(`SELECT schema_version FROM system.local`).WithContext(ctx).Consistency(gocql.One).Scan(&v); err != nil {
		return ""
	}
	return v.String()
}

// markLacks fills each readable DC's Lacks from the others' records, and every DC's
// SchemaLags from the schema version most nodes hold.
func markLacks(dcs []DCCopy) {
	votes := map[string]int{}
	for _, c := range dcs {
		for _, v := range c.Schema {
			if v != "" {
				votes[v]++
			}
		}
	}
	most := ""
	for v, n := range votes {
		if n > votes[most] || n == votes[most] && v < most {
			most = v
		}
	}
	for i := range dcs {
		c := &dcs[i]
		for h, v := range c.Schema {
			if v != most {
				c.SchemaLags = append(c.SchemaLags, h)
			}
		}
		sort.Strings(c.SchemaLags)
		if c.ReadErr != nil {
			continue
		}
		lacks := map[int64]bool{}
		for j, o := range dcs {
			if j == i || o.ReadErr != nil {
				continue
			}
			for v, rec := range o.Records {
				if c.Records[v] != rec {
					lacks[v] = true
				}
			}
		}
		for v := range lacks {
			c.Lacks = append(c.Lacks, v)
		}
		sort.Slice(c.Lacks, func(a, b int) bool { return c.Lacks[a] < c.Lacks[b] })
	}
}

// VersionsText writes versions as "1, 2, 3".
func VersionsText(vs []int64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}
