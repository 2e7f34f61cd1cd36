package backfill

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/internal/retry"
)

// schemaLag reports a coordinator that does not know a table the run created or checked a
// moment ago: a node that was down, or busy, when the CREATE went out answers "table ...
// does not exist" until it pulls the schema. For the backfill's own tables and its target,
// both known to exist before any range is copied, that passes like a timeout does.
func schemaLag(err error) bool {
	var re gocql.RequestError
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid {
		return false
	}
	msg := strings.ToLower(re.Message())
	return strings.Contains(msg, "does not exist") || strings.Contains(msg, "unconfigured table")
}

// retryFor runs op until it succeeds, fails with an error that is not denorm.Transient, ctx
// ends, or limit has passed since the first attempt (limit <= 0: once), pausing between
// attempts from 100 ms doubling to 5 s (each drawn from its upper half, so runs that lost
// the same node do not retry in step). The error is op's last.
func retryFor(ctx context.Context, limit time.Duration, op func() error) error {
	if limit <= 0 {
		return op()
	}
	start := time.Now()
	worth := func(err error) bool { return denorm.Transient(err) || schemaLag(err) }
	tries, err := retry.Do(ctx, retry.Policy{
		Backoff: retry.Backoff{Min: 100 * time.Millisecond, Max: 5 * time.Second, Jitter: retry.UpperHalf},
		Budget:  limit,
		Retry:   worth,
	}, op)
	if tries > 1 && err != nil && worth(err) && ctx.Err() == nil { // the budget ran out
		return fmt.Errorf("%w (%d attempts in %s)", err, tries, time.Since(start).Round(time.Millisecond))
	}
	return err
}
