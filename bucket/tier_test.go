package bucket

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func tierOf(t *testing.T, name string, w Width, shards int) Tier {
	t.Helper()
	s, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	return Tier{Name: name, Scheme: s, Shards: shards}
}

func at3339(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestPromotionBoundary: the first instant both widths start a bucket, worked out by hand
// on a calendar.
func TestPromotionBoundary(t *testing.T) {
	for _, tc := range []struct {
		from, to Width
		at, want string
	}{
		{Month(), Hour(), "2024-03-10T12:34:00Z", "2024-04-01T00:00:00Z"},
		{Hour(), Month(), "2024-03-10T12:34:00Z", "2024-04-01T00:00:00Z"},
		{Month(), Hour(), "2024-04-01T00:00:00Z", "2024-04-01T00:00:00Z"}, // already a boundary of both
		{Minute(), Every(15 * time.Second), "2024-01-15T10:04:05Z", "2024-01-15T10:05:00Z"},
		{Every(20 * time.Second), Minute(), "2024-01-15T10:04:00Z", "2024-01-15T10:04:00Z"},
		{Hour(), Every(6 * time.Hour), "2024-01-15T10:00:00.5Z", "2024-01-15T12:00:00Z"},
		{ISOWeek(), Month(), "2024-01-02T00:00:00Z", "2024-04-01T00:00:00Z"},          // 2024-04-01 is the first 1st on a Monday
		{Every(7 * time.Hour), Day(), "1970-01-01T00:00:01Z", "1970-01-08T00:00:00Z"}, // lcm(7h, 24h) = 168h
		{Day(), Year(), "2023-12-31T23:59:59Z", "2024-01-01T00:00:00Z"},
	} {
		got, err := PromotionBoundary(tierOf(t, "a", tc.from, 1), tierOf(t, "b", tc.to, 1), at3339(tc.at))
		if err != nil {
			t.Errorf("%s -> %s at %s: %v", tc.from, tc.to, tc.at, err)
			continue
		}
		if !got.Equal(at3339(tc.want)) || got.Location() != time.UTC {
			t.Errorf("%s -> %s at %s = %s, want %s", tc.from, tc.to, tc.at, got, tc.want)
		}
	}
	// Two prime widths near 11.6 days meet only after some 31,700 years: refused.
	_, err := PromotionBoundary(tierOf(t, "a", Every(1000003*time.Second), 1), tierOf(t, "b", Every(999983*time.Second), 1), at3339("2024-01-01T00:00:00Z"))
	if !errors.Is(err, ErrNoCommonBoundary) {
		t.Errorf("prime widths: %v, want ErrNoCommonBoundary", err)
	}
	if _, err := PromotionBoundary(Tier{Name: "zero"}, tierOf(t, "b", Hour(), 1), at3339("2024-01-01T00:00:00Z")); !errors.Is(err, ErrInvalidWidth) {
		t.Errorf("zero scheme: %v, want ErrInvalidWidth", err)
	}
}

// TestTierHistory reads rows as a tier table may hold them, racing promoters included, and
// checks the tier of each instant against a calendar worked out by hand.
func TestTierHistory(t *testing.T) {
	def := tierOf(t, "default", Month(), 1)
	hot := tierOf(t, "hot", Hour(), 2)
	hotter := tierOf(t, "hotter", Minute(), 4)
	hotAlias := tierOf(t, "warm", Hour(), 2) // same partitions as hot under another name
	type at struct {
		t    string
		tier string
	}
	for _, tc := range []struct {
		name    string
		changes []TierChange
		want    []string // effective changes, "since tier"
		at      []at
	}{
		{"none", nil, nil, []at{{"2024-04-01T00:00:00Z", "default"}}},
		{"aligned", []TierChange{{at3339("2024-04-01T00:00:00Z"), hot}}, []string{"2024-04-01T00:00:00Z hot"},
			[]at{{"2024-03-31T23:59:59.999Z", "default"}, {"2024-04-01T00:00:00Z", "hot"}, {"2030-01-01T00:00:00Z", "hot"}}},
		{"unaligned is moved to the next common boundary", []TierChange{{at3339("2024-03-10T12:34:00Z"), hot}}, []string{"2024-04-01T00:00:00Z hot"},
			[]at{{"2024-03-20T00:00:00Z", "default"}}},
		{"any order", []TierChange{{at3339("2024-06-01T00:00:00Z"), def}, {at3339("2024-04-01T00:00:00Z"), hot}},
			[]string{"2024-04-01T00:00:00Z hot", "2024-06-01T00:00:00Z default"},
			[]at{{"2024-05-31T23:00:00Z", "hot"}, {"2024-06-01T00:00:00Z", "default"}}},
		{"two promoters to one tier: the later row changes nothing", []TierChange{{at3339("2024-04-01T00:00:00Z"), hot}, {at3339("2024-05-01T00:00:00Z"), hot}},
			[]string{"2024-04-01T00:00:00Z hot"}, nil},
		{"a tier with the same partitions under another name changes nothing", []TierChange{{at3339("2024-04-01T00:00:00Z"), hot}, {at3339("2024-04-02T00:00:00Z"), hotAlias}},
			[]string{"2024-04-01T00:00:00Z hot"}, []at{{"2024-04-03T00:00:00Z", "hot"}}},
		{"a promotion to default's own scheme changes nothing", []TierChange{{at3339("2024-04-01T00:00:00Z"), def}}, nil, nil},
		{"racing tiers: the later waits for the next boundary after the earlier", []TierChange{{at3339("2024-04-01T00:00:00Z"), hot}, {at3339("2024-03-31T23:59:00Z"), def}},
			// def's row is older: it is a no-op against def; hot then applies at Apr 1.
			[]string{"2024-04-01T00:00:00Z hot"}, nil},
		{"a demotion written before the promotion takes effect", []TierChange{{at3339("2024-04-01T00:00:00Z"), hot}, {at3339("2024-03-31T23:00:00Z"), hotter}},
			// hotter's row (23:00) waits for default's next month, Apr 1; hot's row, also at
			// Apr 1, must come after it: the next boundary of minute and hour, 01:00.
			[]string{"2024-04-01T00:00:00Z hotter", "2024-04-01T01:00:00Z hot"},
			[]at{{"2024-04-01T00:59:59Z", "hotter"}, {"2024-04-01T01:00:00Z", "hot"}}},
	} {
		h, err := NewTierHistory(def, tc.changes)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for _, c := range h.Changes() {
			got = append(got, c.Since.UTC().Format(time.RFC3339)+" "+c.Tier.Name)
		}
		if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("%s: changes %q, want %q", tc.name, got, tc.want)
		}
		for _, a := range tc.at {
			if g := h.At(at3339(a.t)).Name; g != a.tier {
				t.Errorf("%s: at %s on %s, want %s", tc.name, a.t, g, a.tier)
			}
		}
	}
	if _, err := NewTierHistory(def, []TierChange{{at3339("2024-04-01T00:00:00Z"), hot}, {at3339("2024-04-01T00:00:00Z"), hotter}}); err == nil {
		t.Error("two changes at one instant: no error")
	}
	if _, err := NewTierHistory(def, []TierChange{{at3339("2024-04-01T00:00:00Z"), Tier{Name: "broken"}}}); !errors.Is(err, ErrInvalidWidth) {
		t.Errorf("zero scheme: %v", err)
	}
}

