package backfill

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
	"github.com/cqlsize/cqlsize/internal/tokenscan"
)

// VerifyOptions configure Verify. The zero value checks a sample of 1,000 source rows.
type VerifyOptions struct {
	// Consistency of the reads of both tables (default LOCAL_QUORUM, which sees what the
	// backfill wrote at LOCAL_QUORUM).
	Consistency gocql.Consistency
	// Sample is how many source rows to check, read from random places of the ring
	// (default 1000). Full checks every row instead.
	Sample int
	Full   bool
	// Workers is how many source slices are checked at once (default 8: each target row is one read).
	Workers int
	// Rate bounds the source rows read a second (0: no limit).
	Rate float64
	// Examples is how many missing or different rows are described (default 10).
	Examples int
	// Seed of the sample's start tokens (0: from the clock).
	Seed uint64
	// RetryFor is how long a read of a row or a partition that fails with transient trouble
	// (a timeout, a connection lost) is sent again (default 1 minute; negative: once). A read
	// changes nothing, so sending it again is always safe.
	RetryFor time.Duration
}

// VerifyResult is what Verify found.
type VerifyResult struct {
	SourceRows int64 `json:"source_rows"` // checked
	TargetRows int64 `json:"target_rows"` // expected target rows looked up
	Missing    int64 `json:"missing"`
	Different  int64 `json:"different"`
	Rechecked  int64 `json:"rechecked"` // found wrong, read again, and right the second time (a write of the service in between)
	// TargetRowsScanned is how many target rows the walk of the target read (a sample from
	// random places, or all with Full); Extra, those no source row maps to.
	TargetRowsScanned int64 `json:"target_rows_scanned"`
	Extra             int64 `json:"extra"`
	// ExtraUnchecked says why the target was not walked (empty when it was).
	ExtraUnchecked string   `json:"extra_unchecked,omitempty"`
	Examples       []string `json:"examples,omitempty"`
	Full           bool     `json:"full"`
}

// OK reports a verification that found nothing missing, different or extra.
func (v *VerifyResult) OK() bool { return v.Missing == 0 && v.Different == 0 && v.Extra == 0 }

