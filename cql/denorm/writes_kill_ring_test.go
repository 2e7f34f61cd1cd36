package denorm

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/ringtest"
)

// killSample is one write of TestRingWriteModesUnderNodeKill.
type killSample struct {
	mode  Mode
	start time.Time
	dur   time.Duration
	p     *post
	err   error
}

// TestRingWriteModesUnderNodeKill writes posts (four rows each: posts_by_id, posts_by_user
// and two hashtags) at LOCAL_QUORUM on RF 3, in Logged and Concurrent mode at once, 4
// clients each at about 10 writes a second, while node 1 is SIGKILLed, left down 10 s and
// started again. A LOGGED batch's coordinator writes the batchlog to two other nodes and
// waits for both, so until the dead node is convicted every batch times out; a Concurrent
// write sends each row on its own and needs only two replicas of each. Every write must
// succeed both ways, and every acknowledged post must be in posts_by_id and posts_by_user
// at QUORUM afterwards. The latencies (clean, the fault window from the kill until the node
// answers CQL again, counting every write in flight at some moment of it, after) are
// logged per mode, not asserted. CQLSIZE_KILL_RUNS sets the runs (default 3).
func TestRingWriteModesUnderNodeKill(t *testing.T) {
	ringtest.Hosts(t)
	ringtest.Lock(t)
	admin, ks := ringtest.Keyspace(t, 3)
	stmts, err := cql.SplitStatements("posts.cql", []byte(postsCQL))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		if err := admin.Query(st.Text).Exec(); err != nil {
			t.Fatalf("%s: %v", st.Pos, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	if err := admin.AwaitSchemaAgreement(ctx); err != nil {
		t.Fatal(err)
	}
	s := configuredSession(t, ringtest.Config(t), ks)
	runs := 3
	if v := os.Getenv("CQLSIZE_KILL_RUNS"); v != "" {
		if runs, err = strconv.Atoi(v); err != nil || runs < 1 || runs > 10 {
			t.Fatalf("CQLSIZE_KILL_RUNS=%q: want 1 to 10", v)
		}
	}
	const clients, pace, clean, downFor = 4, 100 * time.Millisecond, 5 * time.Second, 10 * time.Second
	modes := []Mode{Logged, Concurrent}
	var all []killSample
	for run := 1; run <= runs; run++ {
		var (
			mu      sync.Mutex
			samples []killSample
			wg      sync.WaitGroup
			stop    = make(chan struct{})
		)
		for _, mode := range modes {
			m := newPostModel(t, s, postsSchema(ks), Options{Mode: mode, Consistency: gocql.LocalQuorum})
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					tick := time.NewTicker(pace)
					defer tick.Stop()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						case <-tick.C:
						}
						p := newPost("kill", fmt.Sprintf("t%d", (c+i)%5))
						start := time.Now()
						_, err := m.Insert(ctx, p)
						mu.Lock()
						samples = append(samples, killSample{mode: mode, start: start, dur: time.Since(start), p: p, err: err})
						mu.Unlock()
					}
				}()
			}
		}
		time.Sleep(clean)
		killAt := time.Now()
		ringtest.Kill(t, 1)
		time.Sleep(downFor)
		ringtest.Start(t, 1)
		upAt := time.Now()
		time.Sleep(clean)
		close(stop)
		wg.Wait()
		for _, mode := range modes {
			var before, during, after []time.Duration
			for _, r := range samples {
				if r.mode != mode {
					continue
				}
				if r.err != nil {
					t.Errorf("run %d, %s: a write at +%s failed after %s: %v", run, mode, r.start.Sub(killAt).Round(time.Millisecond), r.dur.Round(time.Millisecond), r.err)
				}
				switch end := r.start.Add(r.dur); {
				case !end.After(killAt):
					before = append(before, r.dur)
				case r.start.Before(upAt): // in flight at some moment of the fault window
					during = append(during, r.dur)
				default:
					after = append(after, r.dur)
				}
			}
			t.Logf("run %d, %s: clean %s; fault window (%s from SIGKILL until node 1 answered CQL) %s; after %s",
				run, mode, latencies(before), upAt.Sub(killAt).Round(100*time.Millisecond), latencies(during), latencies(after))
		}
		all = append(all, samples...)
	}
	missing := 0
	for _, r := range all {
		if r.err != nil {
			continue
		}
		month, err := monthOf(r.p.ID)
		if err != nil {
			t.Fatal(err)
		}
		var n1, n2 int
		if err := s.Query("SELECT count(*) FROM posts_by_id WHERE post_id = ?", r.p.ID).Consistency(gocql.Quorum).WithContext(ctx).Scan(&n1); err != nil {
			t.Fatal(err)
		}
		if err := s.Query("SELECT count(*) FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?", r.p.UserID, month, r.p.ID).
			Consistency(gocql.Quorum).WithContext(ctx).Scan(&n2); err != nil {
			t.Fatal(err)
		}
		if n1 != 1 || n2 != 1 {
			missing++
			if missing <= 10 {
				t.Errorf("acknowledged %s post %s: %d rows in posts_by_id, %d in posts_by_user", r.mode, r.p.ID, n1, n2)
			}
		}
	}
	t.Logf("%d writes checked at QUORUM, %d acknowledged posts missing a row", len(all), missing)
}

// latencies summarizes durations: count, p50, p99, max and how many took over 1s.
func latencies(d []time.Duration) string {
	if len(d) == 0 {
		return "no writes"
	}
	d = slices.Clone(d)
	slices.Sort(d)
	q := func(p int) time.Duration { return d[max((len(d)*p+99)/100, 1)-1].Round(time.Millisecond) }
	over := 0
	for _, x := range d {
		if x > time.Second {
			over++
		}
	}
	return fmt.Sprintf("%d writes, p50 %s, p99 %s, max %s, %d over 1s", len(d), q(50), q(99), d[len(d)-1].Round(time.Millisecond), over)
}
