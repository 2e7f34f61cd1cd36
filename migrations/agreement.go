package migrations

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// Schema agreement, counted over the nodes that are up.
//
// gocql's AwaitSchemaAgreement (v1.7.0, conn.go) collects the schema version of every row
// of system.peers whether the node is up or not, so one stopped node, or a stale peer row,
// makes every wait run to its timeout. The Java driver (SchemaAgreementChecker) leaves out
// peers that are not UP, and that is what users expect: a down node takes the new schema
// from the others when it comes back. The wait here does the same, and names the nodes it
// left out; Options.RequireAllNodes keeps the strict rule.
//
// Which nodes are up is decided from two signals, because either alone misleads:
//   - a CQL probe: an OPTIONS request to the node's native address, answered (any reply,
//     even a TLS alert or a closed connection, shows a running process) or not within
//     probeTimeout. A SIGSTOPped or frozen node accepts the TCP connection and then says
//     nothing, so a connect alone would count it up.
//   - the coordinator's gossip (system_views.gossip_info, Cassandra 4.1+): a live node's
//     heartbeat grows every second; a stopped one says "shutdown".
//
// A node is up when it answers the probe or its heartbeat moves; down when it does not
// answer and gossip says shutdown, or its heartbeat has not moved for beatWindow; until
// then it still counts. A node the client cannot reach but gossip sees alive (an address
// not routable from here) therefore still counts, which errs on the side of waiting.
//
// The driver itself also waits after every DDL statement (MaxWaitSchemaAgreement), with
// the strict rule: sessions that run migrations should set it low (the CLI does, through
// connect.Config.DriverAgreementWait), since the migrator waits here after each one.

const (
	agreementPoll = 100 * time.Millisecond
	probeTimeout  = time.Second
	// beatWindow is how long a heartbeat must stand still before a node that does not
	// answer counts as down. Gossip runs every second; a peer's heartbeat reaches the
	// coordinator within a round or two.
	beatWindow = 3 * time.Second
)

// nodeView is one node as the coordinator sees it.
type nodeView struct {
	Addr    string // gossip (broadcast) address and port, e.g. 127.0.1.2:7000: the node's name in messages
	Native  string // CQL address and port, for the probe ("" when unknown)
	Version string // schema version ("" when not known yet)
	Status  string // gossip status: NORMAL, shutdown, LEFT, ... ("" when unknown)
	Gen     int64  // gossip generation and heartbeat; -1 when unknown (no gossip_info)
	Beat    int64
	Coord   bool   // the node that answered: up by definition
	DC      string // datacenter ("" when unknown: a cluster before 4.1)
}

// member reports whether the node belongs to the ring for agreement purposes: nodes that
// left or were removed, or are being replaced (hibernate), do not.
func (n nodeView) member() bool {
	switch strings.ToUpper(n.Status) {
	case "LEFT", "REMOVED", "REMOVING", "HIBERNATE":
		return false
	}
	return true
}

// liveness is what is known about whether a node is up.
type liveness int

const (
	undecided liveness = iota // still counted: it may be up
	isUp
	isDown
)

// beatSeen remembers a node's heartbeat and when it was first seen at that value.
type beatSeen struct {
	gen, beat int64
	since     time.Time
}

// tracker decides liveness over one or more agreement waits of the same run: a heartbeat
// seen standing still in an earlier wait need not be watched again for beatWindow.
type tracker struct {
	mu     sync.Mutex
	beats  map[string]beatSeen
	warned map[string]bool
	probe  func(ctx context.Context, addr string) error
	now    func() time.Time
}

func newTracker() *tracker {
	return &tracker{beats: map[string]beatSeen{}, warned: map[string]bool{}, probe: probeCQL, now: time.Now}
}

