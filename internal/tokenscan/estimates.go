package tokenscan

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/gocql/gocql"
)

// HostOpener opens a session that talks to one node only (its address, no port), so a
// node-local table (system.size_estimates) can be read from each node in turn.
type HostOpener func(ctx context.Context, addr string) (*gocql.Session, error)

// Size is a table's size as system.size_estimates records it: flushed data only, so a
// table still in memtables reads as empty.
type Size struct {
	Partitions float64
	Bytes      float64 // the sum over ranges of partitions_count * mean_partition_size
}

// SizeEstimates sums system.size_estimates for a table over the ranges the answering node
// records (its primary ranges): on one node the whole table.
func SizeEstimates(ctx context.Context, s *gocql.Session, ks, table string) (Size, error) {
	iter := s.Query(`SELECT partitions_count, mean_partition_size FROM system.size_estimates WHERE keyspace_name = ? AND table_name = ?`, ks, table).
		WithContext(ctx).Consistency(gocql.One).Iter()
	var n, mean int64
	var total Size
	for iter.Scan(&n, &mean) {
		total.Partitions += float64(n)
		total.Bytes += float64(n) * float64(mean)
	}
	if err := iter.Close(); err != nil {
		return Size{}, fmt.Errorf("read system.size_estimates for %s.%s: %w", ks, table, err)
	}
	return total, nil
}

// NodeAddrs returns the CQL addresses of every node: the peers the answering node knows and
// that node itself, taken from the driver's view of which host answered (system.local could
// be answered by another coordinator than system.peers).
func NodeAddrs(ctx context.Context, s *gocql.Session) ([]string, error) {
	seen := map[string]bool{}
	var ip net.IP
	iter := s.Query(`SELECT rpc_address FROM system.peers`).WithContext(ctx).Consistency(gocql.One).Iter()
	for iter.Scan(&ip) {
		seen[ip.String()] = true
	}
	if h := iter.Host(); h != nil && h.ConnectAddress() != nil {
		seen[h.ConnectAddress().String()] = true
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system.peers: %w", err)
	}
	addrs := make([]string, 0, len(seen))
	for a := range seen {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	return addrs, nil
}

// Estimator reads size_estimates from every node through per-node sessions it opens once
// and keeps for the run. Each node records its own primary ranges, so the sum over nodes is
// the table once, whatever the replication factor.
type Estimator struct {
	open     HostOpener
	addrs    []string
	sessions map[string]*gocql.Session
	failed   map[string]error
}

// NewEstimator reads from the nodes at addrs, opening a session to each with open.
func NewEstimator(open HostOpener, addrs []string) *Estimator {
	return &Estimator{open: open, addrs: addrs, sessions: map[string]*gocql.Session{}, failed: map[string]error{}}
}

// Close closes the per-node sessions.
func (e *Estimator) Close() {
	for _, s := range e.sessions {
		s.Close()
	}
}

// Sum returns the table's size over every node that answered, the nodes that did, and
// a problem naming those that did not.
func (e *Estimator) Sum(ctx context.Context, ks, table string) (Size, int, string) {
	var total Size
	nodes := 0
	var missed []string
	for _, a := range e.addrs {
		s := e.sessions[a]
		if s == nil && e.failed[a] == nil {
			var err error
			if s, err = e.open(ctx, a); err != nil {
				e.failed[a] = err
			} else {
				e.sessions[a] = s
			}
		}
		if s == nil {
			missed = append(missed, fmt.Sprintf("%s (%v)", a, e.failed[a]))
			continue
		}
		n, err := SizeEstimates(ctx, s, ks, table)
		if err != nil {
			missed = append(missed, fmt.Sprintf("%s (%v)", a, err))
			continue
		}
		total.Partitions += n.Partitions
		total.Bytes += n.Bytes
		nodes++
	}
	problem := ""
	if len(missed) > 0 {
		problem = fmt.Sprintf("system.size_estimates of %s.%s not read from %s", ks, table, strings.Join(missed, ", "))
	}
	return total, nodes, problem
}