// Verify reads source rows (a sample, or all with o.Full) and checks that each target row
// p derives from them exists in the target table with the same values, and, cell by cell,
// the same write times and about the same remaining TTL (a second or a few less, as it
// counts down while the tables are read). A row found missing or different is read again,
// source and target, before it counts: the service may have written it in between.
//
// It then walks the target (the same share of it: a sample or all) and reads, for each
// target row, the source row its key names: a target row that no source row derives is
// extra (read twice before it counts). A row the service's dual writes created after the
// copy started is in the source too, so it maps and is not extra. This needs every source
// key column copied as it is into a target key column; otherwise ExtraUnchecked says why
// the target was not walked.
func Verify(ctx context.Context, s *gocql.Session, p *derive.Program, o VerifyOptions) (*VerifyResult, error) {
	if s == nil || p == nil {
		return nil, errors.New("verify: no session or no program")
	}
	if o.Consistency == gocql.Any {
		o.Consistency = gocql.LocalQuorum
	}
	if o.Sample <= 0 {
		o.Sample = 1000
	}
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if o.Examples == 0 {
		o.Examples = 10
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	if o.RetryFor == 0 {
		o.RetryFor = time.Minute
	}
	b, reader, err := newCopier(p)
	if err != nil {
		return nil, err
	}
	target := newTargetReader(b)
	target.retry = o.RetryFor
	v := &verifier{s: s, o: o, b: b, reader: reader, target: target, res: &VerifyResult{Full: o.Full},
		limiter: tokenscan.NewLimiter(o.Rate)}
	v.extra, v.res.ExtraUnchecked = newExtraReader(b, reader)
	var parts []tokenscan.Range
	quota := 0
	if o.Full {
		parts = tokenscan.Even(64)
	} else {
		k := min(32, max(1, o.Sample/20))
		parts = tokenscan.Random(k, o.Seed)
		quota = (o.Sample + k - 1) / k
	}
	type job struct {
		part   tokenscan.Range
		target bool
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for w := 0; w < min(o.Workers, len(parts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				check := v.part
				if j.target {
					check = v.extraPart
				}
				if err := check(ctx, j.part, quota); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, part := range parts {
		jobs <- job{part: part}
	}
	for _, part := range parts {
		if v.extra != nil {
			jobs <- job{part: part, target: true}
		}
	}
	close(jobs)
	wg.Wait()
	return v.res, firstErr
}

type verifier struct {
	s       *gocql.Session
	o       VerifyOptions
	b       *rowBuilder
	reader  *sourceReader
	target  *targetReader
	extra   *extraReader // nil: the target cannot be mapped back to the source
	limiter *tokenscan.Limiter
	mu      sync.Mutex
	res     *VerifyResult
}

// part checks the source rows of one range, at most quota of them (0: all), verifyChunk
// rows at a time.
func (v *verifier) part(ctx context.Context, part tokenscan.Range, quota int) error {
	n := 0
	var chunk []*sourceRow
	err := v.reader.scanPages(func(state []byte) *gocql.Query {
		return v.s.Query(v.reader.stmt, part.Lo, part.Hi).WithContext(ctx).Consistency(v.o.Consistency).
			PageSize(500).PageState(state).Idempotent(true)
	}, v.again(ctx), func(row *sourceRow) (bool, error) {
		if err := v.limiter.Take(ctx, 1); err != nil {
			return false, err
		}
		n++
		chunk = append(chunk, row)
		if len(chunk) >= verifyChunk {
			err := v.checkRows(ctx, chunk)
			chunk = nil
			if err != nil {
				return false, err
			}
		}
		return quota == 0 || n < quota, nil
	})
	if err != nil {
		return fmt.Errorf("verify: read the source: %w", err)
	}
	if len(chunk) > 0 {
		return v.checkRows(ctx, chunk)
	}
	return nil
}

// again is the retry policy of every read verify makes: transient trouble is sent again for
// RetryFor (retryFor).
func (v *verifier) again(ctx context.Context) func(op func() error) error {
	return func(op func() error) error { return retryFor(ctx, v.o.RetryFor, op) }
}

// recheck reads a source row found wrong again by its key, and its target rows one by
// one: the service may have written them in between. Only what is still wrong counts.
func (v *verifier) recheck(ctx context.Context, row *sourceRow) error {
	again, found, err := v.reread(ctx, row)
	if err != nil {
		return err
	}
	var still []string
	if found {
		err = v.b.build(&again, func(tr *targetRow) error {
			problem, err := v.target.compare(ctx, v.s, v.o.Consistency, tr)
			if problem != "" {
				still = append(still, problem)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(still) == 0 {
		v.res.Rechecked++
		return nil
	}
	for _, p := range still {
		if strings.HasPrefix(p, "missing") {
			v.res.Missing++
		} else {
			v.res.Different++
		}
		if len(v.res.Examples) < v.o.Examples {
			v.res.Examples = append(v.res.Examples, p)
		}
	}
	return nil
}

// reread reads the source row with row's primary key again.
func (v *verifier) reread(ctx context.Context, row *sourceRow) (sourceRow, bool, error) {
	var key []any
	for _, c := range v.reader.keyCols {
		key = append(key, row.vals[c.Name])
	}
	var again sourceRow
	var found bool
	err := v.again(ctx)(func() error {
		sent := time.Now()
		iter := v.s.Query(v.reader.byKey, key...).WithContext(ctx).Consistency(v.o.Consistency).Idempotent(true).Iter()
		sc2, err := v.reader.scanner(iter)
		if err != nil {
			iter.Close()
			return err
		}
		again, found = sourceRow{}, iter.Scan(sc2.dest...)
		if found {
			again = sc2.row()
			again.readAt = sent
		}
		return iter.Close()
	})
	if err != nil {
		return sourceRow{}, false, fmt.Errorf("verify: read the source row again: %w", err)
	}
	return again, found, nil
}

// targetReader reads a target row by its key with the write time and TTL of its cells, or
// the rows of one partition at once.
type targetReader struct {
	b      *rowBuilder
	stmt   string
	inHead string // SELECT ..., the clustering columns FROM t WHERE (fetch's reads by partition)
	cols   []int  // indexes into b.cols of the non-key columns read
	np     int    // the target's partition key columns: the first np of a row's key
	pk     []string
	ck     []string // the clustering columns' names, as MapScan keys them
	// ckQuoted are the clustering columns as CQL names them.
	ckQuoted []string
	types    []cql.Type // of the key columns, in key order
	// retry is how long a read that fails with transient trouble is sent again (retryFor).
	retry time.Duration
}

func newTargetReader(b *rowBuilder) *targetReader {
	dst := b.p.TargetTable()
	tr := &targetReader{b: b}
	var sel, meta, where []string
	for i, c := range b.cols {
		if c.key {
			continue
		}
		tr.cols = append(tr.cols, i)
		sel = append(sel, c.quoted)
		meta = append(meta, "WRITETIME("+c.quoted+")", "TTL("+c.quoted+")")
	}
	for _, k := range b.keys {
		where = append(where, b.cols[k].quoted+" = ?")
	}
	if len(sel) == 0 {
		sel = []string{b.cols[b.keys[0]].quoted}
	}
	from := " FROM " + cql.QuoteName(dst.Keyspace) + "." + cql.QuoteName(dst.Name) + " WHERE "
	tr.stmt = "SELECT " + strings.Join(append(sel, meta...), ", ") + from + strings.Join(where, " AND ")
	tr.np = len(dst.PartitionKey)
	for i, k := range b.keys {
		c := b.cols[k]
		tr.types = append(tr.types, c.Type)
		if i < tr.np {
			tr.pk = append(tr.pk, c.quoted)
		} else {
			tr.ck = append(tr.ck, c.Column)
			tr.ckQuoted = append(tr.ckQuoted, c.quoted)
		}
	}
	tr.inHead = "SELECT " + strings.Join(append(append(sel, meta...), tr.ckQuoted...), ", ") + from
	return tr
}

// compare reads the target row of tr and says what is wrong with it ("" when nothing).
func (t *targetReader) compare(ctx context.Context, s *gocql.Session, cons gocql.Consistency, tr *targetRow) (string, error) {
	m, err := t.read(ctx, s, cons, tr)
	if err != nil {
		return "", err
	}
	return t.judge(m, tr), nil
}

// read reads the target row of tr alone: its columns, nil when it is missing.
func (t *targetReader) read(ctx context.Context, s *gocql.Session, cons gocql.Consistency, tr *targetRow) (map[string]any, error) {
	var m map[string]any
	err := retryFor(ctx, t.retry, func() error {
		m = map[string]any{}
		return s.Query(t.stmt, tr.key...).WithContext(ctx).Consistency(cons).Idempotent(true).MapScan(m)
	})
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("verify: read the target row %s: %w", keyText(tr.key, t.types), err)
	}
	return m, nil
}

// judge says what is wrong with the target row m read for tr (nil: missing), "" when
// nothing.
func (t *targetReader) judge(m map[string]any, tr *targetRow) string {
	key := keyText(tr.key, t.types)
	if m == nil {
		return "missing " + key
	}
	want := map[int]targetCell{}
	stamps := map[int][]stamp{}
	for s, cells := range tr.groups {
		for _, c := range cells {
			if c.add {
				stamps[c.col] = append(stamps[c.col], s)
				continue
			}
			want[c.col] = c
			stamps[c.col] = []stamp{s}
		}
	}
	// The target's TTLs were read up to elapsed after the source's, so they may be that
	// much shorter; and the copy counted them down from when its read was sent, before the
	// node counted the source's, a page's round trip (and a second's rounding) more.
	elapsed := time.Since(tr.readAt)
	slack := int((elapsed+time.Second-1)/time.Second) + copySlack
	for _, i := range t.cols {
		c := t.b.cols[i]
		got := m[c.Column]
		w, ok := want[i]
		if !ok && len(stamps[i]) == 0 {
			if !zeroValue(got) {
				return fmt.Sprintf("different %s: column %s is %v, the source has none", key, c.Column, got)
			}
			continue
		}
		if ok && !sameValue(got, w.value) {
			return fmt.Sprintf("different %s: column %s is %v, want %v", key, c.Column, got, w.value)
		}
		if problem := sameStamps(c, m, stamps[i], slack); problem != "" {
			return fmt.Sprintf("different %s: column %s %s", key, c.Column, problem)
		}
	}
	return ""
}

// copySlack is how many seconds shorter than the source's a copied TTL may be: the copy
// rounds the time since its read up, and counts from when the read was sent, not from
// when the node read the page.
const copySlack = 3

// queueSlack is how many seconds longer than the source's a copied TTL may be: a write
// that waits in a busy coordinator's queue before the node builds its mutation expires
// that much later than the copy asked (CQL has no absolute expiry to write instead). Two
// seconds were seen on a loaded machine; a cell that outlives its source by a few seconds
// is not a wrong copy.
const queueSlack = 3

// sameStamps compares a target cell's write time and remaining TTL (or, for a non-frozen
// collection, its elements') with the source's.
func sameStamps(c tcol, m map[string]any, want []stamp, slack int) string {
	wt, ttl := m["writetime("+c.Column+")"], m["ttl("+c.Column+")"]
	var gotTS []int64
	var gotTTL []int
	switch x := wt.(type) {
	case int64:
		gotTS = []int64{x}
		t, _ := ttl.(int)
		gotTTL = []int{t}
	case []int64:
		gotTS = x
		gotTTL, _ = ttl.([]int)
	}
	if c.dstMulti {
		// Element write times, compared as sets of (time) values.
		var wantTS []int64
		for _, s := range want {
			wantTS = append(wantTS, s.ts)
		}
		if len(wantTS) == 0 {
			return ""
		}
		g := uniq(gotTS)
		w := uniq(wantTS)
		if !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("has element write times %v, want %v", g, w)
		}
		return ""
	}
	if len(want) == 0 || len(gotTS) != 1 {
		return ""
	}
	if gotTS[0] != want[0].ts {
		return fmt.Sprintf("was written at %d, the source cell at %d", gotTS[0], want[0].ts)
	}
	g, w := gotTTL[0], want[0].ttl
	switch {
	case w <= 0 && g != 0:
		return fmt.Sprintf("has a TTL of %ds, the source cell none", g)
	// The copy counts the TTL down from before the node read the source, so the target cell
	// expires no later than the source's, but for the time its write waited in the
	// coordinator's queue (the node counts a TTL from when it builds the mutation):
	// read after the source, its TTL is at most the source's plus the second TTL() rounds
	// away plus that wait.
	case w > 0 && (g <= 0 || g > w+1+queueSlack || g < w-slack):
		return fmt.Sprintf("has a TTL of %ds, the source cell %ds", g, w)
	}
	return ""
}

func uniq(xs []int64) []int64 {
	out := append([]int64(nil), xs...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	k := 0
	for i, x := range out {
		if i == 0 || x != out[k-1] {
			out[k] = x
			k++
		}
	}
	return out[:k]
}

// sameValue compares a value read back with the value written.
func sameValue(got, want any) bool {
	if gt, ok := got.(time.Time); ok {
		wt, ok := want.(time.Time)
		return ok && gt.Equal(wt)
	}
	if reflect.DeepEqual(got, want) {
		return true
	}
	// A collection read back empty is the same as none; a uuid column of a timeuuid value.
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	if gv.IsValid() && wv.IsValid() && gv.Kind() == wv.Kind() && (gv.Kind() == reflect.Slice || gv.Kind() == reflect.Map) && gv.Len() == 0 && wv.Len() == 0 {
		return true
	}
	return fmt.Sprint(got) == fmt.Sprint(want) && gv.Kind() == wv.Kind()
}

// zeroValue reports a value MapScan reads for a null: the type's zero value.
func zeroValue(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map {
		return rv.Len() == 0
	}
	return rv.IsZero()
}
