package denorm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/retry"
)

// ClusterOptions tune ConfigureCluster. The zero value is the recommended setting.
type ClusterOptions struct {
	// Retries is how many more times an idempotent statement is sent after its first
	// attempt failed (default 10). A lost connection or a coordinator that sees too few
	// replicas alive sends it to the next host of the query plan, so those end when the
	// plan runs out of hosts; a coordinator's timeout sends it again to the same host after
	// the backoff, and only Retries bounds those. The default is sized for the LOGGED
	// batch: its coordinator writes the batchlog to two other nodes it believes alive and
	// needs both to answer, so after a node dies every batch, through every coordinator,
	// times out (after write_request_timeout, 2s) until the failure detector convicts the
	// dead node: about 18s at the default phi_convict_threshold of 8 with one gossip round
	// a second, 20.6 to 21.8s measured on a loaded three-node ring. Eleven attempts with
	// the default backoff span 31 to 40s, half again that. Negative: no retries.
	Retries int
	// MinBackoff and MaxBackoff bound the pause before the second and later retries: it
	// doubles from MinBackoff up to MaxBackoff, with jitter so that clients that failed
	// together do not come back together (defaults 100ms and 4s). The first retry goes
	// out at once: the usual cause is one coordinator going away, and another coordinator
	// is as ready as it was a moment ago.
	MinBackoff, MaxBackoff time.Duration
	// Timeout bounds one attempt of a request on the client side (default 6s). It is above
	// the coordinator's own timeouts for what denorm sends (write_request_timeout 2s, a
	// LOGGED batch's batchlog write plus its mutations about twice that,
	// read_request_timeout 5s), so a coordinator that is alive answers first with an error
	// that says how many replicas acknowledged. It is what ends an attempt on a
	// coordinator that is frozen (SIGSTOP, a long GC pause, a partition): a process that
	// died resets its connections at once, a frozen one says nothing. Lower makes a frozen
	// coordinator cost less, at the price of giving up on a live one that was about to
	// answer; it is per attempt, so a request with retries can take (Retries+1) times it
	// plus the backoff: bound the whole request with its context.
	Timeout time.Duration
	// ConnectTimeout bounds dialling a node and the connection handshake (default 5s). On
	// a LAN both take milliseconds; 5s leaves room for a node busy starting up while
	// keeping a host that drops packets from holding up session creation and reconnection.
	ConnectTimeout time.Duration
	// ReconnectInterval is how often the driver tries again to connect to the nodes it
	// holds as down (default 10s; gocql's own default is 60s). A node that restarts is
	// normally back within a second through its UP event; this bounds the time it stays
	// unused when that event was missed (the control connection was on the node that died).
	ReconnectInterval time.Duration
}

// Recommended values, see ClusterOptions.
const (
	DefaultRetries           = 10
	DefaultMinBackoff        = 100 * time.Millisecond
	DefaultMaxBackoff        = 4 * time.Second
	DefaultTimeout           = 6 * time.Second
	DefaultConnectTimeout    = 5 * time.Second
	DefaultReconnectInterval = 10 * time.Second
)

