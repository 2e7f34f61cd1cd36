package migrations

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/retry"
)

// Bookkeeping reads and writes ride through the moments a ring is briefly unhealthy: a
// replica that has not yet loaded a table another process just created (it answers
// INCOMPATIBLE_SCHEMA, or "unconfigured table"), a replica that is down or restarting
// (unavailable, timeouts), a coordinator that drops the connection.
//
// Why a policy of our own: gocql's NewCluster sets no RetryPolicy, so the driver tries a
// statement once and hands every such error to the caller (query_executor.go, do). Its
// documentation says only statements marked idempotent are eligible for a retry, but its
// executor in v1.7.0 retries whatever the policy allows; and its policies (Simple,
// ExponentialBackoff) retry every error alike, a syntax error included, for a count of
// attempts rather than a deadline. So the decision is made here, per statement: a plain
// read, or a write of fixed values (every bookkeeping write sets values computed before it
// is sent), may be retried after any transient error, since sending it twice leaves the
// same row. A conditional statement (IF ..., a lightweight transaction) is retried only
// after errors that prove it was not applied (unavailable, a table the node does not know
// yet): after a timeout its outcome is unknown, and the caller must decide.

// retryBudget bounds how long one bookkeeping statement is retried. Schema mismatches
// last until the replicas have the new table, which is what the agreement timeout bounds.
func retryBudget(opt Options) time.Duration {
	if opt.AgreementTimeout > 0 {
		return opt.AgreementTimeout
	}
	return DefaultAgreementTimeout
}

// Backoff between attempts: 50 ms doubling to 2 s, each with up to half again of jitter,
// so that eight processes that failed together do not retry together.
const (
	retryMinBackoff = 50 * time.Millisecond
	retryMaxBackoff = 2 * time.Second
)

var retryBackoff = retry.Backoff{Min: retryMinBackoff, Max: retryMaxBackoff, Jitter: retry.HalfAgain}

// missingTableBudget bounds the retries of a statement on a table the node does not know:
// one being created by another process is usable within seconds, and one that does not
// exist at all should fail soon, not after the whole budget.
const missingTableBudget = 30 * time.Second

// bookkeepingRetry is a gocql.RetryPolicy for one statement: it allows attempts until the
// deadline, sleeping with backoff between them and stopping early when the statement's
// context ends. The driver calls Attempt, then GetRetryType, after each failed attempt;
// the sleep is in GetRetryType, so that an error that is not retried costs no wait.
type bookkeepingRetry struct {
	ctx         context.Context
	deadline    time.Time
	conditional bool // an LWT: retry only errors that prove it was not applied
	attempts    int
	missingBy   time.Time // when retries on a missing table stop (zero until the first)
}

func newBookkeepingRetry(ctx context.Context, stmt string, budget time.Duration) *bookkeepingRetry {
	if ctx == nil {
		ctx = context.Background()
	}
	return &bookkeepingRetry{ctx: ctx, deadline: time.Now().Add(budget), conditional: isConditional(stmt)}
}

// Attempt says whether another attempt may be made at all.
func (r *bookkeepingRetry) Attempt(gocql.RetryableQuery) bool {
	return r.ctx.Err() == nil && time.Now().Before(r.deadline)
}

// GetRetryType decides after err whether to try again, and where, and sleeps the backoff
// first. An error of the coordinator's own (its connection dropped, it is overloaded or
// starting) moves to the next host; one that comes from the replicas (unavailable, a
// timeout, a replica without the table yet) is retried on the same coordinator, since any
// other would see the same replicas. The driver stops when the query plan runs out of
// hosts, so RetryNextHost alone would give up after one attempt per node.
func (r *bookkeepingRetry) GetRetryType(err error) gocql.RetryType {
	if !r.retries(err) {
		return gocql.Rethrow
	}
	next := gocql.Retry
	if coordinatorTrouble(err) {
		next = gocql.RetryNextHost
	}
	r.attempts++
	wait := retryBackoff.Pause(r.attempts)
	limit := r.deadline
	if notYetCreated(err) {
		if r.missingBy.IsZero() {
			r.missingBy = time.Now().Add(missingTableBudget)
		}
		if r.missingBy.Before(limit) {
			limit = r.missingBy
		}
	}
	if time.Now().Add(wait).After(limit) {
		return gocql.Rethrow
	}
	if retry.Sleep(r.ctx, wait) != nil {
		return gocql.Rethrow
	}
	return next
}

