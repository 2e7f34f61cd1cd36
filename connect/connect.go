// Package connect opens gocql sessions from one validated configuration, so the CLI, the
// examples and the tests connect the same way and fail with the same clear errors.
//
// It is one of the few packages that import the driver: a later port to the Apache
// cassandra-gocql-driver touches these packages only.
package connect

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/retry"
)

// Environment variables read by FromEnv. Secrets come only from the environment (or a
// caller), never from a flag value that would show in the process list.
const (
	EnvHosts    = "CASSANDRA_HOSTS"
	EnvUsername = "CASSANDRA_USERNAME"
	EnvPassword = "CASSANDRA_PASSWORD"
)

// Config says how to reach a cluster.
type Config struct {
	Hosts       []string      // host or host:port; the port defaults to Port
	Port        int           // default 9042
	Keyspace    string        // optional session keyspace
	Consistency string        // e.g. LOCAL_QUORUM (default), QUORUM, ONE
	Timeout     time.Duration // per request (default 12s: DDL on a busy node takes seconds)
	// ConnectTimeout is how long Open keeps trying to reach the cluster (default 10s): a
	// node that is restarting, or busy accepting a burst of connections, refuses or drops
	// the first attempt. Each connection's dial and handshake is bounded by a third of it
	// (1s to 5s), so that a node that accepts connections and then says nothing (paused,
	// frozen) leaves time for a second attempt.
	ConnectTimeout time.Duration
	// DriverAgreementWait is how long the driver itself waits for schema agreement after
	// every DDL statement (gocql's MaxWaitSchemaAgreement; default 60s). gocql counts every
	// node there, down ones included, so with a node down each DDL statement would stall for
	// all of it. Negative: the driver does not wait; for callers that wait themselves
	// counting the nodes that are up, as the migrator does.
	DriverAgreementWait time.Duration
	Username            string
	Password            string
	LocalDC             string // route to this datacenter first (DC-aware); empty = token-aware only
	CAFile              string // TLS: CA bundle that signs the nodes' certificates
	CertFile            string // TLS: client certificate (with KeyFile)
	KeyFile             string
	InsecureTLS         bool // TLS without verifying the server name (test clusters only)
	// ServerName is the name the nodes' certificates are checked against instead of the
	// address connected to: for nodes reached through an address their certificates do not
	// list (a load balancer, a tunnel) or clusters that share one certificate. The chain is
	// still verified.
	ServerName string
	Source     string // where Hosts came from, for error messages ("--hosts", "CASSANDRA_HOSTS")
	// Direct reaches a single node through its one contact point only: every address the
	// node advertises (system.local's rpc_address, which the driver would otherwise connect
	// to) is taken to be Hosts[0]. For a node behind a published port, such as a
	// container's, whose own address is inside the container network. Needs one host.
	Direct bool
	// Logger receives the driver's own log lines (reconnects, schema agreement waits);
	// nil keeps gocql's default (the standard logger). A CLI passes one that writes to
	// stderr only when asked to be verbose.
	Logger gocql.StdLogger
}

// FromEnv fills the hosts (when none are set) and the credentials from the environment.
func (c Config) FromEnv() Config { return c.FromGetenv(os.Getenv) }

// FromGetenv is FromEnv reading variables through getenv, so a command run in-process by
// a test sees the test's environment, not the process's.
func (c Config) FromGetenv(getenv func(string) string) Config {
	if len(c.Hosts) == 0 {
		if h := getenv(EnvHosts); h != "" {
			c.Hosts = SplitHosts(h)
			c.Source = EnvHosts
		}
	}
	if c.Username == "" {
		c.Username = getenv(EnvUsername)
	}
	if c.Password == "" {
		c.Password = getenv(EnvPassword)
	}
	return c
}

// SplitHosts splits a comma- or space-separated host list, dropping empty entries.
func SplitHosts(s string) []string {
	var out []string
	for _, h := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, strings.TrimSpace(h))
	}
	return out
}

// ErrNoHosts is returned when no host is configured.
var ErrNoHosts = errors.New("no Cassandra hosts: set Config.Hosts or " + EnvHosts)

