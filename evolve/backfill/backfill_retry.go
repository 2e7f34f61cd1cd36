package backfill

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql/denorm"
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
	start := time.Now()
	pause := 100 * time.Millisecond
	for tries := 1; ; tries++ {
		err := op()
		if err == nil || !(denorm.Transient(err) || schemaLag(err)) || ctx.Err() != nil {
			return err
		}
		wait := pause/2 + rand.N(pause/2+1)
		if time.Since(start)+wait > limit {
			if tries > 1 {
				return fmt.Errorf("%w (%d attempts in %s)", err, tries, time.Since(start).Round(time.Millisecond))
			}
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		pause = min(2*pause, 5*time.Second)
	}
}
