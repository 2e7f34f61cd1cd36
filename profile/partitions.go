package profile

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

// sizeEstimates sums system.size_estimates for a table over the ranges the answering node
// records (its primary ranges): on one node the whole table, flushed data only.
func sizeEstimates(ctx context.Context, s *gocql.Session, ks, table string) (float64, error) {
	iter := s.Query(`SELECT partitions_count FROM system.size_estimates WHERE keyspace_name = ? AND table_name = ?`, ks, table).
		WithContext(ctx).Consistency(gocql.One).Iter()
	var n int64
	var total float64
	for iter.Scan(&n) {
		total += float64(n)
	}
	if err := iter.Close(); err != nil {
		return 0, fmt.Errorf("read system.size_estimates for %s.%s: %w", ks, table, err)
	}
	return total, nil
}

// nodeAddrs returns the CQL addresses of every node: the peers the answering node knows and
// that node itself, taken from the driver's view of which host answered (system.local could
// be answered by another coordinator than system.peers).
func nodeAddrs(ctx context.Context, s *gocql.Session) ([]string, error) {
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

// estimator reads size_estimates from every node through per-node sessions it opens once
// and keeps for the run. Each node records its own primary ranges, so the sum over nodes is
// the table once, whatever the replication factor.
type estimator struct {
	open     HostOpener
	addrs    []string
	sessions map[string]*gocql.Session
	failed   map[string]error
}

func (e *estimator) close() {
	for _, s := range e.sessions {
		s.Close()
	}
}

// sum returns the table's partitions over every node that answered, the nodes that did, and
// a problem naming those that did not.
func (e *estimator) sum(ctx context.Context, ks, table string) (float64, int, string) {
	var total float64
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
		n, err := sizeEstimates(ctx, s, ks, table)
		if err != nil {
			missed = append(missed, fmt.Sprintf("%s (%v)", a, err))
			continue
		}
		total += n
		nodes++
	}
	problem := ""
	if len(missed) > 0 {
		problem = fmt.Sprintf("system.size_estimates of %s.%s not read from %s", ks, table, strings.Join(missed, ", "))
	}
	return total, nodes, problem
}