func (o ClusterOptions) withDefaults() (ClusterOptions, error) {
	if o.MinBackoff < 0 || o.MaxBackoff < 0 || o.Timeout < 0 || o.ConnectTimeout < 0 || o.ReconnectInterval < 0 {
		return o, errors.New("cluster options: durations must not be negative")
	}
	if o.Retries == 0 {
		o.Retries = DefaultRetries
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Retries > 100 {
		return o, fmt.Errorf("cluster options: %d retries: at most 100 (each one is a request to a node)", o.Retries)
	}
	if o.MinBackoff == 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = max(DefaultMaxBackoff, o.MinBackoff)
	}
	if o.MaxBackoff < o.MinBackoff {
		return o, fmt.Errorf("cluster options: MaxBackoff %s is under MinBackoff %s", o.MaxBackoff, o.MinBackoff)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.ReconnectInterval == 0 {
		o.ReconnectInterval = DefaultReconnectInterval
	}
	return o, nil
}

// ConfigureCluster makes cc fit for a service that writes with this package, and returns
// it. It sets:
//
//   - a retry policy (RetryPolicy) that sends a failed idempotent statement again, to the
//     next host of the query plan when its coordinator went away, at most o.Retries times
//     with a backoff, and never retries a statement that is not marked idempotent. gocql
//     v1.7.0's NewCluster sets no retry policy at all, so without this a coordinator that
//     dies fails every request it was serving (`connection reset by peer`), and a LOGGED
//     batch fails for as long as the cluster takes to notice a dead node, although two
//     replicas of three are alive;
//   - the request and connect timeouts and the reconnect interval (see ClusterOptions for
//     the reasoning behind each);
//   - a token-aware round-robin host selection policy when cc has none, so the
//     coordinator is a replica and the query plan lists the other replicas next.
//
// Every write of a Model is marked idempotent (so retried) unless it sets a whole
// non-frozen list, the one thing this package can send that a replay changes; Load is
// idempotent too. A Model never sends counter updates (New refuses counter tables) nor list
// appends. Consistency, keyspace, credentials and TLS are the caller's to set.
//
// Why a retried write is safe: every statement carries the write's client-side timestamp
// (USING TIMESTAMP), so sending it twice writes the same cells with the same timestamp,
// which Cassandra resolves to one value; a row deleted by a later write stays deleted
// because the replayed insert is older. A LOGGED batch is the same: once a batchlog
// replica holds it (even when the coordinator then dies, or the client saw a timeout), that
// node replays it (a batch older than twice write_request_timeout, on its next replay round,
// every 10 s), and the client's retry through another coordinator writes the same mutations
// with the same timestamp; replay and retry converge on the same rows, each complete.
func ConfigureCluster(cc *gocql.ClusterConfig, o ClusterOptions) (*gocql.ClusterConfig, error) {
	if cc == nil {
		return nil, errors.New("configure cluster: nil cluster config")
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	cc.RetryPolicy = newRetryPolicy(o)
	cc.Timeout = o.Timeout
	cc.WriteTimeout = 0 // gocql then uses Timeout
	cc.ConnectTimeout = o.ConnectTimeout
	cc.ReconnectInterval = o.ReconnectInterval
	if cc.PoolConfig.HostSelectionPolicy == nil {
		cc.PoolConfig.HostSelectionPolicy = connect.TokenAware(gocql.RoundRobinHostPolicy(), connect.DriverLogger(cc))
	}
	return cc, nil
}

// NewRetryPolicy returns the retry policy ConfigureCluster installs, for a service that
// builds its cluster configuration another way or sets it on single queries.
func NewRetryPolicy(o ClusterOptions) (gocql.RetryPolicy, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	return newRetryPolicy(o), nil
}

func newRetryPolicy(o ClusterOptions) *retryPolicy {
	return &retryPolicy{retries: o.Retries, min: o.MinBackoff, max: o.MaxBackoff}
}

// SpeculativeReads returns a policy that sends a read a second time, to another replica,
// when the first attempt has not answered after delay: a read then costs one slow
// replica's latency only when two are slow. gocql applies it to idempotent statements only,
// and per query (Query.SetSpeculativeExecutionPolicy), since the cluster configuration has
// no place for it; Options.SpeculativeReadAfter does it for Model.Load and
// Timeline.SpeculativeReadAfter for timeline pages. Pick a delay near
// the reads' p99, so about one read in a hundred costs a second request.
func SpeculativeReads(delay time.Duration) gocql.SpeculativeExecutionPolicy {
	if delay <= 0 {
		return gocql.NonSpeculativeExecution{}
	}
	return &gocql.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: delay}
}

// readIter runs the idempotent read that newQuery builds, with a speculative second attempt
// after delay when delay is positive (see SpeculativeReads). It returns the iterator and the
// query it ran, which the caller releases once done with the iterator.
//
// gocql v1.7.0 starts the speculative attempt on the next host of the query plan and returns
// whichever attempt ends first. When the plan has no other host up (a one-node cluster, or
// every other replica and node down) that attempt ends at once with ErrNoConnections and the
// read fails, although its first attempt was healthy and is cancelled on the way: on the dev
// node, 20 reads of 20 with a 1 µs delay failed so. Such a read is sent once more without
// speculation, so speculation costs a one-node cluster a slow read's time twice, never the
// read. An iterator that ran on no host is how that answer is told apart. The second send is
// a new query: the cancelled attempt may still be running in the driver and writing to the
// first one (the race detector saw it), and the first is released, which the driver defers
// until its last attempt ends.
func readIter(newQuery func() *gocql.Query, delay time.Duration) (*gocql.Iter, *gocql.Query) {
	q := newQuery()
	if delay <= 0 {
		return q.Iter(), q
	}
	iter := q.SetSpeculativeExecutionPolicy(SpeculativeReads(delay)).Iter()
	if iter.Host() != nil || !errors.Is(iter.Close(), gocql.ErrNoConnections) {
		return iter, q
	}
	q.Release()
	q = newQuery()
	return q.SetSpeculativeExecutionPolicy(gocql.NonSpeculativeExecution{}).Iter(), q
}

// maxResends bounds how many times a read is sent again after driverCancelled.
const maxResends = 3

// driverCancelled reports whether err is a cancellation its caller did not make: ctx, the
// read's own context, is still live. gocql v1.7.0 prepares a statement on each connection
// under the connection's own context (conn.go, prepareStatement), and every request waiting
// for that prepare gets its error; when gocql closes the connection (it heard the node is
// DOWN and drops its pool) that error can be context.Canceled, which the driver returns
// without asking the retry policy, and which the policy would take for the caller giving
// up. On the ring, when gossip convicted a paused node, the four page reads waiting on it
// failed so in two runs of three. A read is idempotent: it is sent again.
func driverCancelled(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) && ctx.Err() == nil
}

