package migrations

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// Across datacenters the lock's serial consistency decides what a lost DC costs. SERIAL
// (the default) is a quorum of every replica in every DC: with two equal DCs and one of
// them gone, no process can take, renew or release the lock, and bookkeeping at QUORUM
// fails the same way. Sending the first statement and failing at the lock, or worse at
// the first bookkeeping write after a DDL statement, helps nobody; the preflight counts
// each DC's live replicas of the bookkeeping and target keyspaces before anything is sent
// and refuses (ErrReplicasDown, exit 3) naming the DC that is short.
//
// LOCAL_SERIAL (Options.LocalSerial) needs a quorum of the local DC only; the preflight then
// checks that DC, and names the other DCs that are down in a Warning: they take the schema
// from gossip when they return, and the rows they missed by repair (dcs_copies.go).

// ErrReplicasDown: too few replicas are up, in a named DC, for the lock's serial consistency
// or the bookkeeping's consistency. Nothing was sent.
var ErrReplicasDown = errors.New("too few replicas up")

// DCHealth is one datacenter as the preflight saw it.
type DCHealth struct {
	DC    string
	Nodes int      // nodes of the DC in gossip
	Down  []string // the nodes found down (gossip address)
	RF    int      // replicas of the keyspace checked in this DC
}

// Up is how many of the DC's nodes are up.
func (h DCHealth) Up() int { return h.Nodes - len(h.Down) }

// liveReplicas is the fewest replicas, in this DC, of any token range that can be up: a
// DC holds min(RF, nodes) copies of each range, and each node down may hold one of them.
func (h DCHealth) liveReplicas() int {
	r := min(h.RF, h.Nodes)
	return max(0, r-len(h.Down))
}

// ReplicasDownError is the preflight's refusal.
type ReplicasDownError struct {
	Keyspace    string
	Replication map[string]int // DC -> replication factor
	Serial      string         // SERIAL or LOCAL_SERIAL
	LocalDC     string         // with LOCAL_SERIAL
	Need, Have  int            // replicas the serial level needs, and the fewest that are up
	DCs         []DCHealth     // every DC, sorted by name
}

func (e *ReplicasDownError) Error() string {
	var b strings.Builder
	var short []string
	for _, d := range e.DCs {
		if len(d.Down) == 0 || e.Serial == "LOCAL_SERIAL" && d.DC != e.LocalDC {
			continue
		}
		short = append(short, fmt.Sprintf("%s: %d of %d nodes up (%s down)", d.DC, d.Up(), d.Nodes, strings.Join(d.Down, ", ")))
	}
	fmt.Fprintf(&b, "%s short of replicas: %s; keyspace %s has replication %s: the migration lock's %s needs %d of %d replicas and at most %d are up. Nothing was run.",
		strings.Join(shortDCs(e), " and "), strings.Join(short, "; "), e.Keyspace, replicationText(e.Replication), e.Serial, e.Need, totalRF(e), e.Have)
	if e.Serial == "SERIAL" {
		b.WriteString(" Wait for the DC to return, then run again (exit 3). If only one DC deploys until then (no process in another DC runs migrations meanwhile), `--serial local --local-dc DC` takes the lock with LOCAL_SERIAL in that DC: the risk is that a process in another DC doing the same holds the same lock at the same time and applies the same statements twice; the DC that is down takes the schema from gossip when it returns, and the rows it missed by repair: the run names the `nodetool repair` commands to run on its nodes, and `cqlsize migrate dcs` checks that every DC holds the whole history.")
	} else {
		b.WriteString(" LOCAL_SERIAL needs a quorum of the local DC's replicas: wait for its nodes to return, then run again (exit 3).")
	}
	return b.String()
}

func (e *ReplicasDownError) Is(target error) bool { return target == ErrReplicasDown }

func shortDCs(e *ReplicasDownError) []string {
	var out []string
	for _, d := range e.DCs {
		if len(d.Down) > 0 && (e.Serial == "SERIAL" || d.DC == e.LocalDC) {
			out = append(out, d.DC)
		}
	}
	if len(out) == 0 {
		return []string{"the cluster"}
	}
	return out
}

func totalRF(e *ReplicasDownError) int {
	if e.Serial == "LOCAL_SERIAL" {
		return e.Replication[e.LocalDC]
	}
	n := 0
	for _, rf := range e.Replication {
		n += rf
	}
	return n
}

func replicationText(r map[string]int) string {
	dcs := make([]string, 0, len(r))
	for dc := range r {
		dcs = append(dcs, dc)
	}
	sort.Strings(dcs)
	parts := make([]string, len(dcs))
	for i, dc := range dcs {
		parts[i] = fmt.Sprintf("%s:%d", dc, r[dc])
	}
	return strings.Join(parts, " ")
}

// quorum is a majority of n replicas.
func quorum(n int) int { return n/2 + 1 }

