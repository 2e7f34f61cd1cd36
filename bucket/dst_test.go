package bucket

import (
	"errors"
	"iter"
	"slices"
	"testing"
	"time"
)

// Calendar buckets follow local midnight, so a day with a daylight-saving change is not 24
// hours long; fixed widths stay exact.
func TestDaylightSaving(t *testing.T) {
	tests := []struct {
		zone  string
		width Width
		label string
		start string // RFC 3339, local
		long  time.Duration
	}{
		{"America/New_York", Day(), "2024-03-10", "2024-03-10T00:00:00-05:00", 23 * time.Hour},
		{"America/New_York", Day(), "2024-11-03", "2024-11-03T00:00:00-04:00", 25 * time.Hour},
		{"America/New_York", Day(), "2024-11-04", "2024-11-04T00:00:00-05:00", 24 * time.Hour},
		{"America/New_York", Month(), "2024-03", "2024-03-01T00:00:00-05:00", 31*24*time.Hour - time.Hour},
		{"America/New_York", ISOWeek(), "2024-W10", "2024-03-04T00:00:00-05:00", 7*24*time.Hour - time.Hour},
		{"America/New_York", Year(), "2024", "2024-01-01T00:00:00-05:00", 366 * 24 * time.Hour},
		{"Europe/Berlin", Day(), "2024-03-31", "2024-03-31T00:00:00+01:00", 23 * time.Hour},
		{"Europe/Berlin", Day(), "2024-10-27", "2024-10-27T00:00:00+02:00", 25 * time.Hour},
		{"Europe/Berlin", Month(), "2024-10", "2024-10-01T00:00:00+02:00", 31*24*time.Hour + time.Hour},
		// Lord Howe Island moves its clocks by 30 minutes.
		{"Australia/Lord_Howe", Day(), "2024-04-07", "2024-04-07T00:00:00+11:00", 24*time.Hour + 30*time.Minute},
		{"Australia/Lord_Howe", Day(), "2024-10-06", "2024-10-06T00:00:00+10:30", 24*time.Hour - 30*time.Minute},
		// Chile changes its clocks at midnight. On 2024-09-08 00:00 became 01:00, so the day
		// starts at 01:00; on 2024-04-06 24:00 became 23:00, so the 6th has 25 hours.
		{"America/Santiago", Day(), "2024-09-08", "2024-09-08T01:00:00-03:00", 23 * time.Hour},
		{"America/Santiago", Day(), "2024-09-07", "2024-09-07T00:00:00-04:00", 24 * time.Hour},
		{"America/Santiago", Day(), "2024-04-06", "2024-04-06T00:00:00-03:00", 25 * time.Hour},
		{"America/Santiago", Day(), "2024-04-07", "2024-04-07T00:00:00-04:00", 24 * time.Hour},
		{"America/Santiago", Month(), "2024-09", "2024-09-01T00:00:00-04:00", 30*24*time.Hour - time.Hour},
		// Newfoundland set its clocks back at 00:01, to 23:01 of the day before: the repeated
		// hour belongs to the later day, so both days stay unbroken intervals.
		{"America/St_Johns", Day(), "1990-10-27", "1990-10-27T00:00:00-02:30", 24 * time.Hour},
		{"America/St_Johns", Day(), "1990-10-28", "1990-10-28T00:00:00-02:30", 25 * time.Hour},
		// Samoa skipped 2011-12-30 when it moved across the date line.
		{"Pacific/Apia", Day(), "2011-12-29", "2011-12-29T00:00:00-10:00", 24 * time.Hour},
		{"Pacific/Apia", Day(), "2011-12-31", "2011-12-31T00:00:00+14:00", 24 * time.Hour},
		{"Pacific/Apia", ISOWeek(), "2011-W52", "2011-12-26T00:00:00-10:00", 6 * 24 * time.Hour},
		{"Pacific/Apia", Month(), "2011-12", "2011-12-01T00:00:00-10:00", 30 * 24 * time.Hour},
		// India is 5:30 ahead of UTC: days follow local midnight, hours stay UTC hours.
		{"Asia/Kolkata", Day(), "2024-01-15", "2024-01-15T00:00:00+05:30", 24 * time.Hour},
		{"Asia/Kolkata", Hour(), "2024-01-15T10", "2024-01-15T15:30:00+05:30", time.Hour},
		// Fixed widths ignore the change.
		{"America/New_York", Hour(), "2024-03-10T07", "2024-03-10T03:00:00-04:00", time.Hour},
		{"America/New_York", Hour(), "2024-11-03T05", "2024-11-03T01:00:00-04:00", time.Hour},
		{"America/New_York", Hour(), "2024-11-03T06", "2024-11-03T01:00:00-05:00", time.Hour},
		{"Australia/Lord_Howe", Every(6 * time.Hour), "2024-04-06T12", "2024-04-06T23:00:00+11:00", 6 * time.Hour},
	}
	for _, tt := range tests {
		s := mustNew(t, tt.width).In(mustLoad(t, tt.zone))
		b, err := s.Parse(tt.label)
		if err != nil {
			t.Errorf("%s %v Parse(%q): %v", tt.zone, tt.width, tt.label, err)
			continue
		}
		if got := b.Start().Format(time.RFC3339); got != tt.start {
			t.Errorf("%s %v %s starts %s, want %s", tt.zone, tt.width, tt.label, got, tt.start)
		}
		if got := b.End().Sub(b.Start()); got != tt.long {
			t.Errorf("%s %v %s is %v long, want %v", tt.zone, tt.width, tt.label, got, tt.long)
		}
		if got := s.For(b.Start()); got != b {
			t.Errorf("%s %v For(start of %s) = %s", tt.zone, tt.width, tt.label, got)
		}
		if got := s.For(b.End().Add(-time.Nanosecond)); got != b {
			t.Errorf("%s %v For(end of %s - 1ns) = %s", tt.zone, tt.width, tt.label, got)
		}
	}
}