// Validate checks the configuration without touching the network.
func (c Config) Validate() error {
	if len(c.Hosts) == 0 {
		return ErrNoHosts
	}
	for _, h := range c.Hosts {
		host, port, err := net.SplitHostPort(h)
		if err != nil {
			host, port = h, ""
		}
		if host == "" {
			return fmt.Errorf("%s: empty host in %q", c.source(), strings.Join(c.Hosts, ","))
		}
		if port != "" {
			if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
				return fmt.Errorf("%s: host %q: port must be 1-65535", c.source(), h)
			}
		}
	}
	if c.Port < 0 || c.Port > 65535 {
		return fmt.Errorf("port %d: must be 1-65535", c.Port)
	}
	if c.Consistency != "" {
		if _, err := ParseConsistency(c.Consistency); err != nil {
			return err
		}
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return errors.New("TLS client certificate and key go together: set both or neither")
	}
	if c.Timeout < 0 || c.ConnectTimeout < 0 {
		return errors.New("timeouts must not be negative")
	}
	return nil
}

func (c Config) source() string {
	if c.Source != "" {
		return c.Source
	}
	return "hosts"
}

// ParseConsistency parses a consistency level name such as LOCAL_QUORUM, case-insensitively.
func ParseConsistency(s string) (gocql.Consistency, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "ANY":
		return gocql.Any, nil
	case "ONE":
		return gocql.One, nil
	case "TWO":
		return gocql.Two, nil
	case "THREE":
		return gocql.Three, nil
	case "QUORUM":
		return gocql.Quorum, nil
	case "ALL":
		return gocql.All, nil
	case "LOCAL_QUORUM":
		return gocql.LocalQuorum, nil
	case "EACH_QUORUM":
		return gocql.EachQuorum, nil
	case "LOCAL_ONE":
		return gocql.LocalOne, nil
	}
	return 0, fmt.Errorf("consistency %q: want one of ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE", s)
}

// ClusterConfig builds the driver configuration. It validates first.
func (c Config) ClusterConfig() (*gocql.ClusterConfig, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cc := gocql.NewCluster(c.Hosts...)
	if c.Port != 0 {
		cc.Port = c.Port
	}
	cc.Keyspace = c.Keyspace
	cc.Consistency = gocql.LocalQuorum
	if c.Consistency != "" {
		cc.Consistency, _ = ParseConsistency(c.Consistency)
	}
	cc.Timeout = orDefault(c.Timeout, 12*time.Second)
	cc.ConnectTimeout = min(max(c.connectTimeout()/3, time.Second), attemptTimeout)
	cc.MaxWaitSchemaAgreement = orDefault(c.DriverAgreementWait, 60*time.Second)
	if c.DriverAgreementWait < 0 {
		cc.MaxWaitSchemaAgreement = 0
	}
	cc.ProtoVersion = 4
	if c.Logger != nil {
		cc.Logger = c.Logger
		if c.DriverAgreementWait < 0 {
			// With no wait the driver logs "schema versions not consistent" after every DDL
			// statement; the caller waits and reports itself.
			cc.Logger = quietAgreement{c.Logger}
		}
	}
	if c.LocalDC != "" {
		cc.PoolConfig.HostSelectionPolicy = TokenAware(gocql.DCAwareRoundRobinPolicy(c.LocalDC), DriverLogger(cc))
	} else {
		cc.PoolConfig.HostSelectionPolicy = TokenAware(gocql.RoundRobinHostPolicy(), DriverLogger(cc))
	}
	// The session is ready once one node's pool is: without this, CreateSession waits for
	// every node's pool, and a node that accepts connections but never answers (paused,
	// frozen) holds every new session for its whole connect timeout, per connection. The
	// others' pools keep filling in the background; queries skip a node with no connection.
	cc.PoolConfig.HostSelectionPolicy = gocql.SingleHostReadyPolicy(cc.PoolConfig.HostSelectionPolicy)
	if c.Direct {
		if err := c.direct(cc); err != nil {
			return nil, err
		}
	}
	if c.Username != "" || c.Password != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
	}
	if c.tlsOn() {
		tc, err := c.tlsConfig()
		if err != nil {
			return nil, err
		}
		cc.SslOpts = &gocql.SslOptions{Config: tc, EnableHostVerification: !c.InsecureTLS}
	}
	return cc, nil
}