// observe records the heartbeats of a view and returns, per node, whether its heartbeat
// moved since it was first seen, stood still for beatWindow, or neither yet.
func (t *tracker) observe(nodes []nodeView) map[string]liveness {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	out := map[string]liveness{}
	for _, n := range nodes {
		if n.Gen < 0 {
			continue
		}
		prev, ok := t.beats[n.Addr]
		switch {
		case !ok:
			t.beats[n.Addr] = beatSeen{n.Gen, n.Beat, now}
		case prev.gen != n.Gen || prev.beat != n.Beat:
			t.beats[n.Addr] = beatSeen{n.Gen, n.Beat, now}
			out[n.Addr] = isUp
		case now.Sub(prev.since) >= beatWindow:
			out[n.Addr] = isDown
		}
	}
	return out
}

// decide combines the signals for one node: the probe (probed, and its error) and the
// heartbeat.
func decide(n nodeView, probed bool, probeErr error, beat liveness) liveness {
	answered := probed && probeErr == nil
	switch {
	case n.Coord, answered, beat == isUp:
		return isUp
	case strings.EqualFold(n.Status, "shutdown"), beat == isDown:
		return isDown
	case probed && n.Gen < 0:
		// No gossip to ask (a cluster before 4.1): the probe is all there is.
		return isDown
	}
	return undecided
}

// judge says which nodes must agree: every member when requireAll, else every member not
// known to be down. down lists the members known to be down, counted or not.
func judge(nodes []nodeView, live map[string]liveness, requireAll bool) (counted, down []nodeView) {
	for _, n := range nodes {
		if !n.member() {
			continue
		}
		isDownNow := live[n.Addr] == isDown
		if isDownNow {
			down = append(down, n)
		}
		if isDownNow && !requireAll {
			continue
		}
		counted = append(counted, n)
	}
	return counted, down
}

// agreed reports whether every counted node reports the same, known, schema version.
func agreed(counted []nodeView) bool {
	v := ""
	for _, n := range counted {
		if n.Version == "" || v != "" && n.Version != v {
			return false
		}
		v = n.Version
	}
	return true
}

// selfGrace is how long a wait tries to hear each counted node report its own version
// before it accepts what gossip says about one it has not reached as a coordinator.
const selfGrace = 2 * time.Second

// confirmed reports whether every counted node reported the agreed version itself during
// the wait. The versions gossip carries about other nodes lag by a round or two: right
// after a DDL statement, a node that has not heard of it yet sees every node, the one that
// ran the statement included, at the old version, and would call that agreement. A node's
// own entry is current, so agreement needs each node's own word (the queries go round the
// nodes), except, after grace, for a node never reached.
func confirmed(counted []nodeView, self map[string]string, grace bool) bool {
	for _, n := range counted {
		v, ok := self[n.Addr]
		if ok && v != n.Version || !ok && !grace {
			return false
		}
	}
	return true
}

// agreement is one configuration of the wait.
type agreement struct {
	timeout    time.Duration
	requireAll bool
	warn       func(msg string) // told once per node left out of the count; nil: silent
	track      *tracker         // nil: a fresh one per wait
}

// agree is the wait the options ask for: strict with RequireAllNodes, else a Warning event
// naming each down node once per Migrator.
func (st *store) agree(ctx context.Context, what string) error {
	a := agreement{timeout: st.opt.AgreementTimeout, requireAll: st.opt.RequireAllNodes, track: st.live}
	if st.opt.OnEvent != nil {
		onEvent := st.opt.OnEvent
		a.warn = func(msg string) { onEvent(Event{Kind: Warning, Message: msg}) }
	}
	return a.wait(ctx, st.s, what)
}