// TestTierNewest lists the partitions a read walks across a promotion, by hand.
func TestTierNewest(t *testing.T) {
	h, err := NewTierHistory(tierOf(t, "default", Month(), 1), []TierChange{{at3339("2024-04-01T00:00:00Z"), tierOf(t, "hot", Hour(), 2)}})
	if err != nil {
		t.Fatal(err)
	}
	walk := func(from, to string, n int) string {
		ps, err := h.Newest(at3339(from), at3339(to), n)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range ps {
			out = append(out, fmt.Sprintf("%s/%d", p.Bucket, p.Shard))
		}
		return strings.Join(out, " ")
	}
	if got, want := walk("2024-02-15T00:00:00Z", "2024-04-01T02:00:00Z", 10), "2024-04-01T01/0 2024-04-01T01/1 2024-04-01T00/0 2024-04-01T00/1 2024-03/0 2024-02/0"; got != want {
		t.Errorf("walk %s, want %s", got, want)
	}
	if got, want := walk("2024-02-15T00:00:00Z", "2024-04-01T02:00:00Z", 3), "2024-04-01T01/0 2024-04-01T01/1 2024-04-01T00/0 2024-04-01T00/1 2024-03/0"; got != want {
		t.Errorf("3 buckets: %s, want %s", got, want)
	}
	if got := walk("2024-01-15T00:00:00Z", "2024-01-15T00:00:00Z", 5); got != "" {
		t.Errorf("empty range: %s", got)
	}
	if _, err := h.Newest(time.Time{}, at3339("2024-01-15T00:00:00Z"), 5); !errors.Is(err, ErrInvalidRange) {
		t.Errorf("open range: %v", err)
	}
	// Periods: the hot period, then the default before it with no start.
	ps := h.Periods(time.Time{}, time.Time{})
	if len(ps) != 2 || !ps[0].From.Equal(at3339("2024-04-01T00:00:00Z")) || !ps[0].To.IsZero() || !ps[1].From.IsZero() || !ps[1].To.Equal(ps[0].From) {
		t.Errorf("periods %+v", ps)
	}
}

