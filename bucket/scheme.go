package bucket

import (
	"fmt"
	"time"
)

// A Scheme cuts time into buckets of one Width, reading calendar widths on the wall clock
// of one location (UTC unless In says otherwise). A Scheme is a small value, safe for
// concurrent use; the zero Scheme has no width and yields only zero Buckets.
type Scheme struct {
	width Width
	loc   *time.Location // nil means UTC
}

// New returns the scheme that cuts time into buckets of width w, in UTC. It fails, wrapping
// ErrInvalidWidth, when w is zero, negative or not a whole number of seconds.
func New(w Width) (Scheme, error) {
	if err := w.check(); err != nil {
		return Scheme{}, err
	}
	return Scheme{width: w}, nil
}

// In returns the scheme with calendar widths read in loc: a day then starts at local
// midnight. A nil loc means UTC. Fixed widths are the same in every location.
func (s Scheme) In(loc *time.Location) Scheme {
	if loc == time.UTC {
		loc = nil
	}
	s.loc = loc
	return s
}

// Width returns the width of the scheme's buckets.
func (s Scheme) Width() Width { return s.width }

// Location returns the location whose wall clock the scheme's calendar widths follow.
func (s Scheme) Location() *time.Location {
	if s.loc == nil {
		return time.UTC
	}
	return s.loc
}

// valid reports whether s came from New; only the zero Scheme did not.
func (s Scheme) valid() bool { return s.width.unit != fixed || s.width.fixed >= time.Second }

// Labels carry years of up to 11 digits, so instants are kept within
// -99999999999-01-01T00:00:00Z (minSec) and +99999999999-12-31T23:59:59Z (maxSec); that
// also keeps every computation in seconds far from overflowing int64.
const (
	minSec = -3155695262135596800
	maxSec = 3155695137832780799
)

// For returns the bucket that holds t: the one with Start() <= t < End(). Instants beyond
// the years -99999999999 and +99999999999, which labels cannot carry, are taken to be at
// those limits.
func (s Scheme) For(t time.Time) Bucket {
	if !s.valid() {
		return Bucket{}
	}
	sec := clampUnix(t, minSec, maxSec) // floor: every bucket boundary is a whole second
	if s.width.unit == fixed {
		return s.fixedBucket(floorDiv(sec, s.width.seconds()))
	}
	k := s.keyOfDay(floorDiv(sec+s.offset(sec), secondsPerDay))
	start, end := s.startOf(k), s.startOf(k+1)
	// t reads as bucket k on its wall clock, but where the clock went back across a
	// boundary (the repeated hour after a midnight transition, a zone that re-lived a whole
	// day) t can already lie past the start of a later bucket. Buckets are the intervals
	// between starts, so move on to the one that holds t.
	for end <= sec {
		k++
		start, end = end, s.startOf(k+1)
	}
	return Bucket{scheme: s, key: k, start: start, end: end}
}

// clampUnix returns t in Unix seconds, or lo or hi when t lies beyond them. Outside them it
// compares times rather than seconds, because for the earliest times a time.Time holds
// t.Unix() overflows and would turn the distant past into the distant future; an
// overflowed value is near the largest int64, so it never passes for one within [lo, hi].
func clampUnix(t time.Time, lo, hi int64) int64 {
	if sec := t.Unix(); lo <= sec && sec <= hi {
		return sec
	}
	if t.Before(time.Unix(lo, 0)) {
		return lo
	}
	return hi
}

func (s Scheme) fixedBucket(k int64) Bucket {
	d := s.width.seconds()
	return Bucket{scheme: s, key: k, start: k * d, end: k*d + d}
}

// bucketAt returns calendar bucket k, or false when no instant belongs to it because the
// location skipped it (Pacific/Apia went from 2011-12-29 straight to 2011-12-31).
func (s Scheme) bucketAt(k int64) (Bucket, bool) {
	if s.width.unit == fixed {
		return s.fixedBucket(k), true
	}
	start, end := s.startOf(k), s.startOf(k+1)
	return Bucket{scheme: s, key: k, start: start, end: end}, start < end
}

// offset returns the location's UTC offset, in seconds, at Unix time sec.
func (s Scheme) offset(sec int64) int64 {
	if s.loc == nil {
		return 0
	}
	_, off := time.Unix(sec, 0).In(s.loc).Zone()
	return int64(off)
}

// keyOfDay returns the calendar bucket that holds day number dayNum. Keys count buckets:
// days since 1970-01-01, ISO weeks since the one holding it, months since year 0, years.
func (s Scheme) keyOfDay(dayNum int64) int64 {
	switch s.width.unit {
	case isoWeek:
		return isoWeekIndex(dayNum)
	case month:
		y, m, _ := civilFromDays(dayNum)
		return y*12 + int64(m-1)
	case year:
		y, _, _ := civilFromDays(dayNum)
		return y
	}
	return dayNum
}

// firstDayOf returns the day number on which calendar bucket k begins.
func (s Scheme) firstDayOf(k int64) int64 {
	switch s.width.unit {
	case isoWeek:
		return mondayOf(k)
	case month:
		return daysFromCivil(floorDiv(k, 12), int(floorMod(k, 12))+1, 1)
	case year:
		return daysFromCivil(k, 1, 1)
	}
	return k
}

