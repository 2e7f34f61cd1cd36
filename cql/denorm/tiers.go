package denorm

import (
	"context"
	"crypto/hmac"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
	"github.com/cqlsize/cqlsize/internal/retry"
)

// Cache lifetimes of a key's tiers in a writer or reader (Tiers.CacheFor).
const (
	DefaultTierCache = 30 * time.Second
	// MaxTierCache is the longest a Tiers may reuse a key's tiers under the default lead
	// (TierLead): a change takes effect at least TierLead after it is written, so a writer
	// whose copy is at most this old, with a clock at most a minute ahead, never writes a
	// row of the new period by the old tier.
	MaxTierCache = TierLead / 2
)

// Tiers reads the tiers of one query table's keys (its TierPlan's tier table) for writers
// and readers, and caches each key's for CacheFor. A key's tier changes only at a bucket
// boundary that lies at least the plan's lead (TierLead) after the change was written
// (Promote), and CacheFor is at most half that lead: a copy of a key's tiers read before a
// change is only used for rows of instants before the change takes effect, for which it
// is still right. So a cached tier costs nothing in correctness, and a hot key's writers
// read its tier row once per CacheFor, not once per write. A Tiers is safe for concurrent
// use.
type Tiers struct {
	plan    *TierPlan
	session *gocql.Session
	opts    TierOptions
	sel     string
	mu      sync.Mutex
	cache   map[string]cachedTiers
}

// TierOptions configure a Tiers.
type TierOptions struct {
	// CacheFor is how long a key's tiers are reused (default DefaultTierCache). It must be
	// positive and at most half of the plan's lead (MaxTierCache by default).
	CacheFor time.Duration
	// Consistency of the tier reads (default LOCAL_QUORUM: Promote writes with a Paxos
	// commit at QUORUM, which such a read sees).
	Consistency gocql.Consistency
	// Timeout of a tier read a write makes on a cache miss (default 10 s): a mapping's row
	// function has no context of its own.
	Timeout time.Duration
	// MaxKeys bounds the keys cached (default 100,000); past it, expired entries go first,
	// then every entry.
	MaxKeys int
	// Now is the clock the cache ages by (default time.Now).
	Now func() time.Time
}

type cachedTiers struct {
	hist bucket.TierHistory
	at   time.Time
}