func (a agreement) wait(ctx context.Context, s *gocql.Session, what string) error {
	if a.timeout <= 0 {
		a.timeout = DefaultAgreementTimeout
	}
	tr := a.track
	if tr == nil {
		tr = newTracker()
	}
	wctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	var (
		last    []nodeView
		lastErr error
		down    []nodeView
		self    = map[string]string{} // node -> the version it reported itself, as coordinator, during this wait
		start   = time.Now()
	)
	for {
		nodes, err := readView(wctx, s)
		if err == nil {
			last, lastErr = nodes, nil
			for _, n := range nodes {
				if n.Coord {
					self[n.Addr] = n.Version
				}
			}
			var counted []nodeView
			counted, down = judge(nodes, a.liveness(wctx, tr, nodes), a.requireAll)
			if agreed(counted) && confirmed(counted, self, time.Since(start) >= selfGrace) {
				if !a.requireAll {
					a.warnDown(tr, down, counted)
				}
				return nil
			}
		} else if wctx.Err() == nil {
			lastErr = err
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				// The run itself was cancelled (interrupt, lost lock): report that, not the nodes.
				if c := context.Cause(ctx); c != nil {
					return c
				}
				return ctx.Err()
			}
			return disagreement(what, a, last, down, lastErr)
		case <-time.After(agreementPoll):
		}
	}
}

// liveness decides, for the nodes whose version differs from the coordinator's (or is
// unknown), whether they are up. Nodes that agree need no probe, nor nodes whose
// heartbeat has already been seen to move or stand still for beatWindow.
func (a agreement) liveness(ctx context.Context, tr *tracker, nodes []nodeView) map[string]liveness {
	beats := tr.observe(nodes)
	ref := ""
	for _, n := range nodes {
		if n.Coord {
			ref = n.Version
		}
	}
	type result struct {
		addr string
		err  error
	}
	var wg sync.WaitGroup
	results := make(chan result, len(nodes))
	probed := map[string]bool{}
	for _, n := range nodes {
		if n.Coord || n.Native == "" || (n.Version != "" && n.Version == ref) || !n.member() || beats[n.Addr] != undecided {
			continue // the heartbeat decides already: no probe (a silent node costs probeTimeout)
		}
		probed[n.Addr] = true
		wg.Add(1)
		go func(n nodeView) {
			defer wg.Done()
			results <- result{n.Addr, tr.probe(ctx, n.Native)}
		}(n)
	}
	wg.Wait()
	close(results)
	errs := map[string]error{}
	for r := range results {
		errs[r.addr] = r.err
	}
	out := map[string]liveness{}
	for _, n := range nodes {
		out[n.Addr] = decide(n, probed[n.Addr], errs[n.Addr], beats[n.Addr])
	}
	return out
}

// warnDown tells, once per node and tracker, which nodes the agreement left out.
func (a agreement) warnDown(tr *tracker, down, counted []nodeView) {
	if a.warn == nil || len(down) == 0 {
		return
	}
	tr.mu.Lock()
	var fresh []string
	for _, n := range down {
		if !tr.warned[n.Addr] {
			tr.warned[n.Addr] = true
			fresh = append(fresh, describeDown(n))
		}
	}
	tr.mu.Unlock()
	if len(fresh) == 0 {
		return
	}
	a.warn(downWarning(fresh, len(counted)))
}

// downWarning is the warning naming the nodes left out of agreement (as describeDown
// renders them) beside how many nodes were counted.
func downWarning(nodes []string, counted int) string {
	subject, verb := "node "+nodes[0]+" is", "are"
	if len(nodes) > 1 {
		subject = "nodes " + strings.Join(nodes, ", ") + " are"
	}
	if counted == 1 {
		verb = "is"
	}
	return fmt.Sprintf("%s down: schema agreement counts the %s that %s up; a down node takes the schema from the others when it comes back (Options.RequireAllNodes waits for every node)",
		subject, plural(counted, "node", "nodes"), verb)
}

// describeDown names a down node for the warning.
func describeDown(n nodeView) string {
	s := nodeName(n)
	if strings.EqualFold(n.Status, "shutdown") {
		return s + " (shut down)"
	}
	return s
}