// TestTierWalkReadsEveryRowOnce is the promise of tiers in miniature: random histories,
// rows at random instants each written to the partition its key's tier gives it; a walk
// over the whole range lists every partition once, and every row's partition is in it.
// The truth is recomputed without the history: a row's partition is its own tier's bucket
// of its instant, looked up by scanning the sorted changes by hand.
func TestTierWalkReadsEveryRowOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 2))
	widths := []Width{Minute(), Every(15 * time.Second), Every(20 * time.Second), Every(5 * time.Minute), Hour()}
	for run := 0; run < 200; run++ {
		start := at3339("2024-01-15T10:00:00Z")
		def := tierOf(t, "default", widths[rng.IntN(len(widths))], 1+rng.IntN(2))
		var changes []TierChange
		for i, n := 0, rng.IntN(5); i < n; i++ {
			changes = append(changes, TierChange{Since: start.Add(time.Duration(rng.IntN(7200)) * time.Second),
				Tier: tierOf(t, fmt.Sprint("t", i), widths[rng.IntN(len(widths))], 1+rng.IntN(3))})
		}
		h, err := NewTierHistory(def, changes)
		if err != nil {
			t.Fatal(err)
		}
		eff := h.Changes()
		for i, c := range eff { // each change at a boundary of both neighbours
			prev := def
			if i > 0 {
				prev = eff[i-1].Tier
			}
			for _, s := range []Scheme{prev.Scheme, c.Tier.Scheme} {
				if !s.For(c.Since).Start().Equal(c.Since) {
					t.Fatalf("run %d: change at %s is no %s boundary", run, c.Since, s.Width())
				}
			}
		}
		from, to := start.Add(-time.Hour), start.Add(4*time.Hour)
		walk, err := h.Newest(from, to, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, p := range walk {
			seen[fmt.Sprintf("%s/%d", p.Bucket, p.Shard)]++
		}
		for k, n := range seen {
			if n != 1 {
				t.Fatalf("run %d: partition %s walked %d times", run, k, n)
			}
		}
		for i := 0; i < 300; i++ {
			at := from.Add(time.Duration(rng.Int64N(int64(to.Sub(from)))))
			tier := def
			for _, c := range eff {
				if !at.Before(c.Since) {
					tier = c.Tier
				}
			}
			sh := rng.IntN(max(tier.Shards, 1))
			if k := fmt.Sprintf("%s/%d", tier.Scheme.For(at), sh); seen[k] != 1 {
				t.Fatalf("run %d: row at %s on %s in partition %s, which the walk does not read", run, at, tier, k)
			}
		}
	}
}
