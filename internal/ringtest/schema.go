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
// the schema it missed within seconds, but not always: a node that pulls a keyspace's
// creation and is pushed its drop while writes to its tables still arrive can fail the drop
// half-way in Cassandra 5.0.9 ("IllegalArgumentException: Unknown CF" from
// CommitLog.forceRecycleAllSegments under Schema.dropKeyspace), then gossip the dropped
// keyspace's schema version for good and answer every DDL it coordinates with "Unknown CF"
// (docs/tests.md). That is the test ring's health, not what a test measures, so the ring is
// mended as an operator would: the nodes on a minority version reset their local schema (it
// is pulled again from the others), and if that does not do within a while, are restarted
// (which reloads the schema from disk).
const (
	nudgeAfter   = 30 * time.Second // disagreement this old: nodetool resetlocalschema
	restartAfter = 60 * time.Second // and this old: stop and start the node (a reset did not mend a half-failed drop: "Unable to merge schema")
)

// A view is what the ring's nodes say of their schema versions.
type view struct {
	own   map[string]string // each answering node's own version (its system.local), by address
	stale [][2]string       // (observer, subject): observer's system.peers gives subject another version than subject's own
}

// look asks every ring node for its own schema version and for the versions it gossips of
// the others, on a session pinned to that node. A node that does not answer within a few
// seconds is left out (heal deals with nodes that are down). One session's system.local
// and system.peers are not enough: the driver sends the two queries to different
// coordinators, so one node could be counted twice and another (perhaps the one left
// behind) not at all. The gossiped versions matter because the driver's agreement check reads
// them: a node whose own version is right but whose gossip is stale still holds it up.
func look(ctx context.Context, hosts []string) view {
	v := view{own: map[string]string{}}
	gossiped := map[[2]string]string{}
	for _, h := range hosts {
		addr := hostAddr(h)
		s, err := pinned(ctx, h)
		if err != nil {
			continue
		}
		var version gocql.UUID
		if err := s.Query(`SELECT schema_version FROM system.local WHERE key = 'local'`).WithContext(ctx).Scan(&version); err == nil {
			v.own[addr] = version.String()
			var peer net.IP
			iter := s.Query(`SELECT rpc_address, schema_version FROM system.peers`).WithContext(ctx).Iter()
			for iter.Scan(&peer, &version) {
				gossiped[[2]string{addr, peer.String()}] = version.String()
			}
			iter.Close() //nolint:errcheck // a node that cannot list its peers adds nothing
		}
		s.Close()
	}
	for pair, w := range gossiped {
		if own, ok := v.own[pair[1]]; ok && own != w {
			v.stale = append(v.stale, pair)
		}
	}
	sort.Slice(v.stale, func(i, j int) bool {
		return v.stale[i][0]+" "+v.stale[i][1] < v.stale[j][0]+" "+v.stale[j][1]
	})
	return v
}

// late is the nodes to mend: those on a minority version of their own; when the nodes'
// own versions agree, the node in the most stale (observer, subject) pairs, as observer
// or subject, when one node alone is (a node whose gossip stopped is stale of every other
// node, and every other node is stale of it). Nobody when nothing singles a node out.
func (v view) late() []string {
	if m := minority(v.own); len(m) > 0 || len(v.stale) == 0 {
		return m
	}
	score := map[string]int{}
	for _, p := range v.stale {
		score[p[0]]++
		score[p[1]]++
	}
	if best, ok := uniqueMax(score); ok {
		return []string{best}
	}
	return nil
}

// uniqueMax is the key with the highest count, if no other key has as high a count.
func uniqueMax(count map[string]int) (string, bool) {
	best, tie := "", false
	for k, n := range count {
		switch {
		case best == "" || n > count[best]:
			best, tie = k, false
		case n == count[best]:
			tie = true
		}
	}
	return best, best != "" && !tie
}

// agreed: every answering node on one version, and gossiping each other's as it is.
func (v view) agreed() bool {
	first := ""
	for _, version := range v.own {
		if first == "" {
			first = version
		} else if version != first {
			return false
		}
	}
	return len(v.stale) == 0
}

func (v view) String() string {
	s := describe(v.own)
	for _, p := range v.stale {
		s += fmt.Sprintf("; %s has a stale version for %s", p[0], p[1])
	}
	return s
}

// pinned opens a session that talks to the node at h alone, giving up after 5 s (a paused
// node accepts the connection and never answers).
func pinned(ctx context.Context, h string) (*gocql.Session, error) {
	addr := hostAddr(h)
	c := config([]string{h})
	c.ConnectTimeout = 5 * time.Second
	return connect.OpenWith(ctx, c, func(cc *gocql.ClusterConfig) (*gocql.ClusterConfig, error) {
		cc.HostFilter = gocql.WhiteListHostFilter(addr)
		cc.DisableInitialHostLookup = true
		return cc, nil
	})
}