// checkReplicas judges one keyspace's replication (NetworkTopologyStrategy: DC -> RF)
// against the DCs' health. With SERIAL the live replicas of every DC together must reach a
// quorum of all replicas; with LOCAL_SERIAL, localDC's alone a quorum of its own.
func checkReplicas(keyspace string, repl map[string]int, dcs []DCHealth, localSerial bool, localDC string) error {
	byDC := map[string]DCHealth{}
	for _, d := range dcs {
		byDC[d.DC] = d
	}
	var health []DCHealth
	have, total := 0, 0
	for dc, rf := range repl {
		d := byDC[dc]
		d.DC, d.RF = dc, rf
		health = append(health, d)
		if localSerial && dc != localDC {
			continue
		}
		have += d.liveReplicas()
		total += rf
	}
	sort.Slice(health, func(i, j int) bool { return health[i].DC < health[j].DC })
	if total == 0 {
		return nil // the keyspace has no replica in the local DC: nothing to count here
	}
	need := quorum(total)
	if have >= need {
		return nil
	}
	serial := "SERIAL"
	if localSerial {
		serial = "LOCAL_SERIAL"
	}
	return &ReplicasDownError{Keyspace: keyspace, Replication: repl, Serial: serial, LocalDC: localDC, Need: need, Have: have, DCs: health}
}