func TestRepeatedHourBelongsToLaterDay(t *testing.T) {
	loc := mustLoad(t, "America/St_Johns")
	s := mustNew(t, Day()).In(loc)
	again := time.Date(1990, 10, 28, 3, 0, 0, 0, time.UTC) // 23:30 on the 27th, the second time
	if got := again.In(loc).Format("2006-01-02 15:04 MST"); got != "1990-10-27 23:30 NST" {
		t.Fatalf("zone data changed: %v reads %s", again, got)
	}
	if got := s.For(again).String(); got != "1990-10-28" {
		t.Errorf("For(%v) = %s, want 1990-10-28", again.In(loc), got)
	}
}

func TestSkippedDay(t *testing.T) {
	s := mustNew(t, Day()).In(mustLoad(t, "Pacific/Apia"))
	_, err := s.Parse("2011-12-30")
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("Parse(2011-12-30) in Pacific/Apia error = %v, want a *ParseError", err)
	}
	t.Log(err)
	dec29, _ := s.Parse("2011-12-29")
	if got := dec29.Next().String(); got != "2011-12-31" {
		t.Errorf("2011-12-29 Next = %s, want 2011-12-31", got)
	}
	if got := dec29.Next().Prev(); got != dec29 {
		t.Errorf("2011-12-31 Prev = %s, want 2011-12-29", got)
	}
	// The instant the clocks jumped is the start of the 31st.
	jump := time.Date(2011, 12, 30, 10, 0, 0, 0, time.UTC)
	if got := s.For(jump); got.String() != "2011-12-31" || !got.Start().Equal(jump) {
		t.Errorf("For(%v) = %s starting %v", jump, got, got.Start())
	}
	if got := s.For(jump.Add(-time.Nanosecond)).String(); got != "2011-12-29" {
		t.Errorf("For(just before the jump) = %s, want 2011-12-29", got)
	}
	buckets, err := s.Between(dec29.Start(), jump.Add(48*time.Hour), 10)
	if err != nil || len(buckets) != 3 || buckets[1].String() != "2011-12-31" {
		t.Errorf("Between across the skipped day = %v, %v", buckets, err)
	}
}

// Where the wall clock goes back across a day boundary, the local date of an instant can be
// earlier than that of an instant before it. Buckets stay unbroken intervals: the bucket of
// t is the latest calendar bucket that the wall clock has reached at or before t. This test
// checks exactly that definition, sampling every 30 minutes and each zone transition within
// 30 hours of every transition since 1840 of several zones, including Newfoundland, which
// until 2011 set its clocks back at 00:01 (so 23:01-00:00 of the previous day came again),
// and Juneau's 1867 move from the Russian to the American side of the date line, which
// repeated a whole day.
func TestBucketIsLatestWallClockReached(t *testing.T) {
	zones := []string{
		"America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Santiago",
		"Pacific/Apia", "America/Juneau", "Asia/Manila", "Pacific/Kwajalein", "Asia/Kathmandu",
		"Africa/Casablanca", "America/St_Johns", "Antarctica/Troll",
	}
	widths := []Width{Day(), ISOWeek(), Month(), Year()}
	wentBack := map[string]int{} // samples whose wall clock reads an earlier bucket than one already reached
	for _, zone := range zones {
		loc := mustLoad(t, zone)
		schemes := make([]Scheme, len(widths))
		for i, w := range widths {
			schemes[i] = mustNew(t, w).In(loc)
		}
		checked := 0
		for tr := range transitions(loc, time.Date(1840, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)) {
			samples := []int64{}
			for x := tr - 30*3600; x < tr+30*3600; x += 1800 {
				samples = append(samples, x)
			}
			samples = append(samples, tr-1, tr, tr+1)
			slices.Sort(samples)
			for i, s := range schemes {
				reached := int64(-1 << 62)
				for _, x := range samples {
					key := s.keyOfDay(floorDiv(x+s.offset(x), secondsPerDay))
					if key < reached {
						wentBack[zone]++
					}
					reached = max(reached, key)
					if b := s.For(time.Unix(x, 0)); b.key != reached {
						t.Fatalf("%s %v: For(%v) = %s, but the wall clock has reached %d", zone, widths[i], time.Unix(x, 0).In(loc), b, reached)
					}
				}
			}
			checked++
		}
		if checked == 0 {
			t.Errorf("%s: no transitions found", zone)
		}
	}
	// The cases that make this test worth having must really occur.
	for _, zone := range []string{"America/Juneau", "America/St_Johns"} {
		if wentBack[zone] == 0 {
			t.Errorf("%s: no sample went back to an earlier bucket; is the 64-bit zone data missing?", zone)
		}
	}
	t.Logf("samples that went back to an earlier bucket: %v", wentBack)
}

// transitions yields the Unix seconds at which loc changes its offset between from and to.
func transitions(loc *time.Location, from, to time.Time) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		t := from.In(loc)
		for t.Before(to) {
			_, end := t.ZoneBounds()
			if end.IsZero() || !end.Before(to) {
				return
			}
			if !yield(end.Unix()) {
				return
			}
			t = end
		}
	}
}
