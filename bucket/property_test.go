package bucket

import (
	"math/rand/v2"
	"testing"
	"time"
)

// testWidths and testZones are the grid the property and fuzz tests run over.
func testWidths() []Width {
	return []Width{
		Minute(), Hour(), Day(), ISOWeek(), Month(), Year(),
		Every(6 * time.Hour), Every(15 * time.Minute), Every(7 * time.Hour), Every(90 * time.Second),
		Every(time.Second), Every(24 * time.Hour), Every(1000 * time.Hour),
	}
}

func testZones(t testing.TB) []*time.Location {
	zones := []*time.Location{time.UTC, time.FixedZone("+14", 14*3600), time.FixedZone("LMT", -(3*3600 + 17*60 + 5))}
	for _, name := range []string{
		"America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Santiago", "Pacific/Apia",
		"America/Juneau", "America/St_Johns", "Asia/Kolkata", "Asia/Kathmandu", "Africa/Casablanca",
	} {
		zones = append(zones, mustLoad(t, name))
	}
	return zones
}

// checkBucket checks every property the package promises for the bucket of at.
func checkBucket(t testing.TB, s Scheme, at time.Time) {
	t.Helper()
	b := s.For(at)
	where := func() string {
		return s.Width().String() + " in " + s.Location().String() + " at " + at.UTC().Format(time.RFC3339Nano)
	}
	start, end := b.Start(), b.End()
	if at.Before(start) || !at.Before(end) {
		t.Fatalf("%s: bucket %s is [%v, %v), which does not hold the instant", where(), b, start, end)
	}
	if start.Location() != s.Location() || end.Location() != s.Location() {
		t.Fatalf("%s: Start and End are in %v and %v, not the scheme's location", where(), start.Location(), end.Location())
	}
	if s.width.unit == fixed {
		d := s.width.fixed
		if end.Sub(start) != d || floorMod(start.Unix(), s.width.seconds()) != 0 {
			t.Fatalf("%s: fixed bucket %s is [%v, %v), not %v from a multiple of %v since the epoch", where(), b, start, end, d, d)
		}
	}
	next, prev := b.Next(), b.Prev()
	if !next.Start().Equal(end) || next.Prev() != b {
		t.Fatalf("%s: %s ends %v but Next %s starts %v (its Prev is %s)", where(), b, end, next, next.Start(), next.Prev())
	}
	if !prev.End().Equal(start) || prev.Next() != b {
		t.Fatalf("%s: %s starts %v but Prev %s ends %v (its Next is %s)", where(), b, start, prev, prev.End(), prev.Next())
	}
	if got := s.For(start); got != b {
		t.Fatalf("%s: For(Start()) = %s, want %s", where(), got, b)
	}
	if got := s.For(end.Add(-time.Nanosecond)); got != b {
		t.Fatalf("%s: For(End()-1ns) = %s, want %s", where(), got, b)
	}
	if got := s.For(end); got != next {
		t.Fatalf("%s: For(End()) = %s, want Next %s", where(), got, next)
	}
	label := b.String()
	parsed, err := s.Parse(label)
	if err != nil || parsed != b {
		t.Fatalf("%s: Parse(%q) = %s, %v, want %s", where(), label, parsed, err, b)
	}
	if y := start.UTC().Year(); y > 1 && y < 9998 && !(prev.String() < label && label < next.String()) {
		t.Fatalf("%s: labels %s, %s, %s do not sort in time order", where(), prev, label, next)
	}
	if s.width.unit != fixed {
		// A calendar bucket's label is the wall-clock date at its start.
		date := start.Format("2006-01-02")
		if y := start.Year(); y >= 0 && y <= 9999 && !matchesDate(s.width.unit, label, start, date) {
			t.Fatalf("%s: %s starts at %v, a different local date", where(), label, start)
		}
	}
}

func matchesDate(u unit, label string, start time.Time, date string) bool {
	switch u {
	case day:
		return label == date
	case month:
		return label == date[:7]
	case year:
		return label == date[:4]
	}
	y, w := start.ISOWeek()
	return label == string(appendYear(nil, int64(y)))+"-W"+string(append2(nil, w))
}

// Every instant falls in exactly one bucket, consecutive buckets touch, and labels
// round-trip, for every width in every zone, at random instants from 1600 to 2400, around
// the years 0 and 10000, and over a million years.
func TestProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	span := func(from, to time.Time) func() time.Time {
		return func() time.Time {
			return time.Unix(from.Unix()+rng.Int64N(to.Unix()-from.Unix()), rng.Int64N(1e9))
		}
	}
	draws := []func() time.Time{
		span(utc(1600, 1, 1, 0, 0, 0), utc(2400, 1, 1, 0, 0, 0)),
		span(utc(1960, 1, 1, 0, 0, 0), utc(2040, 1, 1, 0, 0, 0)),
		span(utc(-2, 1, 1, 0, 0, 0), utc(2, 1, 1, 0, 0, 0)),
		span(utc(9998, 1, 1, 0, 0, 0), utc(10002, 1, 1, 0, 0, 0)),
		span(utc(-1_000_000, 1, 1, 0, 0, 0), utc(1_000_000, 1, 1, 0, 0, 0)),
	}
	n := 100 // FuzzFor explores further
	if testing.Short() {
		n = 20
	}
	for _, loc := range testZones(t) {
		for _, w := range testWidths() {
			s := mustNew(t, w).In(loc)
			for _, draw := range draws {
				for range n {
					checkBucket(t, s, draw())
				}
			}
		}
	}
}

// Instants beyond the years labels can carry are taken to be at the limits, without
// panicking or looping.
func TestExtremeInstants(t *testing.T) {
	extremes := []time.Time{
		earliestTime(), earliestTime().Add(-time.Hour), earliestTime().Add(time.Hour), latestTime(), latestTime().Add(-time.Hour), {},
		time.Unix(maxSec, 0), time.Unix(minSec, 0), time.Unix(maxSec+1, 0), time.Unix(minSec-1, 0),
		time.Unix(1<<63-1, 999_999_999), // not a valid time (see time.Unix), but must not panic either
	}
	for _, loc := range testZones(t) {
		for _, w := range testWidths() {
			s := mustNew(t, w).In(loc)
			for _, at := range extremes {
				b := s.For(at)
				_, _ = s.Parse(b.Next().Prev().String())
			}
			checkBucket(t, s, time.Time{})
			// Near the limits of time.Time, t.Unix() overflows; the order of instants must win.
			if got, want := s.For(earliestTime().Add(-time.Hour)), s.For(time.Unix(minSec, 0)); got != want {
				t.Errorf("%v in %v: For(earliest time) = %s, want the first bucket %s", w, loc, got, want)
			}
			if got, want := s.For(latestTime()), s.For(time.Unix(maxSec, 0)); got != want {
				t.Errorf("%v in %v: For(latest time) = %s, want the last bucket %s", w, loc, got, want)
			}
		}
	}
}

// earliestTime and latestTime are about the first and last instants a time.Time holds.
func earliestTime() time.Time { return time.Unix(-1<<63, 0) }
func latestTime() time.Time   { return time.Unix(1<<63-1-62135596800, 999_999_999) }