// nodeName is a node's gossip address, with its datacenter when known ("127.0.6.1:7000 in
// dc2"): across DCs, which DC lags or is gone is the first thing to know.
func nodeName(n nodeView) string {
	if n.DC == "" {
		return n.Addr
	}
	return n.Addr + " in " + n.DC
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// disagreement builds the error of a wait that timed out.
func disagreement(what string, a agreement, last, down []nodeView, readErr error) error {
	isDownNode := map[string]bool{}
	var names []string
	for _, n := range down {
		isDownNode[n.Addr] = true
		names = append(names, nodeName(n))
	}
	var versions map[string]string
	if last != nil {
		versions = map[string]string{}
		for _, n := range last {
			if !n.member() || isDownNode[n.Addr] && !a.requireAll {
				continue
			}
			v := n.Version
			if v == "" {
				v = "no version yet"
			}
			if isDownNode[n.Addr] {
				v += " (down)"
			}
			versions[nodeName(n)] = v
		}
	}
	err := fmt.Errorf("no agreement within %s", a.timeout)
	if readErr != nil {
		err = fmt.Errorf("%w (reading the schema versions failed: %v)", err, readErr)
	}
	switch {
	case a.requireAll && len(names) > 0:
		err = fmt.Errorf("%w; %s down, and Options.RequireAllNodes waits for every node", err, strings.Join(names, ", "))
	case a.requireAll:
		err = fmt.Errorf("%w; Options.RequireAllNodes waits for every node", err)
	case len(names) > 0:
		err = fmt.Errorf("%w; %s down and not counted", err, strings.Join(names, ", "))
	}
	return &DisagreementError{Statement: what, Versions: versions, Err: err}
}

// SchemaVersions returns each node's schema version (gossip address -> version) as one
// coordinator sees it.
func SchemaVersions(ctx context.Context, s *gocql.Session) (map[string]string, error) {
	nodes, err := readView(ctx, s)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, n := range nodes {
		out[n.Addr] = n.Version
	}
	return out, nil
}

// readView reads every node's schema version and gossip state from one coordinator:
// system_views.gossip_info (4.1+) holds them all, the coordinator's own included; on older
// clusters system.local and system.peers_v2 (or system.peers) are read instead.
func readView(ctx context.Context, s *gocql.Session) ([]nodeView, error) {
	iter := s.Query(`SELECT address, port, native_address_and_port, rpc_address, "schema", status_with_port, status, generation, heartbeat, dc
		FROM system_views.gossip_info`).WithContext(ctx).Consistency(gocql.One).Iter()
	coord := ""
	if h := iter.Host(); h != nil {
		coord = h.ConnectAddress().String()
	}
	var out []nodeView
	row := map[string]any{}
	for iter.MapScan(row) {
		out = append(out, gossipRow(row, coord))
		row = map[string]any{}
	}
	if err := iter.Close(); err != nil {
		var req gocql.RequestError
		if errors.As(err, &req) && (req.Code() == gocql.ErrCodeInvalid || req.Code() == gocql.ErrCodeUnauthorized) {
			// No gossip_info (a cluster before 4.1), or a deploy role that may not read it:
			// every role may read system.local and system.peers_v2. Without this, such a role
			// waited out --agreement-timeout and exited 3, and retrying never helped.
			return readPeers(ctx, s)
		}
		return nil, fmt.Errorf("read system_views.gossip_info: %w", err)
	}
	if len(out) == 0 {
		return readPeers(ctx, s)
	}
	return out, nil
}

func gossipRow(row map[string]any, coord string) nodeView {
	str := func(k string) string {
		switch v := row[k].(type) {
		case nil:
			return ""
		case string:
			return v
		case net.IP:
			if v == nil {
				return ""
			}
			return v.String()
		default:
			return fmt.Sprint(v)
		}
	}
	num := func(k string) int64 {
		switch v := row[k].(type) {
		case int:
			return int64(v)
		case int32:
			return int64(v)
		case int64:
			return v
		case string:
			n, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				return n
			}
		}
		return 0
	}
	addr := str("address")
	n := nodeView{
		Addr:    net.JoinHostPort(addr, strconv.FormatInt(num("port"), 10)),
		Native:  str("native_address_and_port"),
		Version: str("schema"),
		Gen:     num("generation"),
		Beat:    num("heartbeat"),
		DC:      str("dc"),
	}
	st := str("status_with_port")
	if st == "" {
		st = str("status")
	}
	n.Status, _, _ = strings.Cut(st, ",")
	if n.Native == "" {
		if rpc := str("rpc_address"); rpc != "" {
			n.Native = net.JoinHostPort(rpc, "9042")
		}
	}
	host, _, err := net.SplitHostPort(n.Native)
	n.Coord = coord != "" && (err == nil && host == coord || addr == coord)
	return n
}