// direct points every address the driver learns from the node at the one contact point.
func (c Config) direct(cc *gocql.ClusterConfig) error {
	if len(c.Hosts) != 1 {
		return fmt.Errorf("%s: a direct connection takes exactly one host, not %d", c.source(), len(c.Hosts))
	}
	host, portText, err := net.SplitHostPort(c.Hosts[0])
	if err != nil {
		host, portText = c.Hosts[0], ""
	}
	port := cc.Port
	if portText != "" {
		port, _ = strconv.Atoi(portText) // Validate checked it
	}
	ip := net.ParseIP(host)
	if ip == nil {
		ips, err := net.LookupIP(host)
		if err != nil || len(ips) == 0 {
			return fmt.Errorf("%s: resolve %s: %v", c.source(), host, err)
		}
		ip = ips[0]
	}
	cc.AddressTranslator = gocql.AddressTranslatorFunc(func(net.IP, int) (net.IP, int) { return ip, port })
	return nil
}

func (c Config) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.InsecureTLS, ServerName: c.ServerName} //nolint:gosec // opt-in for test clusters
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA file %s: no PEM certificate in it", c.CAFile)
		}
		tc.RootCAs = pool
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load TLS client certificate %s and key %s: %w", c.CertFile, c.KeyFile, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// UnreachableError says which hosts could not be reached, and why.
type UnreachableError struct {
	Hosts    []string
	Source   string
	Attempts int           // session attempts made
	Waited   time.Duration // from the first attempt to giving up
	Err      error         // what the last attempt failed with
	// TLS, when set, says the attempt failed for a TLS reason (including a plain client
	// turned away by a node that wants TLS): running again unchanged fails the same way.
	TLS *TLSTrouble
}