// ResendCancelled runs op, an idempotent request made under ctx, and runs it again, at most
// three more times, while it fails with a cancellation ctx did not make: the cancellation
// the driver returns when it drops a connection a prepare was waiting on (see
// driverCancelled). It is for idempotent requests sent outside a Model, such as a backfill's
// writes; a Model's reads resend so on their own.
func ResendCancelled(ctx context.Context, op func() error) error {
	err := op()
	for tries := 0; err != nil && driverCancelled(ctx, err) && tries < maxResends; tries++ {
		err = op()
	}
	return err
}

// retryPolicy retries idempotent statements on the next host. gocql v1.7.0 consults a
// retry policy for every failed statement, idempotent or not (query_executor.go, do), so
// the check is here.
type retryPolicy struct {
	retries  int
	min, max time.Duration
}

// idempotent is what gocql's Query and Batch both implement.
type idempotent interface{ IsIdempotent() bool }

// Attempt allows another attempt of an idempotent statement while retries remain, after
// the backoff (none before the first retry). The wait ends early, refusing the attempt,
// when the statement's context is done.
func (p *retryPolicy) Attempt(q gocql.RetryableQuery) bool {
	iq, ok := q.(idempotent)
	if !ok || !iq.IsIdempotent() {
		return false
	}
	n := q.Attempts() // attempts made so far, the failed one included
	if n > p.retries {
		return false
	}
	ctx := q.Context()
	if ctx.Err() != nil {
		return false
	}
	return retry.Sleep(ctx, p.backoff(n)) == nil
}

// backoff is the pause before attempt n+1: none for the first retry, then MinBackoff
// doubling up to MaxBackoff, each drawn uniformly from its upper half.
func (p *retryPolicy) backoff(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	return retry.Backoff{Min: p.min, Max: p.max, Jitter: retry.UpperHalf}.Pause(n - 1)
}

// GetRetryType decides where the next attempt goes. After a coordinator's own timeout or
// failure (it waited for replicas, or for the batchlog, and gave up) the coordinator is
// alive and any other would wait for the same replicas: the statement goes to the same
// host again, so the attempts are bounded by Retries, not by the number of hosts. After a
// lost connection, no answer in time, too few replicas alive as this coordinator sees
// them, or an overloaded or starting node, it goes to the next host. A statement the
// cluster refuses as such (syntax, invalid, unauthorized...) or one that failed before it
// was sent (a value that does not marshal) fails at once: every node would answer the same.
func (p *retryPolicy) GetRetryType(err error) gocql.RetryType {
	switch {
	case connect.CoordinatorTimeout(err):
		return gocql.Retry
	case Transient(err):
		return gocql.RetryNextHost
	}
	return gocql.Rethrow
}

// Transient reports whether err is a failure of the cluster that a later attempt, through
// another coordinator, may not meet (connect.Transient, the one judgement every package
// shares). It is how the retry policy decides, and what a caller can use to decide whether
// to retry a whole write (with At).
func Transient(err error) bool { return connect.Transient(err) }
