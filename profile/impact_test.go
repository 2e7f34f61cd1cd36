package profile

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// TestProfileImpact1M measures what profiling costs the node (docs/profile.md's figure): it loads
// 1,000,000 rows (10,000 partitions of 100), then profiles the table whole at --rate 20000
// while a probe reads single partitions 50 times a second, and prints the profile's time and
// the probe's latency before and during. It takes a few minutes and loads the node, so it
// runs only with CQLSIZE_PROFILE_IMPACT=1.
func TestProfileImpact1M(t *testing.T) {
	if os.Getenv("CQLSIZE_PROFILE_IMPACT") != "1" {
		t.Skip("set CQLSIZE_PROFILE_IMPACT=1 to load 1M rows and measure the profile's impact")
	}
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks, `CREATE TABLE big (k int, c int, v text, n bigint, PRIMARY KEY (k, c))`)
	const keys, rows = 10000, 100
	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	var loadErr error
	var mu sync.Mutex
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				for half := 0; half < 2; half++ {
					b := s.NewBatch(gocql.UnloggedBatch)
					for c := half * rows / 2; c < (half+1)*rows/2; c++ {
						b.Query(`INSERT INTO big (k, c, v, n) VALUES (?, ?, 'a value of some thirty bytes..', ?)`, k, c, int64(k*c))
					}
					if err := s.ExecuteBatch(b); err != nil {
						mu.Lock()
						loadErr = err
						mu.Unlock()
					}
				}
			}
		}()
	}
	for k := 0; k < keys; k++ {
		work <- k
	}
	close(work)
	wg.Wait()
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	t.Logf("loaded %d rows in %s", keys*rows, time.Since(start).Round(time.Second))

	probe := func(ctx context.Context) []time.Duration {
		var lat []time.Duration
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return lat
			case <-tick.C:
			}
			t0 := time.Now()
			iter := s.Query(`SELECT k, c, v, n FROM big WHERE k = ? LIMIT 10`, (i*7919)%keys).Iter()
			for iter.Scan(new(int), new(int), new(string), new(int64)) {
			}
			if err := iter.Close(); err != nil {
				t.Errorf("probe read: %v", err)
				return lat
			}
			lat = append(lat, time.Since(t0))
		}
	}
	pct := func(lat []time.Duration, q float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		s := append([]time.Duration(nil), lat...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[min(len(s)-1, int(q*float64(len(s))))]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	before := probe(ctx)
	cancel()

	const rate = 20000
	pctx, pcancel := context.WithCancel(context.Background())
	var during []time.Duration
	done := make(chan struct{})
	go func() { during = probe(pctx); close(done) }()
	rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer rcancel()
	res, err := Run(rctx, s, Options{Keyspace: ks, Full: true, Rate: rate})
	pcancel()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	tb := res.Tables[0]
	report := fmt.Sprintf("profile --full --rate %d of %d rows (%d partitions): %.1f s, %.0f rows/s achieved; "+
		"probe (single-partition LIMIT 10 reads, 50/s) p50/p99 before %s/%s, during %s/%s (%d and %d reads)",
		rate, tb.RowsSeen, tb.PartitionsSeen, float64(res.Elapsed), res.RateAchieved,
		pct(before, 0.5).Round(10*time.Microsecond), pct(before, 0.99).Round(10*time.Microsecond),
		pct(during, 0.5).Round(10*time.Microsecond), pct(during, 0.99).Round(10*time.Microsecond), len(before), len(during))
	t.Log(report)
	sres, err := Run(rctx, s, Options{Keyspace: ks, Sample: 1000})
	if err != nil {
		t.Fatal(err)
	}
	st := sres.Tables[0]
	t.Logf("profile --sample 1000 (no --rate): %d partitions, %d rows in %.1f s (%.0f rows/s); partitions %.0f (%s)",
		st.PartitionsSeen, st.RowsSeen, float64(sres.Elapsed), sres.RateAchieved, st.Partitions, st.PartitionsSource)
	if tb.RowsSeen != keys*rows || res.RateAchieved > rate*1.05 {
		t.Errorf("read %d rows at %.0f rows/s; want %d at no more than %d", tb.RowsSeen, res.RateAchieved, keys*rows, rate)
	}
}
