package accuracy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/profile"
)

// MillionOptions set the 1M-row run.
type MillionOptions struct {
	Scale  float64       // multiplies MillionRowTable's partitions (1: 1,000,000 rows)
	Rate   float64       // the profile's --rate, rows per second
	Sample int           // the profile's --sample, partitions
	Probe  float64       // probe reads per second (default 50)
	Before time.Duration // how long the probe runs before the profile (default 15 s)
}

// RunMillion loads MillionRowTable into keyspace, then measures read latency with a steady
// probe of single-partition reads: first alone, then while the profile runs at opt.Rate.
func RunMillion(ctx context.Context, s *gocql.Session, keyspace string, node *Node, opt MillionOptions) (*MillionRun, error) {
	if opt.Probe <= 0 {
		opt.Probe = 50
	}
	if opt.Before <= 0 {
		opt.Before = 15 * time.Second
	}
	start := time.Now()
	loaded, err := LoadProfileTables(ctx, s, keyspace, node, []ProfileTable{MillionRowTable}, LoadOptions{Scale: opt.Scale})
	if err != nil {
		return nil, err
	}
	l := loaded[0]
	m := &MillionRun{Rows: l.Total, Partitions: len(l.Rows), LoadTook: time.Since(start), Rate: opt.Rate, Sample: opt.Sample}
	keys, err := probeKeys(ctx, s, l.Table.Name, 200)
	if err != nil {
		return nil, err
	}

	pctx, stop := context.WithTimeout(ctx, opt.Before)
	m.Before = probe(pctx, s, l.Table.Name, keys, opt.Probe)
	stop()
	m.Before.Label = "before"
	if err := coordinatorLatency(ctx, node, &m.Before); err != nil {
		return nil, err
	}

	pctx, stop = context.WithCancel(ctx)
	var during LatencySample
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		during = probe(pctx, s, l.Table.Name, keys, opt.Probe)
	}()
	pstart := time.Now()
	res, err := profile.Run(ctx, s, profile.Options{Keyspace: keyspace, Tables: []string{l.Table.Name}, Sample: opt.Sample, Rate: opt.Rate, Seed: 1})
	m.ProfileTook = time.Since(pstart)
	stop()
	wg.Wait()
	if err != nil {
		return nil, fmt.Errorf("profile %s.%s: %w", keyspace, l.Table.Name, err)
	}
	m.RowsRead, m.RateAchieved = res.Rows, res.RateAchieved
	m.During = during
	m.During.Label = "during profile"
	if err := coordinatorLatency(ctx, node, &m.During); err != nil {
		return nil, err
	}
	return m, nil
}

// probeKeys reads the first n partition keys of the table (device_id).
func probeKeys(ctx context.Context, s *gocql.Session, table string, n int) ([]gocql.UUID, error) {
	iter := s.Query(fmt.Sprintf(`SELECT DISTINCT device_id FROM %s LIMIT %d`, table, n)).WithContext(ctx).Iter()
	var keys []gocql.UUID
	var k gocql.UUID
	for iter.Scan(&k) {
		keys = append(keys, k)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read probe keys of %s: %w", table, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("read probe keys of %s: the table is empty", table)
	}
	return keys, nil
}

// probe reads one random partition's first 10 rows perSecond times a second until ctx ends
// (each read in its own goroutine, up to 32 in flight, so a slow read does not lower the
// offered rate), and summarizes the client-side latencies.
func probe(ctx context.Context, s *gocql.Session, table string, keys []gocql.UUID, perSecond float64) LatencySample {
	rng := rand.New(rand.NewPCG(7, 7))
	tick := time.NewTicker(time.Duration(float64(time.Second) / perSecond))
	defer tick.Stop()
	var (
		mu     sync.Mutex
		lat    []time.Duration
		errs   int
		wg     sync.WaitGroup
		slots  = make(chan struct{}, 32)
		begin  = time.Now()
		q      = fmt.Sprintf(`SELECT * FROM %s WHERE device_id = ? LIMIT 10`, table)
		missed int
	)
	// Reads already sent finish with a context of their own, so ending the probe does not
	// count them as errors.
	rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-tick.C:
		}
		select {
		case slots <- struct{}{}:
		default:
			missed++ // 32 reads in flight: the node is not keeping up
			continue
		}
		key := keys[rng.IntN(len(keys))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			t0 := time.Now()
			iter := s.Query(q, key).WithContext(rctx).Consistency(gocql.One).Iter()
			for iter.Scan(new(gocql.UUID), new(int), new(string), new(float64)) {
			}
			err := iter.Close()
			d := time.Since(t0)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs++
				return
			}
			lat = append(lat, d)
		}()
	}
	out := LatencySample{Span: time.Since(begin)}
	wg.Wait()
	out.Reads, out.Errors = len(lat), errs+missed
	if len(lat) > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		out.ClientP50 = lat[(len(lat)-1)/2]
		out.ClientP99 = lat[min(len(lat)-1, int(float64(len(lat))*0.99))]
		out.ClientMax = lat[len(lat)-1]
	}
	return out
}

// coordinatorLatency fills the coordinator's latency figures from nodetool proxyhistograms
// (node-wide, in microseconds, Cassandra's decaying histograms: mostly the last minutes).
// system_views.coordinator_read_latency would give them per table, but on 5.0.9 its
// "_ms" columns read about a thousand times below what proxyhistograms and the client see
// (p99 0.008 for system.local beside a node-wide 6.9 ms), so they are not used.
func coordinatorLatency(ctx context.Context, node *Node, l *LatencySample) error {
	out, err := node.run(ctx, "nodetool", "proxyhistograms")
	if err != nil {
		return err
	}
	h, err := parseProxyHistograms(string(out))
	if err != nil {
		return err
	}
	l.CoordReadP50, l.CoordReadP99 = h["50%"][0], h["99%"][0]
	l.CoordScanP50, l.CoordScanP99 = h["50%"][2], h["99%"][2]
	return nil
}

// parseProxyHistograms reads the percentile lines of nodetool proxyhistograms: per line
// ("50%", "99%", "Max"), Read, Write, Range, CAS Read, CAS Write and View Write latency in
// microseconds.
func parseProxyHistograms(out string) (map[string][]float64, error) {
	h := map[string][]float64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || (!strings.HasSuffix(f[0], "%") && f[0] != "Min" && f[0] != "Max") {
			continue
		}
		var vals []float64
		for _, x := range f[1:] {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return nil, fmt.Errorf("proxyhistograms: line %q: %w", line, err)
			}
			vals = append(vals, v)
		}
		h[f[0]] = vals
	}
	if len(h["50%"]) < 3 || len(h["99%"]) < 3 {
		return nil, fmt.Errorf("proxyhistograms: no 50%% and 99%% lines with read and range latencies in %q", out)
	}
	return h, nil
}
