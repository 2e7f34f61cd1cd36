package bucket

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// A Tier is how the rows of one key are partitioned for a while: the Scheme that cuts its
// buckets and the write shards each bucket is spread over. A skewed table cannot give
// every key one scheme: an hour bucket over 2 shards holds its busiest key under the
// limits, but its median key, a post a day, then reads back through thousands of empty
// hour partitions; a month bucket serves the median key in a few partitions and breaks
// the limits at the head. Tiers give the few hot keys a fine scheme and the rest a coarse
// one, and a key moves between them at a bucket boundary (see TierHistory).
type Tier struct {
	Name   string // as stored, such as "default" or "hot"; it does not decide the partitions
	Scheme Scheme
	Shards int // write shards per bucket; 0 is taken as 1
}

// shards is the tier's shard count, at least 1.
func (t Tier) shards() int { return max(t.Shards, 1) }

// Same reports whether t and u partition rows the same way: the same scheme and shard
// count, whatever they are called. A key that moves between two such tiers keeps its
// partitions.
func (t Tier) Same(u Tier) bool { return t.Scheme == u.Scheme && t.shards() == u.shards() }

// String describes the tier as `hot (hour x 2 shards)`.
func (t Tier) String() string {
	s := fmt.Sprintf("%s (%s", t.Name, t.Scheme.Width())
	if t.shards() > 1 {
		s += fmt.Sprintf(" x %d shards", t.shards())
	}
	return s + ")"
}

func (t Tier) check() error {
	if !t.Scheme.valid() {
		return fmt.Errorf("bucket: tier %q: %w: the zero Scheme (make one with New)", t.Name, ErrInvalidWidth)
	}
	if t.Shards < 0 {
		return fmt.Errorf("bucket: tier %q: %w %d: must be at least 1", t.Name, ErrInvalidShards, t.Shards)
	}
	return nil
}

// ErrNoCommonBoundary: two schemes whose buckets never start at the same instant within
// the search, so a key cannot move between them at a boundary of both.
var ErrNoCommonBoundary = errors.New("no common bucket boundary")

// maxBoundarySteps bounds the search for a common boundary. Widths that divide one
// another (minute, hour, day, month, year) meet at the first boundary of the coarser; 6h
// and iso-week meet within a week; 7h and month within months. Far more steps than that
// means two widths chosen with nothing in common.
const maxBoundarySteps = 100_000

// PromotionBoundary returns the first instant at or after t at which both from's and to's
// schemes start a bucket: where a key moving from one tier to the other changes scheme.
// A change there leaves every bucket of the key wholly on one scheme, so a bucket's
// partitions hold all of its rows and a reader walking back in time reads each bucket once.
//
// From hour to month buckets (or back) that is the next month; from a month to 6 hours,
// the next month too; from an ISO week to a month, the next month that starts on a Monday.
// It fails, wrapping ErrNoCommonBoundary, when the schemes do not meet within a generous
// search, and wrapping ErrInvalidWidth for the zero Scheme.
func PromotionBoundary(from, to Tier, t time.Time) (time.Time, error) {
	if err := from.check(); err != nil {
		return time.Time{}, err
	}
	if err := to.check(); err != nil {
		return time.Time{}, err
	}
	at := nextBoundary(from.Scheme, t)
	for range maxBoundarySteps {
		b := nextBoundary(to.Scheme, at)
		if b.Equal(at) {
			return at.In(time.UTC), nil
		}
		if at = nextBoundary(from.Scheme, b); at.Equal(b) {
			return at.In(time.UTC), nil
		}
	}
	return time.Time{}, fmt.Errorf("bucket: %w between %s and %s buckets after %s", ErrNoCommonBoundary, from.Scheme.Width(), to.Scheme.Width(), t.UTC().Format(time.RFC3339))
}

// nextBoundary returns the first instant at or after t at which a bucket of s starts.
func nextBoundary(s Scheme, t time.Time) time.Time {
	b := s.For(t)
	if b.Start().Equal(t) {
		return b.Start()
	}
	return b.End()
}

// A TierChange says that from Since on, a key is on Tier: one row of a tier table.
type TierChange struct {
	Since time.Time
	Tier  Tier
}

// A TierHistory is one key's tiers over time: its default tier until its first change, then
// each change's tier until the next. Make one with NewTierHistory; the zero TierHistory has
// no default tier. It is a small value, safe for concurrent use.
type TierHistory struct {
	def     Tier
	changes []TierChange // in effect, oldest first: each Since a boundary of its tier and the one before
}

