package profile

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/internal/tokenscan"
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
	minToken = tokenscan.MinToken
	maxToken = tokenscan.MaxToken
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
		RateSet: o.Rate, Consistency: o.Consistency.String(), LocalDC: o.LocalDC}
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
	var est *tokenscan.Estimator
	if o.PerHost != nil {
		actx, cancel := context.WithTimeout(ctx, o.Timeout)
		addrs, err := tokenscan.NodeAddrs(actx, s)
		cancel()
		if err != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("size estimates from the answering node only: %v", err))
		} else if len(addrs) > 1 {
			est = tokenscan.NewEstimator(o.PerHost, addrs)
			defer est.Close()
		}
	}
	bucket := tokenscan.NewLimiter(o.Rate)
	start := time.Now()
	for _, t := range tables {
		tp, err := profileTable(ctx, s, o, t, bucket)
		res.Rows += tp.RowsSeen
		if err != nil {
			if ctx.Err() != nil || tokenscan.Refused(err) {
				return nil, fmt.Errorf("profile %s.%s: %w", t.Keyspace, t.Name, err)
			}
			tp.Partial, tp.Problem = true, err.Error()
			res.Partial = true
			res.Problems = append(res.Problems, fmt.Sprintf("%s.%s: read %d partitions (%.3g%% of the token ring); %v",
				t.Keyspace, t.Name, tp.PartitionsSeen, 100*tp.RingFraction, err))
		}
		sctx, cancel := context.WithTimeout(ctx, o.Timeout)
		if est != nil {
			n, nodes, problem := est.Sum(sctx, t.Keyspace, t.Name)
			tp.SizeEstimates, tp.SizeEstimatesNodes = n.Partitions, nodes
			if problem != "" {
				res.Problems = append(res.Problems, problem)
			}
		} else if n, err := tokenscan.SizeEstimates(sctx, s, t.Keyspace, t.Name); err == nil {
			tp.SizeEstimates, tp.SizeEstimatesNodes = n.Partitions, 1
		} else {
			res.Problems = append(res.Problems, err.Error())
		}
		cancel()
		partitionCount(tp)
		if !keyFit(tp) {
			meanRows(tp)
		}
		tombstonesPerPartition(tp)
		tp.Tombstones.ExpiredRows = expiredRows(tp)
		tp.Tombstones.ExpiredTTL = expiredTTL(tp, o.Now())
		tp.keySample = nil
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
	rs := tokenscan.Random(k, seed)
	out := make([]slice, len(rs))
	for i, r := range rs {
		out[i] = slice{r.Lo, r.Hi}
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
	rs := tokenscan.Even(k)
	out := make([]slice, len(rs))
	for i, r := range rs {
		out[i] = slice{r.Lo, r.Hi}
	}
	return out
}

// width is the fraction of the ring in (lo, hi].
func width(lo, hi int64) float64 { return tokenscan.Width(lo, hi) }