func (e *UnreachableError) Error() string {
	tried := ""
	if e.Attempts > 1 {
		tried = fmt.Sprintf(" (%d attempts in %s)", e.Attempts, e.Waited.Round(100*time.Millisecond))
	}
	why := ""
	if e.TLS != nil {
		why = ": " + e.TLS.Explain()
	}
	return fmt.Sprintf("cannot connect to Cassandra at %s (from %s)%s: %v%s", strings.Join(e.Hosts, ","), e.Source, tried, e.Err, why)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Refused reports whether the cluster answered and refused the login (wrong or missing
// credentials) or the TLS handshake failed: Open stopped at once, and running again
// unchanged meets the same refusal, so a caller must not count it as trouble to retry.
func (e *UnreachableError) Refused() bool {
	return e.TLS != nil || (e.Err != nil && !worthRetrying(e.Err))
}

// attemptTimeout bounds one connection's dial and handshake. A session attempt can spend
// it twice on a frozen node: once for the control connection, once filling its pool.
const attemptTimeout = 5 * time.Second

// DefaultConnectTimeout is ConnectTimeout when it is zero: the default of every command's
// --connect-timeout.
const DefaultConnectTimeout = 10 * time.Second

func (c Config) connectTimeout() time.Duration {
	return orDefault(c.ConnectTimeout, DefaultConnectTimeout)
}

// Open connects, trying again with backoff until ConnectTimeout (or ctx) ends: a node that
// is restarting, or a burst of processes connecting at once (eight deploys starting
// together), fails single attempts with "no connections were made when creating the
// session". Errors that another attempt cannot fix (authentication, TLS) stop at once.
// A cluster that cannot be reached is an *UnreachableError naming the hosts.
func Open(ctx context.Context, c Config) (*gocql.Session, error) { return OpenWith(ctx, c, nil) }

// OpenWith is Open with the driver configuration adjusted by configure before each attempt
// (a service's retry policy, say denorm.ConfigureCluster), so a service connects with the
// same retries and errors as the CLI.
func OpenWith(ctx context.Context, c Config, configure func(*gocql.ClusterConfig) (*gocql.ClusterConfig, error)) (*gocql.Session, error) {
	clusterConfig := func() (*gocql.ClusterConfig, error) {
		cc, err := c.ClusterConfig()
		if err != nil || configure == nil {
			return cc, err
		}
		return configure(cc)
	}
	if _, err := clusterConfig(); err != nil {
		return nil, err
	}
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, c.connectTimeout())
	defer cancel()
	unreachable := func(attempts int, err error) *UnreachableError {
		return &UnreachableError{Hosts: c.Hosts, Source: c.source(), Attempts: attempts, Waited: time.Since(start), Err: err}
	}
	var (
		s       *gocql.Session
		trouble *TLSTrouble // the attempt's failure was a TLS problem: no retry
		final   bool        // another attempt cannot succeed
	)
	attempts, err := retry.Do(octx, retry.Policy{
		Backoff: retry.Backoff{Min: 200 * time.Millisecond, Max: 2 * time.Second},
		Retry:   func(error) bool { return !final },
	}, func() error {
		// A fresh configuration each time: a token-aware policy serves one session only.
		cc, _ := clusterConfig()
		dl := &dialLog{next: cc.Logger}
		if dl.next == nil {
			dl.next = gocql.Logger
		}
		cc.Logger = dl
		var err error
		s, err = createSession(octx, cc)
		lines := hostFailures(dl.stop())
		if err == nil {
			return nil
		}
		trouble = diagnoseAttempt(octx, c, err, lines)
		final = trouble != nil || !worthRetrying(err) || !allWorthRetrying(lines)
		return err
	})
	switch {
	case err == nil:
		return s, nil
	case trouble != nil:
		u := unreachable(attempts, err)
		u.TLS = trouble
		return nil, u
	case !final && octx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
		err = fmt.Errorf("no session within %s", c.connectTimeout())
	}
	return nil, unreachable(attempts, err)
}

// createSession runs one gocql session attempt, abandoned (and closed when it finishes)
// if ctx ends first.
func createSession(ctx context.Context, cc *gocql.ClusterConfig) (*gocql.Session, error) {
	type result struct {
		s   *gocql.Session
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := cc.CreateSession()
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-ctx.Done():
		go func() {
			if r := <-done; r.s != nil {
				r.s.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// worthRetrying reports whether another session attempt may succeed: not after the
// cluster refused the credentials or the TLS handshake failed.
func worthRetrying(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"authentication", "bad credentials", "password", "x509", "certificate", "tls:"} {
		if strings.Contains(msg, s) {
			return false
		}
	}
	return true
}

// allWorthRetrying is worthRetrying for each contact point's failure the driver logged.
func allWorthRetrying(failures []string) bool {
	for _, l := range failures {
		if !worthRetrying(errors.New(l)) {
			return false
		}
	}
	return true
}

// hostFailures picks, from the driver's log lines, those that say why one contact point
// could not be used ("unable to dial control conn HOST:PORT: ERR", "unable setup control
// conn ...").
func hostFailures(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.Contains(l, "control conn") {
			out = append(out, l)
		}
	}
	return out
}

// dialLog passes the driver's log lines on to next and keeps those logged while a session
// is being made. gocql tries the contact points in a random order and its error names only
// the last one's failure: with the first of two contact points down, about half the
// attempts end on that one's "connection refused", and what the other said (a TLS
// handshake it wanted, credentials it refused), which is what the user must fix, is only
// in the log line "unable to dial control conn HOST:PORT: ERR".
type dialLog struct {
	next  gocql.StdLogger
	mu    sync.Mutex
	lines []string
	done  bool
}

// maxDialLines bounds what one attempt keeps (a contact point list is short).
const maxDialLines = 64

func (d *dialLog) keep(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.done && len(d.lines) < maxDialLines {
		d.lines = append(d.lines, s)
	}
}

// stop ends the keeping (the session lives on with this logger) and returns the lines kept.
func (d *dialLog) stop() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.done = true
	return d.lines
}

func (d *dialLog) Print(v ...any) { d.keep(fmt.Sprint(v...)); d.next.Print(v...) }

func (d *dialLog) Printf(format string, v ...any) {
	d.keep(fmt.Sprintf(format, v...))
	d.next.Printf(format, v...)
}

func (d *dialLog) Println(v ...any) { d.keep(fmt.Sprintln(v...)); d.next.Println(v...) }

// quietAgreement drops the driver's "schema versions not consistent" lines; see
// Config.DriverAgreementWait.
type quietAgreement struct{ l gocql.StdLogger }

func (q quietAgreement) keep(s string) bool {
	return !strings.Contains(s, "schema versions not consistent")
}

func (q quietAgreement) Print(v ...any) {
	if s := fmt.Sprint(v...); q.keep(s) {
		q.l.Print(v...)
	}
}

func (q quietAgreement) Printf(format string, v ...any) {
	if q.keep(fmt.Sprintf(format, v...)) {
		q.l.Printf(format, v...)
	}
}

func (q quietAgreement) Println(v ...any) {
	if s := fmt.Sprintln(v...); q.keep(s) {
		q.l.Println(v...)
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
