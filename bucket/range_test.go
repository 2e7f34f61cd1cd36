package bucket

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func labels(bs []Bucket) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.String()
	}
	return out
}

func TestBetween(t *testing.T) {
	month := mustNew(t, Month())
	tests := []struct {
		name     string
		s        Scheme
		from, to time.Time
		limit    int
		want     []string
	}{
		{"three months", month, utc(2024, 1, 15, 0, 0, 0), utc(2024, 3, 2, 0, 0, 0), 10, []string{"2024-01", "2024-02", "2024-03"}},
		{"end is exclusive", month, utc(2024, 1, 15, 0, 0, 0), utc(2024, 3, 1, 0, 0, 0), 10, []string{"2024-01", "2024-02"}},
		{"end 1ns into a bucket", month, utc(2024, 1, 15, 0, 0, 0), utc(2024, 3, 1, 0, 0, 0).Add(1), 10, []string{"2024-01", "2024-02", "2024-03"}},
		{"inside one bucket", month, utc(2024, 1, 15, 0, 0, 0), utc(2024, 1, 16, 0, 0, 0), 1, []string{"2024-01"}},
		{"empty range", month, utc(2024, 1, 15, 0, 0, 0), utc(2024, 1, 15, 0, 0, 0), 0, nil},
		{"exactly at the limit", month, utc(2024, 1, 1, 0, 0, 0), utc(2025, 1, 1, 0, 0, 0), 12, []string{
			"2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06",
			"2024-07", "2024-08", "2024-09", "2024-10", "2024-11", "2024-12"}},
		{"iso weeks across new year", mustNew(t, ISOWeek()), utc(2020, 12, 20, 0, 0, 0), utc(2021, 1, 12, 0, 0, 0), 10, []string{"2020-W51", "2020-W52", "2020-W53", "2021-W01", "2021-W02"}},
		{"6h", mustNew(t, Every(6*time.Hour)), utc(2024, 1, 15, 5, 0, 0), utc(2024, 1, 15, 13, 0, 0), 10, []string{"2024-01-15T00", "2024-01-15T06", "2024-01-15T12"}},
		{"days across a DST change", mustNew(t, Day()).In(mustLoad(t, "Europe/Berlin")), time.Date(2024, 3, 30, 12, 0, 0, 0, mustLoad(t, "Europe/Berlin")), time.Date(2024, 4, 1, 0, 30, 0, 0, mustLoad(t, "Europe/Berlin")), 5, []string{"2024-03-30", "2024-03-31", "2024-04-01"}},
	}
	for _, tt := range tests {
		got, err := tt.s.Between(tt.from, tt.to, tt.limit)
		if err != nil || !slices.Equal(labels(got), tt.want) {
			t.Errorf("%s: Between = %v, %v, want %v", tt.name, labels(got), err, tt.want)
		}
		newest, err := tt.s.Newest(tt.from, tt.to, len(tt.want)+5)
		reversed := slices.Clone(tt.want)
		slices.Reverse(reversed)
		if err != nil || !slices.Equal(labels(newest), reversed) {
			t.Errorf("%s: Newest = %v, %v, want %v reversed", tt.name, labels(newest), err, tt.want)
		}
	}
}

func TestBetweenRefusesTooManyBuckets(t *testing.T) {
	minute := mustNew(t, Minute())
	from, to := utc(1925, 1, 1, 0, 0, 0), utc(2025, 1, 1, 0, 0, 0) // 52.6 million minutes
	got, err := minute.Between(from, to, 1000)
	if !errors.Is(err, ErrTooManyBuckets) || got != nil {
		t.Fatalf("Between over a century of minutes = %d buckets, %v; want ErrTooManyBuckets", len(got), err)
	}
	const want = "bucket: too many buckets: 1925-01-01T00:00:00Z to 2025-01-01T00:00:00Z needs 52596000 minute buckets, more than the limit of 1000"
	if err.Error() != want {
		t.Errorf("error = %v\nwant  %s", err, want)
	}
	if _, err := mustNew(t, Month()).Between(utc(2024, 1, 1, 0, 0, 0), utc(2025, 1, 1, 0, 0, 1), 12); !errors.Is(err, ErrTooManyBuckets) {
		t.Errorf("13 months with a limit of 12: error = %v, want ErrTooManyBuckets", err)
	}
	for _, limit := range []int{0, -1} {
		if _, err := minute.Between(from, to, limit); !errors.Is(err, ErrTooManyBuckets) {
			t.Errorf("limit %d: error = %v, want ErrTooManyBuckets", limit, err)
		}
	}
}