// startOf returns the Unix second at which calendar bucket k starts: the first instant whose
// wall clock reads its first midnight or later. Where a time-zone change skips midnight
// (America/Santiago moves clocks from 00:00 to 01:00) that is the instant of the change, and
// a bucket the location skipped entirely starts where the next one does.
func (s Scheme) startOf(k int64) int64 {
	wall := s.firstDayOf(k) * secondsPerDay // the midnight, read as if it were UTC
	if s.loc == nil {
		return wall
	}
	// Walk the zone periods forward from well before the answer; inside a period with
	// offset off the wall clock reads x+off, so the first x reading wall or later is
	// wall-off. No UTC offset in the time-zone database reaches 16 hours, so two days back
	// the wall clock is surely earlier than wall.
	x := wall - 2*secondsPerDay
	for {
		t := time.Unix(x, 0).In(s.loc)
		_, off := t.Zone()
		zoneStart, zoneEnd := t.ZoneBounds()
		first := wall - int64(off)
		if !zoneStart.IsZero() && zoneStart.Unix() > first {
			first = zoneStart.Unix()
		}
		if zoneEnd.IsZero() || first < zoneEnd.Unix() || zoneEnd.Unix() <= x {
			return first
		}
		x = zoneEnd.Unix()
	}
}

// Parse returns the bucket whose label, as Bucket.String writes it, is text. It fails with a
// *ParseError that says what form was expected, and for calendar widths when the label
// names a day the location skipped.
func (s Scheme) Parse(text string) (Bucket, error) {
	if !s.valid() {
		return Bucket{}, fmt.Errorf("bucket: parse %q with the zero Scheme: %w %s", text, ErrInvalidWidth, s.width)
	}
	k, err := s.parseKey(text)
	if err != nil {
		return Bucket{}, err
	}
	b, ok := s.bucketAt(k)
	if !ok {
		return Bucket{}, &ParseError{Text: text, Want: s.want(), Reason: s.Location().String() + " skipped it: no instant falls in it"}
	}
	return b, nil
}

// Between returns the buckets that overlap the half-open range [from, to), oldest first; for
// newest first, slices.Reverse the result. A read of the range must visit each of them.
//
// So that a careless range cannot turn into millions of queries, Between fails, wrapping
// ErrTooManyBuckets, when the range needs more than limit buckets; it never returns a partial
// list. It also fails, wrapping ErrInvalidRange, when to is before from. An empty range
// (to equal to from) needs no buckets.
func (s Scheme) Between(from, to time.Time, limit int) ([]Bucket, error) {
	if !s.valid() {
		return nil, fmt.Errorf("bucket: list buckets with the zero Scheme: %w %s", ErrInvalidWidth, s.width)
	}
	if to.Before(from) {
		return nil, fmt.Errorf("bucket: %w: end %s is before start %s", ErrInvalidRange, to.Format(time.RFC3339Nano), from.Format(time.RFC3339Nano))
	}
	if !from.Before(to) {
		return nil, nil
	}
	first, last := s.For(from), s.For(to.Add(-time.Nanosecond))
	// Keys number buckets consecutively, so span is the count unless a zone skipped a
	// calendar day in between. It is only reported: the walk below decides, and stops as
	// soon as the limit is passed, so a huge range costs no more than limit buckets.
	span := last.key - first.key + 1
	out := make([]Bucket, 0, max(0, min(span, int64(limit), 1024)))
	for b := first; ; b = b.Next() {
		if len(out) >= limit {
			return nil, fmt.Errorf("bucket: %w: %s to %s needs %d %s buckets, more than the limit of %d",
				ErrTooManyBuckets, from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano), span, s.width, limit)
		}
		out = append(out, b)
		if b.key >= last.key {
			return out, nil
		}
	}
}

// Newest returns at most n buckets that overlap the half-open range [from, to), newest
// first: the buckets a timeline read visits, in order, until it has enough rows or has
// visited n of them. Unlike Between, stopping at n is the point, not an error. It fails,
// wrapping ErrInvalidRange, when to is before from.
func (s Scheme) Newest(from, to time.Time, n int) ([]Bucket, error) {
	if !s.valid() {
		return nil, fmt.Errorf("bucket: list buckets with the zero Scheme: %w %s", ErrInvalidWidth, s.width)
	}
	if to.Before(from) {
		return nil, fmt.Errorf("bucket: %w: end %s is before start %s", ErrInvalidRange, to.Format(time.RFC3339Nano), from.Format(time.RFC3339Nano))
	}
	if n <= 0 || !from.Before(to) {
		return nil, nil
	}
	first, last := s.For(from), s.For(to.Add(-time.Nanosecond))
	out := make([]Bucket, 0, max(0, min(last.key-first.key+1, int64(n), 1024)))
	for b := last; len(out) < n; b = b.Prev() {
		out = append(out, b)
		if b.key <= first.key {
			break
		}
	}
	return out, nil
}
