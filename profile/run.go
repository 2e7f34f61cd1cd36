package profile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
)

// NotFoundError is a keyspace or table the cluster does not have: bad input, not trouble.
type NotFoundError struct {
	What, Name string // "keyspace" or "table"; the name as asked
	Have       []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("%s %s does not exist", e.What, e.Name)
	if len(e.Have) > 0 {
		msg += " (the keyspace has " + strings.Join(e.Have, ", ") + ")"
	}
	return msg
}

// Murmur3Partitioner's token range: (minToken, maxToken]; minToken itself is never a key's.
const (
	minToken = math.MinInt64
	maxToken = math.MaxInt64
)

// Run profiles the tables of o.Keyspace. A table it cannot read at all, or only partly
// (a timeout, a replica down), is marked partial with the reason and the run goes on to the
// next; the error is for what stops everything: no schema, a missing keyspace or table, a
// refusal (no permission), or ctx ending.
func Run(ctx context.Context, s *gocql.Session, o Options) (*Result, error) {
	if s == nil {
		return nil, errors.New("profile: no session")
	}
	o = o.withDefaults()
	res := &Result{Keyspace: o.Keyspace, Started: o.Now().UTC(), Problems: []string{}, Tables: []*Table{},
		RateSet: o.Rate, Consistency: o.Consistency.String()}
	schema, err := liveschema.Read(ctx, s, o.Keyspace)
	if err != nil {
		return nil, fmt.Errorf("read the schema of keyspace %s: %w", o.Keyspace, err)
	}
	ks := schema.Keyspaces[o.Keyspace]
	if ks == nil {
		return nil, &NotFoundError{What: "keyspace", Name: o.Keyspace}
	}
	var have []string
	for name := range ks.Tables {
		have = append(have, name)
	}
	sort.Strings(have)
	names := o.Tables
	if len(names) == 0 {
		// Every table but cqlsize's own bookkeeping, which --table can still name.
		for _, n := range have {
			if Bookkeeping(ks.Tables[n]) {
				res.Skipped = append(res.Skipped, n)
			} else {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return nil, &NoTableError{Keyspace: o.Keyspace, Skipped: res.Skipped}
		}
		if len(res.Skipped) > 0 {
			res.Problems = append(res.Problems, SkippedNote(o.Keyspace, res.Skipped))
		}
	}
	var tables []*cql.Table
	for _, n := range names {
		t := ks.Tables[n]
		if t == nil {
			t = ks.Tables[strings.ToLower(n)]
		}
		if t == nil {
			return nil, &NotFoundError{What: "table", Name: o.Keyspace + "." + n, Have: have}
		}
		tables = append(tables, t)
	}
	o.typesOf = ks
	var est *estimator
	if o.PerHost != nil {
		actx, cancel := context.WithTimeout(ctx, o.Timeout)
		addrs, err := nodeAddrs(actx, s)
		cancel()
		if err != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("size estimates from the answering node only: %v", err))
		} else if len(addrs) > 1 {
			est = &estimator{open: o.PerHost, addrs: addrs, sessions: map[string]*gocql.Session{}, failed: map[string]error{}}
			defer est.close()
		}
	}
	bucket := newBucket(o.Rate, o.Now)
	start := time.Now()
	for _, t := range tables {
		tp, err := profileTable(ctx, s, o, t, bucket)
		res.Rows += tp.RowsSeen
		if err != nil {
			if ctx.Err() != nil || refused(err) {
				return nil, fmt.Errorf("profile %s.%s: %w", t.Keyspace, t.Name, err)
			}
			tp.Partial, tp.Problem = true, err.Error()
			res.Partial = true
			res.Problems = append(res.Problems, fmt.Sprintf("%s.%s: read %d partitions (%.3g%% of the token ring); %v",
				t.Keyspace, t.Name, tp.PartitionsSeen, 100*tp.RingFraction, err))
		}
		sctx, cancel := context.WithTimeout(ctx, o.Timeout)
		if est != nil {
			n, nodes, problem := est.sum(sctx, t.Keyspace, t.Name)
			tp.SizeEstimates, tp.SizeEstimatesNodes = n, nodes
			if problem != "" {
				res.Problems = append(res.Problems, problem)
			}
		} else if n, err := sizeEstimates(sctx, s, t.Keyspace, t.Name); err == nil {
			tp.SizeEstimates, tp.SizeEstimatesNodes = n, 1
		} else {
			res.Problems = append(res.Problems, err.Error())
		}
		cancel()
		partitionCount(tp)
		meanRows(tp)
		tp.Disk, tp.diskSample = predictDisk(tp, tp.diskSample), nil
		project(tp, o.Now())
		res.Tables = append(res.Tables, tp)
	}
	el := time.Since(start)
	res.Elapsed = Seconds(el.Seconds())
	if el > 0 {
		res.RateAchieved = float64(res.Rows) / el.Seconds()
	}
	return res, nil
}