func TestRangeEndBeforeStart(t *testing.T) {
	s := mustNew(t, Day())
	from, to := utc(2024, 2, 1, 0, 0, 0), utc(2024, 1, 1, 0, 0, 0)
	if _, err := s.Between(from, to, 100); !errors.Is(err, ErrInvalidRange) || !strings.Contains(err.Error(), "end 2024-01-01T00:00:00Z is before start 2024-02-01T00:00:00Z") {
		t.Errorf("Between error = %v, want ErrInvalidRange", err)
	}
	if _, err := s.Newest(from, to, 3); !errors.Is(err, ErrInvalidRange) {
		t.Errorf("Newest error = %v, want ErrInvalidRange", err)
	}
	if _, err := s.Partitions(from, to, 4, 100); !errors.Is(err, ErrInvalidRange) {
		t.Errorf("Partitions error = %v, want ErrInvalidRange", err)
	}
}

func TestNewestStopsAtN(t *testing.T) {
	s := mustNew(t, Month())
	signup, now := utc(2015, 6, 1, 0, 0, 0), utc(2024, 3, 10, 12, 0, 0)
	got, err := s.Newest(signup, now, 3)
	if err != nil || !slices.Equal(labels(got), []string{"2024-03", "2024-02", "2024-01"}) {
		t.Errorf("Newest(3) = %v, %v", labels(got), err)
	}
	for _, n := range []int{0, -1} {
		if got, err := s.Newest(signup, now, n); err != nil || len(got) != 0 {
			t.Errorf("Newest(%d) = %v, %v, want none", n, labels(got), err)
		}
	}
	// A century of minutes, but only the newest 5 are built.
	got, err = mustNew(t, Minute()).Newest(utc(1925, 1, 1, 0, 0, 0), utc(2025, 1, 1, 0, 0, 0), 5)
	if err != nil || !slices.Equal(labels(got), []string{"2024-12-31T23:59", "2024-12-31T23:58", "2024-12-31T23:57", "2024-12-31T23:56", "2024-12-31T23:55"}) {
		t.Errorf("Newest minutes = %v, %v", labels(got), err)
	}
}

// Between and Newest agree with walking Next from For(from) for random ranges.
func TestBetweenMatchesWalk(t *testing.T) {
	for _, loc := range testZones(t) {
		for w, typical := range map[Width]time.Duration{Day(): 24 * time.Hour, ISOWeek(): 168 * time.Hour, Month(): 730 * time.Hour, Hour(): time.Hour, Every(7 * time.Hour): 7 * time.Hour} {
			s := mustNew(t, w).In(loc)
			for i := range 30 {
				from := utc(2011, 12, 20, 0, 0, 0).Add(time.Duration(i) * 37 * time.Hour)
				to := from.Add(time.Duration(i*i) * typical / 4)
				var want []string
				for b := s.For(from); from.Before(to) && b.Start().Before(to); b = b.Next() {
					want = append(want, b.String())
				}
				got, err := s.Between(from, to, len(want))
				if err != nil || !slices.Equal(labels(got), want) {
					t.Fatalf("%v in %v: Between(%v, %v) = %v, %v, want %v", w, loc, from, to, labels(got), err, want)
				}
				if len(want) > 0 {
					if _, err := s.Between(from, to, len(want)-1); !errors.Is(err, ErrTooManyBuckets) {
						t.Fatalf("%v in %v: Between with a limit one short: %v", w, loc, err)
					}
				}
				newest, err := s.Newest(from, to, 4)
				slices.Reverse(want)
				if err != nil || !slices.Equal(labels(newest), want[:min(4, len(want))]) {
					t.Fatalf("%v in %v: Newest(%v, %v, 4) = %v, %v, want %v", w, loc, from, to, labels(newest), err, want)
				}
			}
		}
	}
}

func TestPartitions(t *testing.T) {
	s := mustNew(t, Month())
	from, to := utc(2024, 1, 15, 0, 0, 0), utc(2024, 3, 2, 0, 0, 0)
	got, err := s.Partitions(from, to, 2, 6)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for _, p := range got {
		pairs = append(pairs, p.Bucket.String()+"/"+string(rune('0'+p.Shard)))
	}
	if want := []string{"2024-01/0", "2024-01/1", "2024-02/0", "2024-02/1", "2024-03/0", "2024-03/1"}; !slices.Equal(pairs, want) {
		t.Errorf("Partitions = %v, want %v", pairs, want)
	}
	_, err = s.Partitions(from, to, 2, 5)
	const want = "bucket: too many buckets: 2024-01-15T00:00:00Z to 2024-03-02T00:00:00Z needs 3 month buckets × 2 shards, more than the limit of 5 partitions"
	if !errors.Is(err, ErrTooManyBuckets) || err.Error() != want {
		t.Errorf("Partitions over the limit: error = %v\nwant  %s", err, want)
	}
	for _, shards := range []int{0, -3} {
		if _, err := s.Partitions(from, to, shards, 100); !errors.Is(err, ErrInvalidShards) {
			t.Errorf("Partitions with %d shards: error = %v, want ErrInvalidShards", shards, err)
		}
	}
}
