package denorm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/ringtest"
)

// TestRingTimelineSpeculativeReadsUnderPause reads first pages of timelines (RF 3,
// LOCAL_QUORUM, a session from ConfigureCluster) while node 1 is paused (SIGSTOP: it
// accepts connections and answers nothing), with and without speculative reads, at the
// same time, from the moment of the pause until the window ends (20 s: about when gossip
// convicts the node and the driver hears it is DOWN). A read whose coordinator is the
// paused node waits for the request timeout (6 s) and then goes to the next replica; a
// speculative read goes to the next replica after the delay. Every page must hold the
// user's newest posts in order, both ways; the latencies are logged, not asserted (they
// are this machine's, see docs/faults.md). `make test-ring` makes one run; docs/faults.md's
// figures over 3 runs come from CQLSIZE_RING_RUNS=3 (see ringtest.Runs).
func TestRingTimelineSpeculativeReadsUnderPause(t *testing.T) {
	ringtest.Hosts(t)
	ringtest.Lock(t)
	s, _ := ringPosts(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	const users, perUser, limit = 24, 8, 5
	newest := time.Date(2024, 8, 20, 12, 0, 0, 0, time.UTC)
	keys := make([]gocql.UUID, users)
	want := make([][]gocql.UUID, users)
	for u := range keys {
		keys[u] = gocql.TimeUUID()
		at := make([]time.Time, perUser)
		for i := range at { // newest first, over two months
			at[i] = newest.Add(-time.Duration(i) * 97 * time.Hour)
		}
		want[u] = userPosts(t, s, keys[u], at...)[:limit]
	}
	runs := ringtest.Runs(t)
	const delay, window, workers = 100 * time.Millisecond, 20 * time.Second, 4
	query := "SELECT post_id, content FROM posts_by_user WHERE user_id = ? AND month = ?"
	for run := 1; run <= runs; run++ {
		ringtest.Pause(t, 1)
		paused := time.Now()
		lat := map[time.Duration][]time.Duration{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		errs := make(chan error, 2*workers)
		for _, d := range []time.Duration{0, delay} {
			tl := &Timeline{Session: s, Query: query, Scheme: months, Retention: 100 * 24 * time.Hour, SpeculativeReadAfter: d}
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(run), uint64(w)))
					for time.Since(paused) < window {
						u := rng.IntN(users)
						start := time.Now()
						p, err := tl.Page(ctx, PageRequest{Key: []any{keys[u]}, Newest: newest, Limit: limit})
						took := time.Since(start)
						if err != nil {
							errs <- fmt.Errorf("speculation after %s: %w", d, err)
							return
						}
						if got := ids(p.Rows); !slices.Equal(got, want[u]) {
							errs <- fmt.Errorf("speculation after %s: user %d: %d rows, not the %d newest posts", d, u, len(got), limit)
							return
						}
						mu.Lock()
						lat[d] = append(lat[d], took)
						mu.Unlock()
					}
				}()
			}
		}
		wg.Wait()
		ringtest.Resume(t, 1)
		close(errs)
		for err := range errs {
			t.Errorf("run %d: %v", run, err)
		}
		for _, d := range []time.Duration{0, delay} {
			l := lat[d]
			slices.Sort(l)
			if len(l) == 0 {
				t.Errorf("run %d, speculation after %s: no page read", run, d)
				continue
			}
			q := func(p float64) time.Duration { return l[min(len(l)-1, int(p*float64(len(l))))] }
			t.Logf("run %d, speculation after %s: %d pages in the %s after the pause: p50 %s, p99 %s, max %s",
				run, d, len(l), window, q(0.5).Round(time.Millisecond), q(0.99).Round(time.Millisecond), l[len(l)-1].Round(time.Millisecond))
		}
		if run == runs {
			break // ringtest.Lock's cleanup waits for the ring to be whole; nothing reads after this
		}
		waitRingHealthy(t, 4*time.Minute)
		time.Sleep(12 * time.Second) // the driver's reconnect interval (10 s) brings node 1 back into its pool
	}
}

// waitRingHealthy waits until every node answers CQL and sees every other one UP.
func waitRingHealthy(t *testing.T, timeout time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(2 * time.Second) {
		out, code := ringtest.Script(t, "status")
		if code == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ring is not whole %s after resuming node 1:\n%s", timeout, out)
		}
	}
}