// dcHealth reads which nodes are up, per DC: every node is probed (an OPTIONS request) and
// its gossip heartbeat watched, as the agreement wait does, until each is decided or
// 2 x beatWindow has passed (a node still undecided then counts as up: the preflight errs
// towards trying, and the lock itself has the last word).
func (st *store) dcHealth(ctx context.Context) ([]DCHealth, error) {
	deadline := time.Now().Add(2 * beatWindow)
	for {
		nodes, err := readView(ctx, st.s)
		if err != nil {
			return nil, err
		}
		live := st.probeAll(ctx, nodes)
		pending := false
		for _, n := range nodes {
			if n.member() && live[n.Addr] == undecided {
				pending = true
			}
		}
		if !pending || time.Now().After(deadline) {
			return groupDCs(nodes, live), nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// probeAll decides each node's liveness from a probe of every node and the heartbeats.
func (st *store) probeAll(ctx context.Context, nodes []nodeView) map[string]liveness {
	beats := st.live.observe(nodes)
	errs := make([]error, len(nodes))
	done := make(chan struct{}, len(nodes))
	for i, n := range nodes {
		go func(i int, n nodeView) {
			defer func() { done <- struct{}{} }()
			if n.Coord || n.Native == "" {
				return
			}
			errs[i] = st.live.probe(ctx, n.Native)
		}(i, n)
	}
	for range nodes {
		<-done
	}
	out := map[string]liveness{}
	for i, n := range nodes {
		out[n.Addr] = decide(n, n.Native != "" && !n.Coord, errs[i], beats[n.Addr])
	}
	return out
}

func groupDCs(nodes []nodeView, live map[string]liveness) []DCHealth {
	byDC := map[string]*DCHealth{}
	var names []string
	for _, n := range nodes {
		if !n.member() {
			continue
		}
		d := byDC[n.DC]
		if d == nil {
			d = &DCHealth{DC: n.DC}
			byDC[n.DC] = d
			names = append(names, n.DC)
		}
		d.Nodes++
		if live[n.Addr] == isDown {
			d.Down = append(d.Down, n.Addr)
		}
	}
	sort.Strings(names)
	out := make([]DCHealth, 0, len(names))
	for _, dc := range names {
		sort.Strings(byDC[dc].Down)
		out = append(out, *byDC[dc])
	}
	return out
}

// networkReplication reads a keyspace's NetworkTopologyStrategy replication (DC -> RF);
// nil when the keyspace does not exist or uses another strategy (SimpleStrategy places
// replicas without regard to DCs, so no per-DC count can be made).
func networkReplication(ctx context.Context, s *gocql.Session, keyspace string) (map[string]int, error) {
	r, err := readReplication(ctx, s, keyspace)
	if err != nil || r.Class != cql.NetworkTopologyStrategy {
		return nil, err
	}
	return r.DCs, nil
}

// readReplication reads a keyspace's replication from system_schema.keyspaces (through
// cql.ReplicationOf, the one reader of replication maps); the zero Replication when the
// keyspace does not exist.
func readReplication(ctx context.Context, s *gocql.Session, keyspace string) (cql.Replication, error) {
	var raw map[string]string
	err := s.Query(`SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?`, keyspace).
		WithContext(ctx).Consistency(gocql.One).Scan(&raw)
	if errors.Is(err, gocql.ErrNotFound) {
		return cql.Replication{}, nil
	}
	if err != nil {
		return cql.Replication{}, fmt.Errorf("read the replication of keyspace %s: %w", keyspace, err)
	}
	r, err := cql.ReplicationOf(raw)
	if err != nil {
		return cql.Replication{}, fmt.Errorf("keyspace %s: %w", keyspace, err)
	}
	return r, nil
}

// ImpossibleQuorum turns "Cannot achieve consistency level QUORUM" into an error that says
// no retry can cure it, when a keyspace the run uses asks for more replicas than the
// cluster has nodes (replication factor 3 on a one-node cluster): a quorum cannot form even
// with every node up. The node names neither the keyspace nor the fix; this does. It
// returns nil when err is not such a failure, or the replication leaves a quorum possible
// (a node is down: a retry may cure it). Preflight counts the replicas that are up before
// a run; this counts the nodes there are, after a refusal, by the same quorum rule.
func ImpossibleQuorum(ctx context.Context, s *gocql.Session, err error, keyspaces ...string) error {
	var un *gocql.RequestErrUnavailable
	if !errors.As(err, &un) {
		return nil
	}
	nodes, nerr := NodesPerDC(ctx, s)
	if nerr != nil {
		return nil
	}
	total := 0
	for _, n := range nodes {
		total += n
	}
	seen := map[string]bool{}
	for _, ks := range keyspaces {
		if ks == "" || seen[ks] {
			continue
		}
		seen[ks] = true
		r, rerr := readReplication(ctx, s, ks)
		if rerr != nil || !r.Known() {
			continue
		}
		var short []string
		if r.Class == cql.SimpleStrategy && quorum(r.Factor) > total {
			short = append(short, fmt.Sprintf("the cluster has %d node(s) for replication factor %d (a quorum is %d)", total, r.Factor, quorum(r.Factor)))
		}
		for dc, n := range r.DCs {
			if have := nodes[dc]; quorum(n) > have {
				short = append(short, fmt.Sprintf("data center %s has %d node(s) for replication factor %d (a quorum is %d)", dc, have, n, quorum(n)))
			}
		}
		if len(short) == 0 {
			continue
		}
		sort.Strings(short)
		return fmt.Errorf("%v: no retry can fix this: keyspace %s has replication %s and %s; "+
			"lower its replication (ALTER KEYSPACE %s WITH replication = {...}, and in the file that creates it) or add nodes, then run again",
			err, ks, r, strings.Join(short, ", "), ks)
	}
	return nil
}

// Preflight checks, before anything is sent, that each DC has enough replicas up for the
// lock's serial consistency over the bookkeeping keyspace (where the lock lives) and the
// target keyspace. Keyspaces that do not exist yet, or are not NetworkTopologyStrategy,
// are not counted. It returns the DCs it saw; with LocalSerial, a Warning event names each
// other DC with nodes down.
func (m *Migrator) Preflight(ctx context.Context) ([]DCHealth, error) {
	kss := []string{m.opt.BookkeepingKeyspace}
	if m.opt.Keyspace != m.opt.BookkeepingKeyspace {
		kss = append(kss, m.opt.Keyspace)
	}
	repls := map[string]map[string]int{}
	for _, ks := range kss {
		r, err := networkReplication(ctx, m.s, ks)
		if err != nil {
			return nil, err
		}
		if r != nil {
			repls[ks] = r
		}
	}
	if len(repls) == 0 {
		return nil, nil
	}
	dcs, err := m.st.dcHealth(ctx)
	if err != nil {
		return nil, fmt.Errorf("preflight: %w", err)
	}
	if m.opt.LocalSerial {
		found := false
		for _, d := range dcs {
			found = found || d.DC == m.opt.LocalDC
		}
		if !found {
			return dcs, fmt.Errorf("preflight: --local-dc %s: no such datacenter (the cluster has %s)", m.opt.LocalDC, dcNames(dcs))
		}
	}
	for _, ks := range kss {
		if r := repls[ks]; r != nil {
			if err := checkReplicas(ks, r, dcs, m.opt.LocalSerial, m.opt.LocalDC); err != nil {
				return dcs, err
			}
		}
	}
	if m.opt.LocalSerial {
		for _, d := range dcs {
			if d.DC != m.opt.LocalDC && len(d.Down) > 0 {
				m.emit(Event{Kind: Warning, Message: fmt.Sprintf("%s: %d of %d nodes down (%s); the lock is LOCAL_SERIAL in %s, so nothing here waits for %s: it takes the schema from gossip when it returns, and the rows it missed only by the repair named at the end of the run; no process in %s may run migrations until then",
					d.DC, len(d.Down), d.Nodes, strings.Join(d.Down, ", "), m.opt.LocalDC, d.DC, d.DC)})
			}
		}
	}
	return dcs, nil
}

func dcNames(dcs []DCHealth) string {
	var n []string
	for _, d := range dcs {
		n = append(n, d.DC)
	}
	return strings.Join(n, ", ")
}

// NodesPerDC counts the cluster's nodes in each data center: the answering node's
// system.peers (up or down, every node that holds a share of the ring) and that node
// itself. Both must come from one node: system.local asked in a second query may be
// answered by another, which counts one node twice and the answerer not at all.
func NodesPerDC(ctx context.Context, s *gocql.Session) (map[string]int, error) {
	nodes := map[string]int{}
	it := s.Query("SELECT data_center FROM system.peers").WithContext(ctx).Consistency(gocql.One).Iter()
	var dc string
	for it.Scan(&dc) {
		nodes[dc]++
	}
	host := it.Host()
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("count the nodes of each data center: %w", err)
	}
	if host == nil || host.DataCenter() == "" {
		return nil, errors.New("count the nodes of each data center: the driver does not say which node answered, or its data center")
	}
	nodes[host.DataCenter()]++
	return nodes, nil
}
