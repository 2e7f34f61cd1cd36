package profile

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/ringtest"
)

// TestRingProfilePartialWithNodeDown profiles a replication-factor-1 table with one of the
// three nodes stopped: the ranges that node owns have no replica, so part of the ring cannot
// be read. The profile must still come back, marked partial, saying how much of the ring it
// could not read and why, with the partitions it did read and an extrapolated count.
func TestRingProfilePartialWithNodeDown(t *testing.T) {
	ringtest.Lock(t)
	s, ks := ringtest.Keyspace(t, 1)
	if err := s.Query(`CREATE TABLE r (k int, c int, v text, PRIMARY KEY (k, c))`).Exec(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := ringtest.AwaitAgreement(ctx, s); err != nil {
		t.Fatal(err)
	}
	// 600 partitions of 3 rows, written 8 at a time (one by one, writing was most of the test).
	keys := make(chan int)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				b := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
				b.SetConsistency(gocql.One)
				for c := 0; c < 3; c++ {
					b.Query(`INSERT INTO r (k, c, v) VALUES (?, ?, 'value')`, k, c)
				}
				if err := s.ExecuteBatch(b); err != nil {
					errs <- fmt.Errorf("partition %d: %w", k, err)
					for range keys { // let the sender finish; the first error fails the test
					}
					return
				}
			}
		}()
	}
	for k := 0; k < 600; k++ {
		keys <- k
	}
	close(keys)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	ringtest.Stop(t, 3)
	ringtest.WaitSeenDown(t, 3, time.Minute)
	start := time.Now()
	res, err := Run(ctx, s, Options{Keyspace: ks, Full: true, Consistency: gocql.One})
	if err != nil {
		t.Fatalf("a node down must give a partial profile, not an error: %v", err)
	}
	tb := res.Tables[0]
	t.Logf("in %s: partial %v, %d partitions in %.1f%% of the ring, %s; problems %q",
		time.Since(start).Round(time.Millisecond), res.Partial, tb.PartitionsSeen, 100*tb.RingFraction, tb.PartitionsSource, res.Problems)
	if !res.Partial || !tb.Partial || len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "could not be read") {
		t.Fatalf("want a partial profile naming what it could not read; got partial %v, problems %q", res.Partial, res.Problems)
	}
	if tb.PartitionsSeen == 0 || tb.PartitionsSeen >= 600 || tb.RingFraction >= 0.999 {
		t.Errorf("read %d of 600 partitions in %.3f of the ring; want some, not all", tb.PartitionsSeen, tb.RingFraction)
	}
	if tb.RowsPerPartition.Max != 3 || tb.RowsPerPartition.Min != 3 {
		t.Errorf("rows per partition %+v, want 3 in every partition read (none cut short)", tb.RowsPerPartition)
	}
	if !strings.HasPrefix(tb.PartitionsSource, "extrapolated") && !strings.HasPrefix(tb.PartitionsSource, "system.size_estimates") {
		t.Errorf("partition count from %q: a partial walk cannot claim every partition", tb.PartitionsSource)
	}
}

// TestRingProfileSizeEstimatesEveryNode reads system.size_estimates from each of the three
// nodes through sessions pinned to one node (what the CLI's --hosts gives profile.PerHost).
func TestRingProfileSizeEstimatesEveryNode(t *testing.T) {
	s, ks := ringtest.Keyspace(t, 1)
	if err := s.Query(`CREATE TABLE e (k int PRIMARY KEY, v text)`).Exec(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := ringtest.AwaitAgreement(ctx, s); err != nil {
		t.Fatal(err)
	}
	opened := map[string]bool{}
	cfg := ringtest.Config(t)
	res, err := Run(ctx, s, Options{Keyspace: ks, Sample: 10, PerHost: func(ctx context.Context, addr string) (*gocql.Session, error) {
		opened[addr] = true
		c := cfg
		c.Hosts = []string{addr}
		return connect.OpenWith(ctx, c, func(cc *gocql.ClusterConfig) (*gocql.ClusterConfig, error) {
			cc.HostFilter = gocql.WhiteListHostFilter(addr)
			cc.DisableInitialHostLookup = true
			return cc, nil
		})
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("opened %v; size_estimates from %d nodes; problems %q", opened, res.Tables[0].SizeEstimatesNodes, res.Problems)
	if len(opened) != ringtest.Nodes(t) || res.Tables[0].SizeEstimatesNodes != ringtest.Nodes(t) {
		t.Errorf("read size_estimates from %d nodes (opened %v), want all %d", res.Tables[0].SizeEstimatesNodes, opened, ringtest.Nodes(t))
	}
}