// NewTierHistory reads a key's changes (in any order, as a tier table holds them) over its
// default tier, the way every writer and reader must read them, so that all of them give
// each instant the same tier however the changes were written:
//
//   - changes are taken oldest first; one whose tier partitions rows as the tier in force
//     before it does (Tier.Same) changes nothing and is dropped;
//   - a change takes effect at the first common bucket boundary of the tier before it and its
//     own (PromotionBoundary) at or after its Since, and after the change before it.
//
// A change written by Promote in the usual way already sits at such a boundary and keeps
// its Since. The rule makes two promoters that raced agree: whatever rows they left, a
// change only ever takes effect at or after its own Since, and no bucket of the key has two
// schemes. It fails for a tier with the zero Scheme, two changes at one instant, or tiers
// that never share a boundary.
func NewTierHistory(def Tier, changes []TierChange) (TierHistory, error) {
	if err := def.check(); err != nil {
		return TierHistory{}, err
	}
	sorted := slices.Clone(changes)
	slices.SortFunc(sorted, func(a, b TierChange) int { return a.Since.Compare(b.Since) })
	h := TierHistory{def: def}
	prev := def
	var last time.Time // when the last change kept takes effect
	for i, c := range sorted {
		if err := c.Tier.check(); err != nil {
			return TierHistory{}, err
		}
		if i > 0 && c.Since.Equal(sorted[i-1].Since) {
			return TierHistory{}, fmt.Errorf("bucket: two tier changes at %s", c.Since.UTC().Format(time.RFC3339Nano))
		}
		if c.Tier.Same(prev) {
			continue
		}
		from := c.Since
		if len(h.changes) > 0 && !from.After(last) {
			from = last.Add(time.Nanosecond)
		}
		at, err := PromotionBoundary(prev, c.Tier, from)
		if err != nil {
			return TierHistory{}, err
		}
		h.changes = append(h.changes, TierChange{Since: at, Tier: c.Tier})
		prev, last = c.Tier, at
	}
	return h, nil
}

// Default returns the tier the key is on before its first change.
func (h TierHistory) Default() Tier { return h.def }

// Changes returns the changes in effect, oldest first, each at the instant it takes effect.
func (h TierHistory) Changes() []TierChange { return slices.Clone(h.changes) }

// At returns the tier that holds the key's rows of instant t: a row written for t goes to
// At(t)'s bucket of t and one of its shards.
func (h TierHistory) At(t time.Time) Tier {
	for i := len(h.changes) - 1; i >= 0; i-- {
		if !t.Before(h.changes[i].Since) {
			return h.changes[i].Tier
		}
	}
	return h.def
}

// Last returns the tier the key ends on: its last change's, or the default.
func (h TierHistory) Last() Tier {
	if len(h.changes) == 0 {
		return h.def
	}
	return h.changes[len(h.changes)-1].Tier
}

// A TierPeriod is a span of time [From, To) over which a key is on one tier. A zero From
// means no start (the key's default tier before its first change, when the range asked
// for had none), a zero To no end.
type TierPeriod struct {
	From, To time.Time
	Tier     Tier
}

// Periods returns the periods that overlap [from, to), newest first, each cut to the
// range; a zero from or to leaves that side open. Every period starts and ends at a
// boundary of its tier's scheme, unless from or to cut it.
func (h TierHistory) Periods(from, to time.Time) []TierPeriod {
	var out []TierPeriod
	for i := len(h.changes); i >= 0; i-- {
		p := TierPeriod{Tier: h.def}
		if i > 0 {
			p.From, p.Tier = h.changes[i-1].Since, h.changes[i-1].Tier
		}
		if i < len(h.changes) {
			p.To = h.changes[i].Since
		}
		if !from.IsZero() && (p.From.IsZero() || p.From.Before(from)) {
			p.From = from
		}
		if !to.IsZero() && (p.To.IsZero() || to.Before(p.To)) {
			p.To = to
		}
		if !p.From.IsZero() && !p.To.IsZero() && !p.From.Before(p.To) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// A TierPartition is one partition a read of a key visits: a bucket and a shard, with the
// tier that cut them.
type TierPartition struct {
	Partition
	Tier Tier
}

// Newest returns the partitions of at most n buckets that overlap [from, to), newest
// first: the partitions a timeline read of the key visits, in order, until it has enough
// rows. Each period is walked with its own tier: its scheme's buckets, every shard of each
// (0 to Shards-1). As with Scheme.Newest, stopping at n buckets is the point, not an
// error. It fails, wrapping ErrInvalidRange, when to is before from or either is zero.
func (h TierHistory) Newest(from, to time.Time, n int) ([]TierPartition, error) {
	if err := h.def.check(); err != nil {
		return nil, err
	}
	if from.IsZero() || to.IsZero() || to.Before(from) {
		return nil, fmt.Errorf("bucket: %w: want from before to, got %s to %s", ErrInvalidRange, from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano))
	}
	var out []TierPartition
	for _, p := range h.Periods(from, to) {
		if n <= 0 {
			break
		}
		buckets, err := p.Tier.Scheme.Newest(p.From, p.To, n)
		if err != nil {
			return nil, err
		}
		n -= len(buckets)
		for _, b := range buckets {
			for s := range p.Tier.shards() {
				out = append(out, TierPartition{Partition: Partition{Bucket: b, Shard: s}, Tier: p.Tier})
			}
		}
	}
	return out, nil
}
