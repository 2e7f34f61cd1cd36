package ringtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
)

// A node that was paused or restarted while other nodes changed the schema usually pulls
// the schema it missed within seconds; on a loaded 2-core machine it was seen to stay on
// its own schema version for over two minutes after being resumed (CI: the next test's
// CREATE KEYSPACE never reached agreement, and its DROP answered "Unknown CF" from that
// node). That is the test ring's health, not what a test measures, so the ring is mended
// as an operator would: the nodes on a minority version reset their local schema (it is
// pulled again from the others), and if that does not do within a while, are restarted.
const (
	nudgeAfter   = 30 * time.Second // disagreement this old: nodetool resetlocalschema
	restartAfter = 90 * time.Second // and this old: stop and start the node
)

// versions reads each node's schema version as the coordinator's system.local and
// system.peers give it, keyed by the node's address.
func versions(ctx context.Context, s *gocql.Session) (map[string]string, error) {
	out := map[string]string{}
	var addr net.IP
	var v gocql.UUID
	if err := s.Query(`SELECT rpc_address, schema_version FROM system.local`).WithContext(ctx).Scan(&addr, &v); err != nil {
		return nil, err
	}
	out[addr.String()] = v.String()
	iter := s.Query(`SELECT rpc_address, schema_version FROM system.peers`).WithContext(ctx).Iter()
	for iter.Scan(&addr, &v) {
		out[addr.String()] = v.String()
	}
	return out, iter.Close()
}

// minority returns the addresses whose version is not the one most nodes have, sorted; nil
// when all agree or no version has more nodes than every other.
func minority(vers map[string]string) []string {
	count := map[string]int{}
	for _, v := range vers {
		count[v]++
	}
	best, tie := "", false
	for v, n := range count {
		switch {
		case best == "" || n > count[best]:
			best, tie = v, false
		case n == count[best]:
			tie = true
		}
	}
	if len(count) < 2 || tie {
		return nil
	}
	var out []string
	for a, v := range vers {
		if v != best {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// nodeNumber is the ring node (1-based, in the order of hosts) at addr, or 0.
func nodeNumber(hosts []string, addr string) int {
	for i, h := range hosts {
		if host, _, err := net.SplitHostPort(h); err == nil {
			h = host
		}
		if h == addr {
			return i + 1
		}
	}
	return 0
}

// mender remembers what was done to mend one wait's disagreement.
type mender struct {
	hosts   []string  // the ring's contact points, CQLSIZE_RING_HOSTS
	since   time.Time // when disagreement was first seen
	reset   map[int]bool
	restart map[int]bool
	logf    func(string, ...any)
}

// mend looks at the versions and acts on the minority nodes once the disagreement is old
// enough.
func (m *mender) mend(ctx context.Context, s *gocql.Session) {
	vers, err := versions(ctx, s)
	if err != nil {
		return
	}
	late := minority(vers)
	if len(late) == 0 {
		m.since = time.Time{}
		return
	}
	if m.since.IsZero() {
		m.since = time.Now()
	}
	nodes := len(m.hosts)
	for _, a := range late {
		n := nodeNumber(m.hosts, a)
		if n == 0 {
			continue
		}
		switch age := time.Since(m.since); {
		case age > restartAfter && !m.restart[n]:
			m.restart[n] = true
			m.logf("ringtest: node %d (%s) still on its own schema version after %s: restarting it", n, a, age.Round(time.Second))
			out, err := script(nodes, "stop", strconv.Itoa(n))
			if err == nil {
				out, err = script(nodes, "start", strconv.Itoa(n))
			}
			if err != nil {
				m.logf("ringtest: restart node %d: %v\n%s", n, err, out)
			}
		case age > nudgeAfter && !m.reset[n]:
			m.reset[n] = true
			m.logf("ringtest: node %d (%s) on its own schema version for %s (versions %s): nodetool resetlocalschema",
				n, a, age.Round(time.Second), describe(vers))
			if out, err := script(nodes, "nodetool", "-n", strconv.Itoa(n), "resetlocalschema"); err != nil {
				m.logf("ringtest: resetlocalschema on node %d: %v\n%s", n, err, out)
			}
		}
	}
}

func describe(vers map[string]string) string {
	var parts []string
	for a, v := range vers {
		parts = append(parts, a+"="+v[:8])
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// AwaitAgreement waits until every node that is up has the same schema version, or ctx
// ends. gocql gives up after DriverAgreementWait (15 s) whatever ctx says, while a node that
// was paused or restarted can take longer to pull the schema, so it asks again until ctx's
// deadline and returns the last error; a node left behind for long is mended (see
// nudgeAfter).
func AwaitAgreement(ctx context.Context, s *gocql.Session) error {
	return awaitAgreement(ctx, s, func(string, ...any) {})
}

func awaitAgreement(ctx context.Context, s *gocql.Session, logf func(string, ...any)) error {
	m := &mender{hosts: connect.SplitHosts(os.Getenv(EnvHosts)), reset: map[int]bool{}, restart: map[int]bool{}, logf: logf}
	for {
		err := s.AwaitSchemaAgreement(ctx)
		if err == nil || ctx.Err() != nil {
			return err
		}
		m.mend(ctx, s)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}

// agreed opens a session on the ring and waits for schema agreement, mending as
// AwaitAgreement does, for up to healTimeout.
func agreed(logf func(string, ...any)) error {
	ctx, cancel := context.WithTimeout(context.Background(), healTimeout)
	defer cancel()
	c := config(connect.SplitHosts(os.Getenv(EnvHosts)))
	c.ConnectTimeout = 30 * time.Second
	s, err := connect.Open(ctx, c)
	if err != nil {
		return fmt.Errorf("connect to check schema agreement: %w", err)
	}
	defer s.Close()
	if err := awaitAgreement(ctx, s, logf); err != nil {
		return fmt.Errorf("schema agreement: %w", err)
	}
	return nil
}