// readPeers is the view before Cassandra 4.1, from system.local and system.peers_v2 (or
// system.peers before 4.0). No heartbeats: liveness comes from the probe alone.
func readPeers(ctx context.Context, s *gocql.Session) ([]nodeView, error) {
	var (
		addr, rpc     net.IP
		port, rpcPort int
		version       gocql.UUID
	)
	iter := s.Query(`SELECT broadcast_address, broadcast_port, rpc_address, rpc_port, schema_version FROM system.local WHERE key = 'local'`).
		WithContext(ctx).Consistency(gocql.One).Iter()
	if !iter.Scan(&addr, &port, &rpc, &rpcPort, &version) {
		if err := iter.Close(); err != nil {
			return nil, fmt.Errorf("read system.local: %w", err)
		}
		return nil, errors.New("read system.local: no row")
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system.local: %w", err)
	}
	out := []nodeView{{Addr: net.JoinHostPort(addr.String(), strconv.Itoa(port)), Native: net.JoinHostPort(rpc.String(), strconv.Itoa(rpcPort)),
		Version: uuidString(version), Gen: -1, Beat: -1, Coord: true}}
	iter = s.Query(`SELECT peer, peer_port, native_address, native_port, schema_version FROM system.peers_v2`).
		WithContext(ctx).Consistency(gocql.One).Iter()
	var peers []nodeView
	for iter.Scan(&addr, &port, &rpc, &rpcPort, &version) {
		peers = append(peers, nodeView{Addr: net.JoinHostPort(addr.String(), strconv.Itoa(port)),
			Native: net.JoinHostPort(rpc.String(), strconv.Itoa(rpcPort)), Version: uuidString(version), Gen: -1, Beat: -1})
	}
	if err := iter.Close(); err != nil {
		peers = nil
		iter = s.Query(`SELECT peer, rpc_address, schema_version FROM system.peers`).WithContext(ctx).Consistency(gocql.One).Iter()
		for iter.Scan(&addr, &rpc, &version) {
			peers = append(peers, nodeView{Addr: addr.String(), Native: net.JoinHostPort(rpc.String(), "9042"),
				Version: uuidString(version), Gen: -1, Beat: -1})
		}
		if err := iter.Close(); err != nil {
			return nil, fmt.Errorf("read system.peers_v2 and system.peers: %w", err)
		}
	}
	return append(out, peers...), nil
}

func uuidString(u gocql.UUID) string {
	if u == (gocql.UUID{}) {
		return ""
	}
	return u.String()
}

// probeCQL sends a protocol v4 OPTIONS frame to addr and waits up to probeTimeout for any
// reply. Any bytes, or the peer closing the connection, show a running process (a TLS-only
// port answers a plain frame with an alert or a close); silence means a frozen or paused
// one; a refused connection, none at all.
func probeCQL(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: probeTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(probeTimeout))
	if _, err := c.Write([]byte{0x04, 0, 0, 0, 0x05, 0, 0, 0, 0}); err != nil {
		return nil // the peer reset the connection: something is running there
	}
	var b [1]byte
	_, err = c.Read(b[:])
	var ne net.Error
	if err == nil || errors.Is(err, io.EOF) || !(errors.As(err, &ne) && ne.Timeout()) {
		return nil
	}
	return fmt.Errorf("no reply from %s within %s", addr, probeTimeout)
}
