// Package tokenscan holds what every full read of a table across the token ring needs:
// the ring cut into ranges, a shared rate limit on rows read, the table's size from
// system.size_estimates (summed over every node through sessions pinned to one node), and
// which errors a second read will not cure. `cqlsize profile` and evolve/backfill both walk
// tables this way.
package tokenscan

import (
	"context"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/retry"
)

// The Murmur3Partitioner's token range: (MinToken, MaxToken]; MinToken itself is never a key's.
const (
	MinToken = math.MinInt64
	MaxToken = math.MaxInt64
)

// Range is the stretch of the ring (Lo, Hi]: a read of it selects
// token(pk) > Lo AND token(pk) <= Hi.
type Range struct{ Lo, Hi int64 }

// Width is the fraction of the ring the range covers.
func (r Range) Width() float64 { return Width(r.Lo, r.Hi) }

// Width is the fraction of the ring in (lo, hi].
func Width(lo, hi int64) float64 {
	return (float64(hi) - float64(lo)) / math.Exp2(64)
}

// Even cuts the ring into k ranges of equal width (k at least 1), in token order. The cuts
// depend on k only, so every process that asks for the same k gets the same ranges.
func Even(k int) []Range {
	k = max(k, 1)
	out := make([]Range, 0, k)
	span := new(big.Int).Lsh(big.NewInt(1), 64) // MaxToken - MinToken + 1
	lo := int64(MinToken)
	for i := 1; i <= k; i++ {
		hi := int64(MaxToken)
		if i < k {
			off := new(big.Int).Mul(span, big.NewInt(int64(i)))
			off.Quo(off, big.NewInt(int64(k)))
			hi = new(big.Int).Add(big.NewInt(MinToken), off).Int64()
		}
		out = append(out, Range{lo, hi})
		lo = hi
	}
	return out
}

// Random cuts the ring at k random tokens drawn from seed and returns the ranges between
// the cuts, covering the ring once: from the first cut on, the last one wrapping around
// the end of the ring. Walking each from its start samples the ring at k places without
// reading a row twice.
func Random(k int, seed uint64) []Range {
	if k <= 1 {
		return []Range{{MinToken, MaxToken}}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x5DEECE66D))
	cuts := make([]int64, k)
	for i := range cuts {
		cuts[i] = int64(rng.Uint64())
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
	out := make([]Range, 0, k+1)
	for i := 0; i+1 < k; i++ {
		if cuts[i] < cuts[i+1] {
			out = append(out, Range{cuts[i], cuts[i+1]})
		}
	}
	out = append(out, Range{cuts[k-1], MaxToken})
	if cuts[0] > MinToken {
		out = append(out, Range{MinToken, cuts[0]})
	}
	return out
}

// Halves splits r in two at its middle token; a range of one token cannot be split (ok false).
func (r Range) Halves() (Range, Range, bool) {
	if uint64(r.Hi)-uint64(r.Lo) < 2 {
		return r, Range{}, false
	}
	mid := r.Lo + int64((uint64(r.Hi)-uint64(r.Lo))/2)
	return Range{r.Lo, mid}, Range{mid, r.Hi}, true
}

// Limiter is a token bucket over rows read, shared by every reader of a run: Take blocks
// until n rows are allowed. Its burst is one second of the rate, so the rate holds over any
// second-long window. A nil Limiter, or a rate of 0, does not limit.
type Limiter struct {
	mu     sync.Mutex
	rate   float64
	tokens float64
	last   time.Time
}

// NewLimiter allows rate rows a second (0: no limit).
func NewLimiter(rate float64) *Limiter {
	return &Limiter{rate: rate, tokens: math.Min(rate, 1), last: time.Now()}
}

// Take waits until n more rows may be read, or ctx ends.
func (b *Limiter) Take(ctx context.Context, n float64) error {
	if b == nil || b.rate <= 0 {
		return nil
	}
	b.mu.Lock()
	now := time.Now()
	b.tokens = math.Min(b.rate, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	b.tokens -= n
	wait := time.Duration(0)
	if b.tokens < 0 {
		wait = time.Duration(-b.tokens / b.rate * float64(time.Second))
	}
	b.mu.Unlock()
	if wait == 0 {
		return nil
	}
	return retry.Sleep(ctx, wait)
}

// Refused reports an answer that reading again will not change: no permission, an invalid
// request. Such an error stops a walk instead of leaving it partial.
func Refused(err error) bool {
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
