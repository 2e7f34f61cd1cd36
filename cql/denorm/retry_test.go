package denorm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
)

// attemptQuery is the part of a gocql query the retry policy reads: how many attempts were
// made, whether it is idempotent and its context. It stands for the policy's input, not for
// Cassandra: what the cluster answers is tested on the node (writes_cluster_test.go).
type attemptQuery struct {
	attempts int
	idem     bool
	ctx      context.Context
}

func (q *attemptQuery) Attempts() int                     { return q.attempts }
func (q *attemptQuery) SetConsistency(gocql.Consistency)  {}
func (q *attemptQuery) GetConsistency() gocql.Consistency { return gocql.LocalQuorum }
func (q *attemptQuery) Context() context.Context          { return q.ctx }
func (q *attemptQuery) IsIdempotent() bool                { return q.idem }

// plainQuery has no IsIdempotent: the policy must treat it as not idempotent.
type plainQuery struct{ attemptQuery }

func (q *plainQuery) IsIdempotent() {}

func TestRetryPolicyAttempt(t *testing.T) {
	p := newRetryPolicy(ClusterOptions{Retries: 3, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	for _, tc := range []struct {
		name string
		q    gocql.RetryableQuery
		want bool
	}{
		{"idempotent, first failure", &attemptQuery{attempts: 1, idem: true, ctx: bg}, true},
		{"idempotent, third failure", &attemptQuery{attempts: 3, idem: true, ctx: bg}, true},
		{"idempotent, retries used up", &attemptQuery{attempts: 4, idem: true, ctx: bg}, false},
		{"not idempotent", &attemptQuery{attempts: 1, idem: false, ctx: bg}, false},
		{"no idempotence method", &plainQuery{attemptQuery{attempts: 1, idem: true, ctx: bg}}, false},
		{"context done", &attemptQuery{attempts: 1, idem: true, ctx: cancelled}, false},
		{"context done during backoff", &attemptQuery{attempts: 3, idem: true, ctx: cancelled}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Attempt(tc.q); got != tc.want {
				t.Errorf("Attempt = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRetryPolicyNoRetries(t *testing.T) {
	p, err := NewRetryPolicy(ClusterOptions{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Attempt(&attemptQuery{attempts: 1, idem: true, ctx: context.Background()}) {
		t.Error("Retries -1 still retries")
	}
}

func TestRetryBackoff(t *testing.T) {
	p := newRetryPolicy(ClusterOptions{Retries: 10, MinBackoff: 40 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	for _, tc := range []struct {
		attempts int
		lo, hi   time.Duration
	}{
		{1, 0, 0}, // the first retry goes to the next host at once
		{2, 20 * time.Millisecond, 40 * time.Millisecond},
		{3, 40 * time.Millisecond, 80 * time.Millisecond},
		{4, 80 * time.Millisecond, 160 * time.Millisecond},
		{5, 100 * time.Millisecond, 200 * time.Millisecond}, // capped
		{1000, 100 * time.Millisecond, 200 * time.Millisecond},
	} {
		for range 50 {
			if d := p.backoff(tc.attempts); d < tc.lo || d > tc.hi {
				t.Fatalf("backoff after %d attempts = %s, want %s..%s", tc.attempts, d, tc.lo, tc.hi)
			}
		}
	}
}

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&gocql.RequestErrUnavailable{}, true},
		{&gocql.RequestErrWriteTimeout{WriteType: "BATCH"}, true},
		{&gocql.RequestErrReadTimeout{}, true},
		{&gocql.RequestErrWriteFailure{}, true},
		{&gocql.RequestErrReadFailure{}, true},
		{fmt.Errorf("insert: %w", &gocql.RequestErrWriteTimeout{}), true},
		{gocql.ErrTimeoutNoResponse, true},
		{gocql.ErrConnectionClosed, true},
		{gocql.ErrNoStreams, true},
		{io.EOF, true},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
		{fmt.Errorf("write: %w", syscall.EPIPE), true},
		{syscall.ECONNREFUSED, true},
		{context.Canceled, false},
		{context.DeadlineExceeded, false},
		{gocql.ErrNotFound, false},
		{gocql.ErrSessionClosed, false},
		{errors.New("can not marshal string into int"), false},
	} {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("Transient(%#v) = %v, want %v", tc.err, got, tc.want)
		}
		want := gocql.Rethrow
		switch {
		case connect.CoordinatorTimeout(tc.err):
			want = gocql.Retry
		case tc.want:
			want = gocql.RetryNextHost
		}
		if rt := newRetryPolicy(ClusterOptions{Retries: 1}).GetRetryType(tc.err); rt != want {
			t.Errorf("GetRetryType(%v) = %v, want %v", tc.err, rt, want)
		}
	}
}

// TestRetryWhere: a coordinator that answered is tried again, a lost one is passed over.
func TestRetryWhere(t *testing.T) {
	p := newRetryPolicy(ClusterOptions{})
	for _, tc := range []struct {
		err  error
		want gocql.RetryType
	}{
		{&gocql.RequestErrWriteTimeout{WriteType: "BATCH_LOG"}, gocql.Retry},
		{&gocql.RequestErrReadTimeout{}, gocql.Retry},
		{&gocql.RequestErrUnavailable{}, gocql.RetryNextHost},
		{gocql.ErrTimeoutNoResponse, gocql.RetryNextHost},
		{syscall.ECONNRESET, gocql.RetryNextHost},
		{errors.New("can not marshal"), gocql.Rethrow},
	} {
		if got := p.GetRetryType(tc.err); got != tc.want {
			t.Errorf("GetRetryType(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestConfigureCluster(t *testing.T) {
	cc, err := ConfigureCluster(gocql.NewCluster("127.0.0.1"), ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rp, ok := cc.RetryPolicy.(*retryPolicy)
	if !ok || rp.retries != DefaultRetries || rp.min != DefaultMinBackoff || rp.max != DefaultMaxBackoff {
		t.Errorf("retry policy %#v", cc.RetryPolicy)
	}
	if cc.Timeout != DefaultTimeout || cc.ConnectTimeout != DefaultConnectTimeout || cc.ReconnectInterval != DefaultReconnectInterval {
		t.Errorf("timeouts %s %s %s", cc.Timeout, cc.ConnectTimeout, cc.ReconnectInterval)
	}
	if cc.PoolConfig.HostSelectionPolicy == nil {
		t.Error("no host selection policy")
	}
	keep := gocql.RoundRobinHostPolicy()
	cc = gocql.NewCluster("127.0.0.1")
	cc.PoolConfig.HostSelectionPolicy = keep
	if cc, _ = ConfigureCluster(cc, ClusterOptions{Timeout: time.Second, MinBackoff: DefaultMaxBackoff + time.Second}); cc.PoolConfig.HostSelectionPolicy != keep || cc.Timeout != time.Second {
		t.Error("the caller's host selection policy or timeout was replaced")
	}
	if rp := cc.RetryPolicy.(*retryPolicy); rp.max != DefaultMaxBackoff+time.Second {
		t.Errorf("MaxBackoff %s is under MinBackoff %s", rp.max, DefaultMaxBackoff+time.Second)
	}
	for _, o := range []ClusterOptions{
		{Timeout: -1}, {MinBackoff: -time.Second}, {Retries: 101},
		{MinBackoff: time.Second, MaxBackoff: time.Millisecond},
	} {
		if _, err := ConfigureCluster(gocql.NewCluster("127.0.0.1"), o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := ConfigureCluster(nil, ClusterOptions{}); err == nil {
		t.Error("nil cluster config accepted")
	}
}

func TestSpeculativeReads(t *testing.T) {
	if sp := SpeculativeReads(0); sp.Attempts() != 0 {
		t.Errorf("delay 0: %d speculative attempts", sp.Attempts())
	}
	if sp := SpeculativeReads(30 * time.Millisecond); sp.Attempts() != 1 || sp.Delay() != 30*time.Millisecond {
		t.Errorf("got %d attempts after %s", sp.Attempts(), sp.Delay())
	}
	if _, err := New[post](nil, postsSchema("ks"), Options{SpeculativeReadAfter: -time.Second}, postMappings()...); err == nil {
		t.Error("negative SpeculativeReadAfter accepted")
	}
}