// refused reports an answer that reading again will not change: no permission, an invalid
// request. Such an error stops the run instead of leaving a partial profile.
func refused(err error) bool {
	var req gocql.RequestError
	if !errors.As(err, &req) {
		return false
	}
	switch req.Code() {
	case gocql.ErrCodeSyntax, gocql.ErrCodeInvalid, gocql.ErrCodeUnauthorized, gocql.ErrCodeCredentials, gocql.ErrCodeConfig:
		return true
	}
	return false
}

func (o Options) withDefaults() Options {
	if o.Sample <= 0 {
		o.Sample = DefaultSample
	}
	if o.Consistency == 0 {
		o.Consistency = gocql.LocalOne
	}
	if o.PageSize <= 0 {
		o.PageSize = 500
	}
	if o.Rate > 0 && float64(o.PageSize) > o.Rate {
		// A page larger than a second of the rate would read in bursts the node feels.
		o.PageSize = max(1, int(o.Rate))
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	return o
}

// slice is one stretch of the token ring, (lo, hi], walked from its start.
type slice struct{ lo, hi int64 }

// slices cuts the ring at k random tokens. Walking each from its start until it has given
// its share of partitions samples the ring at k places; the slices never overlap, so no
// partition is read twice.
func slices(k int, seed uint64) []slice {
	if k <= 1 {
		return []slice{{minToken, maxToken}}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x5DEECE66D))
	cuts := make([]int64, k)
	for i := range cuts {
		cuts[i] = int64(rng.Uint64())
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
	out := make([]slice, 0, k+1)
	for i := 0; i+1 < k; i++ {
		if cuts[i] < cuts[i+1] {
			out = append(out, slice{cuts[i], cuts[i+1]})
		}
	}
	// The last cut wraps around: (last, max] then (min, first].
	out = append(out, slice{cuts[k-1], maxToken})
	if cuts[0] > minToken {
		out = append(out, slice{minToken, cuts[0]})
	}
	return out
}

// fullSlices is how many equal slices a --full scan walks.
const fullSlices = 64

// maxFailedTime is how long failing slices may take before a table is given up. A range
// with no live replica fails at once (Unavailable) and costs nothing, so the walk goes on
// through all of them; a slow replica costs a read timeout a slice, and after two minutes of
// those the rest likely time out too.
const maxFailedTime = 2 * time.Minute

// evenSlices cuts the ring into k equal slices.
func evenSlices(k int) []slice {
	step := math.Exp2(64) / float64(k)
	out := make([]slice, 0, k)
	lo := int64(minToken)
	for i := 1; i <= k; i++ {
		hi := int64(maxToken)
		if i < k {
			hi = int64(float64(minToken) + step*float64(i))
		}
		out = append(out, slice{lo, hi})
		lo = hi
	}
	return out
}

// width is the fraction of the ring in (lo, hi].
func width(lo, hi int64) float64 {
	return (float64(hi) - float64(lo)) / math.Exp2(64)
}

// bucket is a token bucket over rows read: take blocks until n rows are allowed. Its burst
// is one second of the rate, so the rate holds over any second-long window.
type bucket struct {
	rate   float64
	tokens float64
	last   time.Time
}

func newBucket(rate float64, _ func() time.Time) *bucket {
	return &bucket{rate: rate, tokens: math.Min(rate, 1), last: time.Now()}
}

func (b *bucket) take(ctx context.Context, n float64) error {
	if b == nil || b.rate <= 0 {
		return nil
	}
	now := time.Now()
	b.tokens = math.Min(b.rate, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	b.tokens -= n
	if b.tokens >= 0 {
		return nil
	}
	wait := time.Duration(-b.tokens / b.rate * float64(time.Second))
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