// coordinatorTrouble reports an error of the coordinator itself rather than of the replicas.
func coordinatorTrouble(err error) bool {
	var req gocql.RequestError
	if errors.As(err, &req) {
		switch req.Code() {
		case gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping:
			return true
		}
		return false
	}
	return true // not an answer from the node: the connection failed
}

func (r *bookkeepingRetry) retries(err error) bool {
	switch retryClass(err) {
	case notApplied:
		return true
	case mayBeApplied:
		return !r.conditional
	}
	return false
}

// errClass sorts errors for the retry decision.
type errClass int

const (
	permanent    errClass = iota // the node refused the request itself: retrying gives the same answer
	notApplied                   // transient, and the statement certainly did not take effect
	mayBeApplied                 // transient, but a write may have been applied
)

// retryClass classifies an error from one attempt of a statement.
func retryClass(err error) errClass {
	if err == nil {
		return permanent
	}
	if notYetCreated(err) || schemaMismatch(err) {
		return notApplied
	}
	var (
		unavailable *gocql.RequestErrUnavailable
		readTimeout *gocql.RequestErrReadTimeout
		writeTO     *gocql.RequestErrWriteTimeout
		readFail    *gocql.RequestErrReadFailure
		writeFail   *gocql.RequestErrWriteFailure
		casUnknown  *gocql.RequestErrCASWriteUnknown
		req         gocql.RequestError
	)
	switch {
	case errors.As(err, &unavailable):
		return notApplied
	case errors.As(err, &readTimeout), errors.As(err, &writeTO), errors.As(err, &readFail),
		errors.As(err, &writeFail), errors.As(err, &casUnknown):
		return mayBeApplied
	case errors.As(err, &req):
		switch req.Code() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping:
			return notApplied
		case gocql.ErrCodeReadTimeout, gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadFailure,
			gocql.ErrCodeWriteFailure, gocql.ErrCodeCASWriteUnknown:
			return mayBeApplied
		}
		return permanent
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return permanent // the caller gave up; do not outlive it
	case errors.Is(err, gocql.ErrNoConnections), errors.Is(err, syscall.ECONNREFUSED):
		return notApplied
	case errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrTooManyTimeouts), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return mayBeApplied
	}
	var netErr *net.OpError
	if errors.As(err, &netErr) {
		return mayBeApplied
	}
	return permanent
}

// schemaMismatch reports a replica that answered INCOMPATIBLE_SCHEMA: it does not have
// the table (or the version of it) the coordinator sent, because the schema change has not
// reached it yet. The coordinator reports it as a read or write failure.
func schemaMismatch(err error) bool {
	var rf *gocql.RequestErrReadFailure
	if errors.As(err, &rf) {
		return hasIncompatibleSchema(rf.ErrorMap) || strings.Contains(strings.ToUpper(rf.Message()), "INCOMPATIBLE_SCHEMA")
	}
	var wf *gocql.RequestErrWriteFailure
	if errors.As(err, &wf) {
		return hasIncompatibleSchema(wf.ErrorMap) || strings.Contains(strings.ToUpper(wf.Message()), "INCOMPATIBLE_SCHEMA")
	}
	return false
}

// incompatibleSchema is the reason code of INCOMPATIBLE_SCHEMA in Cassandra 4.0 and later
// (RequestFailureReason); the 5.0 message names it too, which is checked as well.
const incompatibleSchema = 3

func hasIncompatibleSchema(m gocql.ErrorMap) bool {
	for _, code := range m {
		if code == incompatibleSchema {
			return true
		}
	}
	return false
}

// isConditional reports whether a statement is a lightweight transaction: an IF clause
// (IF NOT EXISTS, IF EXISTS, IF col = ...) outside quoted text. DDL is not sent through
// the bookkeeping statements, so IF NOT EXISTS here is always an INSERT.
func isConditional(stmt string) bool {
	inQuote := false
	up := strings.ToUpper(stmt)
	for i := 0; i < len(up); i++ {
		switch c := up[i]; {
		case c == '\'':
			inQuote = !inQuote
		case !inQuote && c == 'I' && i+2 < len(up) && up[i+1] == 'F' && isSpace(up[i+2]) && (i == 0 || isSpace(up[i-1])):
			return true
		}
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// withRetry gives q (running under ctx) the bookkeeping retry policy, with budget as its
// deadline. Each query gets its own policy: it counts that query's attempts.
func withRetry(ctx context.Context, q *gocql.Query, stmt string, budget time.Duration) *gocql.Query {
	r := newBookkeepingRetry(ctx, stmt, budget)
	return q.WithContext(ctx).Idempotent(!r.conditional).RetryPolicy(r)
}