// NewTiers returns the Tiers of plan, reading through session.
func NewTiers(session *gocql.Session, plan *TierPlan, opts TierOptions) (*Tiers, error) {
	if plan == nil {
		return nil, errors.New("tiers: no tier plan")
	}
	if session == nil {
		return nil, fmt.Errorf("tiers %s: no session", plan.Table)
	}
	if opts.CacheFor == 0 {
		opts.CacheFor = min(DefaultTierCache, plan.lead()/2)
	}
	if opts.CacheFor < 0 || opts.CacheFor > plan.lead()/2 {
		return nil, fmt.Errorf("tiers %s: CacheFor %s: want more than 0 and at most half the lead %s, or a writer could use a tier after it changed", plan.Table, opts.CacheFor, plan.lead())
	}
	if opts.Consistency == gocql.Any {
		opts.Consistency = gocql.LocalQuorum
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxKeys <= 0 {
		opts.MaxKeys = 100_000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Tiers{plan: plan, session: session, opts: opts, sel: tierSelect(plan), cache: map[string]cachedTiers{}}, nil
}

// Plan returns the tier plan the Tiers reads.
func (t *Tiers) Plan() *TierPlan { return t.plan }

// tierSelect reads one key's tier rows.
func tierSelect(plan *TierPlan) string {
	where := make([]string, len(plan.KeyColumns))
	for i, k := range plan.KeyColumns {
		where[i] = cql.QuoteName(k) + " = ?"
	}
	return "SELECT since, tier, bucket, shards FROM " + quoteQualified(plan.Table) + " WHERE " + strings.Join(where, " AND ")
}

// quoteQualified quotes keyspace.table as CQL needs it.
func quoteQualified(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return cql.QuoteName(name[:i]) + "." + cql.QuoteName(name[i+1:])
	}
	return cql.QuoteName(name)
}

// cacheKey identifies a key's values, with their types, as the timeline's fingerprint does.
func cacheKey(key []any) string {
	var b strings.Builder
	for _, k := range key {
		fmt.Fprintf(&b, "%T=%v|", k, k)
	}
	return b.String()
}

// History returns the key's tiers (its values in KeyColumns order), from the cache when
// read within CacheFor.
func (t *Tiers) History(ctx context.Context, key []any) (bucket.TierHistory, error) {
	ck, now := cacheKey(key), t.opts.Now()
	t.mu.Lock()
	c, ok := t.cache[ck]
	t.mu.Unlock()
	if ok && now.Sub(c.at) < t.opts.CacheFor && !now.Before(c.at) {
		return c.hist, nil
	}
	h, err := t.Fresh(ctx, key)
	if err != nil {
		return bucket.TierHistory{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.cache) >= t.opts.MaxKeys {
		for k, e := range t.cache {
			if now.Sub(e.at) >= t.opts.CacheFor {
				delete(t.cache, k)
			}
		}
		if len(t.cache) >= t.opts.MaxKeys {
			clear(t.cache)
		}
	}
	t.cache[ck] = cachedTiers{hist: h, at: now}
	return h, nil
}

// Fresh reads the key's tiers from the tier table, bypassing the cache.
func (t *Tiers) Fresh(ctx context.Context, key []any) (bucket.TierHistory, error) {
	changes, err := readTierChanges(ctx, t.session, t.plan, t.sel, key, t.opts.Consistency)
	if err != nil {
		return bucket.TierHistory{}, err
	}
	h, err := bucket.NewTierHistory(t.plan.Default(), changes)
	if err != nil {
		return bucket.TierHistory{}, fmt.Errorf("tiers of %v in %s: %w", key, t.plan.Table, err)
	}
	return h, nil
}

// readTierChanges reads a key's rows of the tier table as written.
func readTierChanges(ctx context.Context, s *gocql.Session, plan *TierPlan, stmt string, key []any, cons gocql.Consistency) ([]bucket.TierChange, error) {
	if len(key) != len(plan.KeyColumns) {
		return nil, fmt.Errorf("tiers %s: %d key values, want %d (%s)", plan.Table, len(key), len(plan.KeyColumns), strings.Join(plan.KeyColumns, ", "))
	}
	var out []bucket.TierChange
	err := ResendCancelled(ctx, func() error {
		out = out[:0]
		iter := s.Query(stmt, key...).WithContext(ctx).Consistency(cons).Idempotent(true).Iter()
		var since time.Time
		var name, width string
		var shards *int
		for iter.Scan(&since, &name, &width, &shards) {
			w, err := bucket.ParseWidth(width)
			if err != nil {
				_ = iter.Close()
				return fmt.Errorf("row since %s: %w", since.UTC().Format(time.RFC3339), err)
			}
			sc, _ := bucket.New(w) // ParseWidth returns only valid widths
			n := 1
			if shards != nil {
				n = *shards
			}
			if n < 1 || n > MaxShards {
				_ = iter.Close()
				return fmt.Errorf("row since %s: shards %d: want 1 to %d", since.UTC().Format(time.RFC3339), n, MaxShards)
			}
			out = append(out, bucket.TierChange{Since: since.UTC(), Tier: bucket.Tier{Name: name, Scheme: sc, Shards: n}})
			shards = nil
		}
		return iter.Close()
	})
	if err != nil {
		return nil, fmt.Errorf("read the tiers of %v from %s: %w", key, plan.Table, err)
	}
	return out, nil
}

// tieredMapping writes the rows of p's table by each key's tier: the bucket of the row's
// time in the tier's scheme, and its shard among the tier's shards. Of tiers, the one for
// plan's tier table is used; without it every write fails.
func tieredMapping(p *derive.Program, plan *TierPlan, tiers []*Tiers) Mapping[Values] {
	var tr *Tiers
	for _, t := range tiers {
		if t != nil && t.plan.Table == plan.Table {
			tr = t
		}
	}
	var bucketCol, shardCol derive.Target
	for _, c := range p.Columns() {
		switch c.Column {
		case plan.BucketColumn:
			bucketCol = c
		case plan.ShardColumn:
			shardCol = c
		}
	}
	return Map(plan.Query, func(e *Values, out *Rows) error {
		if tr == nil {
			return fmt.Errorf("%s is on tiers (%s): pass its *Tiers (NewTiers) to Mappings", plan.Query, plan.Table)
		}
		at, ok, err := derive.Instant((*e)[plan.TimeColumn])
		if err != nil {
			return fmt.Errorf("column %s: %w", plan.TimeColumn, err)
		}
		return p.Expand(*e, func(r map[string]any, _ []int) error {
			if ok {
				key := make([]any, len(plan.KeyColumns))
				for i, k := range plan.KeyColumns {
					if key[i] = r[k]; key[i] == nil {
						return &MissingKeyError{Table: plan.Query, Column: k}
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), tr.opts.Timeout)
				h, err := tr.History(ctx, key)
				cancel()
				if err != nil {
					return err
				}
				tier := h.At(at)
				r[plan.BucketColumn] = bucketCol.BucketValue(tier.Scheme.For(at))
				if plan.ShardColumn != "" {
					if r[plan.ShardColumn], err = shardCol.ShardOf((*e)[plan.ShardSource], max(tier.Shards, 1)); err != nil {
						return err
					}
				}
			}
			row := out.Add()
			for c, v := range r {
				row.Set(c, v)
			}
			return nil
		})
	})
}

// Promotion is what Promote did for one key.
type Promotion struct {
	Key  []any
	From bucket.Tier // the tier the key was on, or moving to, before
	To   bucket.Tier
	// Since is when rows start going to To: a bucket boundary of both tiers, at least the
	// plan's lead after now. Zero when the key was on To with no change (its default).
	Since time.Time
	// Applied is true when this call's insert was applied. It is false when the key was
	// already on To or moving to it, or another promoter wrote the same change first; and
	// when the answer to this call's own insert was lost (a timeout) and the attempt after it
	// found the change in place: promoters of one change write identical rows, so which of
	// them wrote it is then unknown. Two calls never both see true for one change.
	Applied bool
}

// TierConflictError: another promoter changed the key to a different tier at the same
// instant first.
type TierConflictError struct {
	Key      []any
	Since    time.Time
	Existing string // the tier the other promoter wrote
	Wanted   string
}

func (e *TierConflictError) Error() string {
	return fmt.Sprintf("tiers of %v: another promoter moved the key to %s at %s first (wanted %s): read its tiers again and decide",
		e.Key, e.Existing, e.Since.UTC().Format(time.RFC3339), e.Wanted)
}

// Promote moves a key to the named tier of plan (DefaultTier to demote it): it writes the
// row that says so to the tier table, with since the first bucket boundary of both the
// key's current tier and the new one that lies at least the plan's lead (TierLead) after
// now. Until then the key's rows keep their scheme; from then on they take the new one,
// so every bucket of the key has exactly one scheme, and no writer still holding the old
// tiers in its cache (at most half the lead) writes a row of the new period.
//
// The row is written with a lightweight transaction (INSERT ... IF NOT EXISTS, at SERIAL),
// after reading the key's tiers at QUORUM: two promoters that computed the same instant
// agree on one row; if they chose different tiers there, the second gets a
// *TierConflictError. Two promoters that computed different instants both write, and
// bucket.NewTierHistory reads their rows the same way everywhere (a change to the tier
// already in force is no change). A key already on the tier, or moving to it, is left as
// it is (Applied false).
func Promote(ctx context.Context, session *gocql.Session, plan *TierPlan, key []any, tier string, now time.Time) (*Promotion, error) {
	if plan == nil || session == nil {
		return nil, errors.New("promote: no tier plan or no session")
	}
	to, ok := plan.Tier(tier)
	if !ok {
		return nil, fmt.Errorf("promote: %s has no tier %q (want one of %s)", plan.Query, tier, strings.Join(plan.Names(), ", "))
	}
	if now.IsZero() {
		return nil, errors.New("promote: no time given")
	}
	var p *Promotion
	// Promoters of one key contend for its partition's Paxos state: a coordinator that
	// loses the round too long answers with a timeout, and the whole promotion, reading the
	// key's tiers again, is worth another try. A change applied by an attempt whose answer
	// was lost is then found in place.
	_, err := retry.Do(ctx, retry.Policy{Backoff: retry.Backoff{Min: 100 * time.Millisecond, Max: 2 * time.Second, Jitter: retry.UpperHalf}, Attempts: 8,
		Retry: func(err error) bool { return connect.Transient(err) || connect.CoordinatorTimeout(err) }},
		func() error {
			var err error
			p, err = promoteOnce(ctx, session, plan, key, tier, to, now)
			return err
		})
	return p, err
}

// promoteOnce is one attempt of Promote.
func promoteOnce(ctx context.Context, session *gocql.Session, plan *TierPlan, key []any, tier string, to bucket.Tier, now time.Time) (*Promotion, error) {
	// A QUORUM read sees every change whose Paxos round committed. One still in flight is
	// either found by the insert below (same instant) or lands at another instant, which
	// NewTierHistory reads the same way everywhere.
	changes, err := readTierChanges(ctx, session, plan, tierSelect(plan), key, gocql.Quorum)
	if err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	h, err := bucket.NewTierHistory(plan.Default(), changes)
	if err != nil {
		return nil, fmt.Errorf("promote %v: %w", key, err)
	}
	p := &Promotion{Key: key, From: h.Last(), To: to}
	if h.Last().Same(to) {
		if cs := h.Changes(); len(cs) > 0 {
			p.Since = cs[len(cs)-1].Since
		}
		return p, nil
	}
	from := now.Add(plan.lead())
	if cs := h.Changes(); len(cs) > 0 && !from.After(cs[len(cs)-1].Since) {
		from = cs[len(cs)-1].Since.Add(time.Second) // after a change still to come
	}
	since, err := bucket.PromotionBoundary(h.Last(), to, from)
	if err != nil {
		return nil, fmt.Errorf("promote %v: %w", key, err)
	}
	cols := append(quoteAll(plan.KeyColumns), "since", "tier", "bucket", "shards")
	stmt := "INSERT INTO " + quoteQualified(plan.Table) + " (" + strings.Join(cols, ", ") + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ") IF NOT EXISTS"
	args := append(append([]any(nil), key...), since, tier, to.Scheme.Width().String(), max(to.Shards, 1))
	existing := map[string]any{}
	var applied bool
	// Sending the same IF NOT EXISTS again after a timeout is safe: it finds its own row.
	err = ResendCancelled(ctx, func() error {
		clear(existing)
		var err error
		applied, err = session.Query(stmt, args...).WithContext(ctx).SerialConsistency(gocql.Serial).
			Consistency(gocql.Quorum).Idempotent(true).MapScanCAS(existing)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("promote %v in %s: %w", key, plan.Table, err)
	}
	p.Since = since
	if applied {
		p.Applied = true
		return p, nil
	}
	// Someone wrote a row at this instant first: the same change is agreement.
	name, _ := existing["tier"].(string)
	width, _ := existing["bucket"].(string)
	shards, _ := existing["shards"].(int)
	w, werr := bucket.ParseWidth(width)
	if werr == nil && w == to.Scheme.Width() && max(shards, 1) == max(to.Shards, 1) {
		return p, nil
	}
	return nil, &TierConflictError{Key: key, Since: since, Existing: name, Wanted: tier}
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = cql.QuoteName(n)
	}
	return out
}

// TieredTimeline reads a key's timeline on a table whose keys are on tiers: newest first,
// each period of the key's tier history with the scheme and shards it had then (a
// Timeline per period), so a key promoted from month buckets to hour buckets over 4 shards
// last Tuesday reads its hour partitions back to Tuesday and its month partitions before.
// Every row is returned once: a period starts and ends at bucket boundaries of its own
// scheme, so no bucket is read in two periods.
//
// Timeline is the template of every period's reads: Session, Query (which binds the key,
// the bucket and, when the table has a shard column, the shard), BucketValue, Parallel,
// Consistency, SpeculativeReadAfter and Secret are used as they are; Scheme and Shards
// come from each period's tier. The key's default tier before its first change is read
// back at most MaxBuckets buckets, as a Timeline is; a period that starts at a tier change
// is read to its start, since its rows are the key's and nothing older is in its scheme.
//
// Page tokens carry the period and the period's own Timeline token, signed as a
// Timeline's are. A TieredTimeline is safe for concurrent use.
type TieredTimeline struct {
	Timeline *Timeline
	Tiers    *Tiers
}

// tieredTokenVersion starts a tiered token, so it is never taken for a Timeline's.
const tieredTokenVersion = 0x74 // 't'

// Page reads one page of the key's timeline across its tiers.
func (tt *TieredTimeline) Page(ctx context.Context, req PageRequest) (*Page, error) {
	if tt.Timeline == nil || tt.Tiers == nil {
		return nil, errors.New("tiered timeline: no Timeline or no Tiers")
	}
	if req.Limit <= 0 || req.Limit > MaxPageRows {
		return nil, fmt.Errorf("timeline: limit %d: want 1 to %d rows a page", req.Limit, MaxPageRows)
	}
	h, err := tt.Tiers.History(ctx, req.Key)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	periods := h.Periods(time.Time{}, time.Time{}) // newest first; the last one has no start
	fp := tt.fingerprint(req.Key)
	i, inner, oldest, newest := 0, "", req.Oldest, req.Newest
	if req.Token != "" {
		var from time.Time
		if from, inner, oldest, err = tt.decodeToken(req.Token, fp); err != nil {
			return nil, err
		}
		for i = 0; i < len(periods) && !periods[i].From.Equal(from); i++ {
		}
		if i == len(periods) {
			return nil, fmt.Errorf("timeline: %w: its tier period is not in the key's tiers", ErrBadToken)
		}
	} else {
		if newest.IsZero() {
			newest = time.Now()
		}
		for i < len(periods)-1 && !newest.After(periods[i].From) { // periods still to come
			i++
		}
	}
	page := &Page{}
	for ; i < len(periods); i, inner = i+1, "" {
		p := periods[i]
		if !oldest.IsZero() && !p.To.IsZero() && !oldest.Before(p.To) {
			break // the bound is newer than this period's end: nothing more to read
		}
		if len(page.Rows) == req.Limit { // full: the next page starts this period
			page.Next = tt.encodeToken(fp, p.From, "", oldest)
			return page, nil
		}
		tl := *tt.Timeline
		tl.Scheme, tl.Shards = p.Tier.Scheme, max(p.Tier.Shards, 1)
		tl.ShardColumn = tt.Tiers.plan.ShardColumn != ""
		sub := PageRequest{Key: req.Key, Limit: req.Limit - len(page.Rows), Token: inner, Oldest: oldest}
		if !p.From.IsZero() {
			tl.MaxBuckets = 1 << 20 // bounded by the period's start, not a budget
			if sub.Oldest.Before(p.From) {
				sub.Oldest = p.From
			}
		}
		switch {
		case inner != "":
		case !newest.IsZero() && (p.To.IsZero() || newest.Before(p.To)):
			sub.Newest = newest
		default:
			sub.Newest = p.To.Add(-time.Nanosecond)
		}
		newest = time.Time{}
		got, err := tl.Page(ctx, sub)
		if err != nil {
			return nil, err
		}
		page.Rows = append(page.Rows, got.Rows...)
		page.Visited += got.Visited
		if got.Next != "" {
			page.Next = tt.encodeToken(fp, p.From, got.Next, oldest)
			page.StoppedEarly = got.StoppedEarly
			return page, nil
		}
	}
	return page, nil
}

func (tt *TieredTimeline) fingerprint(key []any) []byte {
	return append([]byte("tiers "+tt.Tiers.plan.Table+"|"), tt.Timeline.fingerprint(key)...)
}

// encodeToken writes the period's start (none for the default tier's open period), the
// oldest bound and the period's own token, signed.
func (tt *TieredTimeline) encodeToken(fp []byte, from time.Time, inner string, oldest time.Time) string {
	b := []byte{tieredTokenVersion}
	for _, t := range []time.Time{from, oldest} {
		if t.IsZero() {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendVarint(b, t.UnixNano())
	}
	b = binary.AppendUvarint(b, uint64(len(inner)))
	b = append(b, inner...)
	b = append(b, tt.Timeline.mac(fp, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (tt *TieredTimeline) decodeToken(s string, fp []byte) (from time.Time, inner string, oldest time.Time, err error) {
	bad := func(why string) (time.Time, string, time.Time, error) {
		return time.Time{}, "", time.Time{}, fmt.Errorf("timeline: %w: %s", ErrBadToken, why)
	}
	b, derr := base64.RawURLEncoding.Strict().DecodeString(s)
	if derr != nil || strings.ContainsAny(s, "\r\n") {
		return bad("not base64url")
	}
	if len(b) < 1+macBytes {
		return bad("too short")
	}
	payload, tag := b[:len(b)-macBytes], b[len(b)-macBytes:]
	if !hmac.Equal(tag, tt.Timeline.mac(fp, payload)) {
		return bad("signature does not match (altered, or from another timeline or key)")
	}
	if payload[0] != tieredTokenVersion {
		return bad("not a tiered timeline's token")
	}
	r := payload[1:]
	var times [2]time.Time
	for i := range times {
		if len(r) < 1 || r[0] > 1 {
			return bad("truncated")
		}
		set := r[0] == 1
		r = r[1:]
		if set {
			v, rest, ok := varint(r)
			if !ok {
				return bad("truncated time")
			}
			times[i], r = time.Unix(0, v).UTC(), rest
		}
	}
	in, rest, ok := bytesField(r)
	if !ok || len(rest) != 0 {
		return bad("truncated period token")
	}
	return times[0], string(in), times[1], nil
}
