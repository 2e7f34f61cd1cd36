package denorm

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/sizing/readcost"
	"github.com/cqlsize/cqlsize/workload"
)

// tableReads counts the statements a session sends to one table (each attempt gocql
// observes), apart from the code under test: the truth a timeline's Visited is checked
// against.
type tableReads struct {
	table string
	n     atomic.Int64
}

func (c *tableReads) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	if strings.Contains(q.Statement, " FROM "+c.table+" ") {
		c.n.Add(1)
	}
}

// The read-cost arithmetic (docs/reads.md) checked on the node: a LIMIT L newest-first
// read of a key whose rate is r, on a table of buckets w wide and S shards, visits
// S × ceil(L / (r·w)) partitions, at most S × retention / w. The table: 300 keys whose
// rates follow Zipf 1.1 (610 rows a day in all), day buckets, 2 write shards, 60 days
// kept; each key's rows evenly spaced at its own rate, with explicit times, so the load
// takes seconds, not the 60 days it models. The reads go through Timeline, and the
// partitions read are the statements the session sent, counted by a QueryObserver.
func TestReadCostOnNode(t *testing.T) {
	const (
		keys      = 300
		skew      = 1.1
		perDay    = 610.0 // rows a day into the whole table
		shards    = 2
		limit     = 20
		retention = 60 * 24 * time.Hour
	)
	day := 24 * time.Hour
	s0, _, ks := postsKeyspace(t)
	cassandratest.DDL(t, s0, ks, "CREATE TABLE events (k int, day text, shard int, id timeuuid, PRIMARY KEY ((k, day, shard), id)) WITH CLUSTERING ORDER BY (id DESC)")
	days, err := bucket.New(bucket.Day())
	if err != nil {
		t.Fatal(err)
	}
	// The expected figures, from the arithmetic alone: H(N, s), each key's share and rate.
	h := 0.0
	for i := 1; i <= keys; i++ {
		h += math.Pow(float64(i), -skew)
	}
	ratePerDay := func(rank int) float64 { return perDay * math.Pow(float64(rank), -skew) / h }

	// Load: key k's rows at end − (i + ½) / r, back to the retention, newest day first.
	end := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC) // a day boundary: the newest day is full
	type row struct {
		k     int
		at    time.Time
		id    gocql.UUID
		shard int
	}
	rows := make(chan row, 1024)
	var loaded atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rows {
				if err := s0.Query("INSERT INTO events (k, day, shard, id) VALUES (?, ?, ?, ?)", r.k, days.For(r.at).String(), r.shard, r.id).Exec(); err != nil {
					select {
					case errs <- err:
					default:
					}
					continue
				}
				loaded.Add(1)
			}
		}()
	}
	sent := 0
	for k := 1; k <= keys; k++ {
		gap := time.Duration(float64(day) / ratePerDay(k))
		for at := end.Add(-gap / 2); at.After(end.Add(-retention)); at = at.Add(-gap) {
			id := gocql.UUID(bucket.MinTimeUUID(at))
			shard, err := bucket.Shard(id[:], shards)
			if err != nil {
				t.Fatal(err)
			}
			rows <- row{k, at, id, shard}
			sent++
		}
	}
	close(rows)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil || loaded.Load() != int64(sent) {
		t.Fatalf("loaded %d of %d rows: %v", loaded.Load(), sent, err)
	}
	t.Logf("loaded %d rows: %d keys, Zipf %.1f, H = %.3f, %d day buckets × %d shards", sent, keys, skew, h, int(retention/day), shards)

	counter := &tableReads{table: "events"}
	s := cassandratest.ObservedSession(t, ks, counter)

	// Read-ahead adds at most Parallel − 1 buckets a shard where a walk ends.
	slackOf := func(parallel int) float64 {
		if parallel == 1 {
			return 0
		}
		return float64(shards * (max(4, shards) - 1))
	}
	typical := keys / 2
	for _, parallel := range []int{1, 0} {
		tl := &Timeline{Session: s, Query: "SELECT id FROM events WHERE k = ? AND day = ? AND shard = ?", Scheme: days,
			Shards: shards, Retention: retention, Parallel: parallel,
			KeyRate: workload.Rate{Count: ratePerDay(typical), Per: day}}
		for _, tc := range []struct {
			name string
			rank int
		}{{"busiest", 1}, {"p99", keys / 100}, {"typical", typical}, {"coldest", keys}} {
			rate := ratePerDay(tc.rank) // rows a day: w is one day
			buckets := math.Min(math.Ceil(limit/rate), math.Ceil(float64(retention)/float64(day)))
			want := shards * buckets
			// The read-cost model (sizing/readcost), which design, check and estimate report.
			model := readcost.Pattern{Keys: keys, Rate: perDay / day.Seconds(), Skew: workload.Skew{Kind: workload.Zipf, S: skew},
				Retention: retention, Bucket: day, Shards: shards, Limit: limit}.At(float64(tc.rank)).Partitions
			before := counter.n.Load()
			got, visited, pages := 0, 0, 0
			req := PageRequest{Key: []any{tc.rank}, Newest: end.Add(-time.Second), Limit: limit}
			for {
				p, err := tl.Page(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				got, visited, pages = got+len(p.Rows), visited+p.Visited, pages+1
				if req.Token = p.Next; req.Token == "" || got >= limit {
					break
				}
				req.Limit = limit - got
			}
			sentReads := int(counter.n.Load() - before)
			wantRows := min(limit, int(math.Floor(rate*float64(retention)/float64(day)+0.5)))
			off := (float64(sentReads) - want) / want
			t.Logf("Parallel %d, %s key (rank %d, %.3g rows a day): %d rows in %d pages, %d partitions read (Visited %d); the arithmetic: %d × %.0f = %.0f (%+.1f%%); readcost: %.0f",
				parallel, tc.name, tc.rank, rate, got, pages, sentReads, visited, shards, buckets, want, 100*off, model)
			if math.Abs(float64(sentReads)-model) > 0.1*model+slackOf(parallel) {
				t.Errorf("Parallel %d, %s key: %d partitions read, the read-cost model says %.0f", parallel, tc.name, sentReads, model)
			}
			if sentReads != visited {
				t.Errorf("%s: the session sent %d reads, the pages counted %d", tc.name, sentReads, visited)
			}
			if got < wantRows-1 || got > limit {
				t.Errorf("%s: %d rows, want %d", tc.name, got, wantRows)
			}
			// The walk itself (no read-ahead) within 10% of the arithmetic; read-ahead
			// adds at most Parallel − 1 buckets a shard at the walk's end.
			slack := 0.1*want + slackOf(parallel)
			if float64(sentReads) < 0.9*want || float64(sentReads) > want+slack {
				t.Errorf("Parallel %d, %s key: %d partitions read, the arithmetic says %.0f (allowed %.0f to %.0f)", parallel, tc.name, sentReads, want, 0.9*want, want+slack)
			}
		}
	}
}