// hostAddr is h without its port, if it has one.
func hostAddr(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return h
}

// minority returns the addresses whose version is not the one most nodes have, sorted; nil
// when all agree or no version has more nodes than every other.
func minority(vers map[string]string) []string {
	count := map[string]int{}
	for _, v := range vers {
		count[v]++
	}
	best, ok := uniqueMax(count)
	if len(count) < 2 || !ok {
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
		if hostAddr(h) == addr {
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
	last    view // what the last look found, for the error
	logf    func(string, ...any)

	nudgeAfter, restartAfter time.Duration // nudgeAfter and restartAfter; a test shortens them

	// What it looks with, acts with and tells time by: versions, script and time.Now
	// on the ring; a test gives its own.
	look func(ctx context.Context, hosts []string) view
	run  func(nodes int, args ...string) (string, error)
	now  func() time.Time
}

func newMender(hosts []string, logf func(string, ...any)) *mender {
	return &mender{hosts: hosts, reset: map[int]bool{}, restart: map[int]bool{}, logf: logf,
		nudgeAfter: nudgeAfter, restartAfter: restartAfter, look: look, run: script, now: time.Now}
}

// mend looks at the versions and acts on the minority nodes once the disagreement is old
// enough.
func (m *mender) mend(ctx context.Context) {
	v := m.look(ctx, m.hosts)
	m.last = v
	late := v.late()
	if len(late) == 0 {
		m.since = time.Time{}
		return
	}
	if m.since.IsZero() {
		m.since = m.now()
	}
	nodes := len(m.hosts)
	for _, a := range late {
		n := nodeNumber(m.hosts, a)
		if n == 0 {
			continue
		}
		switch age := m.now().Sub(m.since); {
		case age > m.restartAfter && !m.restart[n]:
			m.restart[n] = true
			m.logf("ringtest: node %d (%s) still behind on the schema after %s: restarting it", n, a, age.Round(time.Second))
			out, err := m.run(nodes, "stop", strconv.Itoa(n))
			if err == nil {
				out, err = m.run(nodes, "start", strconv.Itoa(n))
			}
			if err != nil {
				m.logf("ringtest: restart node %d: %v\n%s", n, err, out)
			}
		case age > m.nudgeAfter && !m.reset[n]:
			m.reset[n] = true
			m.logf("ringtest: node %d (%s) behind on the schema for %s (versions %s): nodetool resetlocalschema",
				n, a, age.Round(time.Second), v)
			if out, err := m.run(nodes, "nodetool", "-n", strconv.Itoa(n), "resetlocalschema"); err != nil {
				m.logf("ringtest: resetlocalschema on node %d: %v\n%s", n, err, out)
			}
		}
	}
}

// explain adds to err what the nodes said of their versions and what was done about it,
// so a ring that never agreed can be understood from the test's output alone.
func (m *mender) explain(err error) error {
	if len(m.last.own) == 0 {
		return err
	}
	var done []string
	for _, what := range []struct {
		verb  string
		nodes map[int]bool
	}{{"reset the schema of", m.reset}, {"restarted", m.restart}} {
		for n := range what.nodes {
			done = append(done, fmt.Sprintf("%s node %d", what.verb, n))
		}
	}
	sort.Strings(done)
	if len(done) == 0 {
		done = []string{"nothing mended"}
	}
	return fmt.Errorf("%w (nodes' own versions: %s; %s)", err, m.last, strings.Join(done, ", "))
}

func describe(vers map[string]string) string {
	var parts []string
	for a, v := range vers {
		if len(v) > 8 {
			v = v[:8] // a UUID's first group tells versions apart
		}
		parts = append(parts, a+"="+v)
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
	return newMender(connect.SplitHosts(os.Getenv(EnvHosts)), logf).await(ctx, s)
}

func (m *mender) await(ctx context.Context, s *gocql.Session) error {
	for {
		err := s.AwaitSchemaAgreement(ctx)
		if err == nil {
			// The driver judges by one node's gossip, which a node whose gossip is stale
			// fools; the nodes' own word decides.
			v := m.look(ctx, m.hosts)
			if v.agreed() {
				return nil
			}
			m.last = v
			err = fmt.Errorf("the driver saw agreement, the nodes do not")
		}
		if ctx.Err() != nil {
			return m.explain(err)
		}
		m.mend(ctx)
		select {
		case <-ctx.Done():
			return m.explain(err)
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
