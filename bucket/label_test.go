package bucket

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func utc(y int, m time.Month, d, hh, mm, ss int) time.Time {
	return time.Date(y, m, d, hh, mm, ss, 0, time.UTC)
}

func TestForUTC(t *testing.T) {
	at := time.Date(2024, 1, 15, 10, 4, 5, 123456789, time.UTC)
	tests := []struct {
		width      Width
		at         time.Time
		label      string
		start, end time.Time
	}{
		{Minute(), at, "2024-01-15T10:04", utc(2024, 1, 15, 10, 4, 0), utc(2024, 1, 15, 10, 5, 0)},
		{Hour(), at, "2024-01-15T10", utc(2024, 1, 15, 10, 0, 0), utc(2024, 1, 15, 11, 0, 0)},
		{Day(), at, "2024-01-15", utc(2024, 1, 15, 0, 0, 0), utc(2024, 1, 16, 0, 0, 0)},
		{ISOWeek(), at, "2024-W03", utc(2024, 1, 15, 0, 0, 0), utc(2024, 1, 22, 0, 0, 0)},
		{Month(), at, "2024-01", utc(2024, 1, 1, 0, 0, 0), utc(2024, 2, 1, 0, 0, 0)},
		{Year(), at, "2024", utc(2024, 1, 1, 0, 0, 0), utc(2025, 1, 1, 0, 0, 0)},
		{Every(6 * time.Hour), at, "2024-01-15T06", utc(2024, 1, 15, 6, 0, 0), utc(2024, 1, 15, 12, 0, 0)},
		{Every(15 * time.Minute), at, "2024-01-15T10:00", utc(2024, 1, 15, 10, 0, 0), utc(2024, 1, 15, 10, 15, 0)},
		{Every(90 * time.Second), at, "2024-01-15T10:03:00", utc(2024, 1, 15, 10, 3, 0), utc(2024, 1, 15, 10, 4, 30)},
		{Every(7 * time.Hour), at, "2024-01-15T09", utc(2024, 1, 15, 9, 0, 0), utc(2024, 1, 15, 16, 0, 0)}, // epoch-aligned, not day-aligned
		{Every(24 * time.Hour), at, "2024-01-15T00", utc(2024, 1, 15, 0, 0, 0), utc(2024, 1, 16, 0, 0, 0)},
		// Leap years and month ends.
		{Month(), utc(2024, 2, 29, 23, 59, 59), "2024-02", utc(2024, 2, 1, 0, 0, 0), utc(2024, 3, 1, 0, 0, 0)},
		{Month(), utc(2100, 2, 28, 12, 0, 0), "2100-02", utc(2100, 2, 1, 0, 0, 0), utc(2100, 3, 1, 0, 0, 0)},
		{Day(), utc(2024, 2, 29, 12, 0, 0), "2024-02-29", utc(2024, 2, 29, 0, 0, 0), utc(2024, 3, 1, 0, 0, 0)},
		{Day(), utc(2100, 3, 1, 0, 0, 0), "2100-03-01", utc(2100, 3, 1, 0, 0, 0), utc(2100, 3, 2, 0, 0, 0)},
		{Day(), utc(2000, 2, 29, 0, 0, 0), "2000-02-29", utc(2000, 2, 29, 0, 0, 0), utc(2000, 3, 1, 0, 0, 0)},
		{Month(), utc(2023, 12, 31, 23, 59, 59), "2023-12", utc(2023, 12, 1, 0, 0, 0), utc(2024, 1, 1, 0, 0, 0)},
		{Year(), utc(2024, 12, 31, 23, 59, 59), "2024", utc(2024, 1, 1, 0, 0, 0), utc(2025, 1, 1, 0, 0, 0)},
		// ISO weeks whose year is not the calendar year.
		{ISOWeek(), utc(2021, 1, 1, 0, 0, 0), "2020-W53", utc(2020, 12, 28, 0, 0, 0), utc(2021, 1, 4, 0, 0, 0)},
		{ISOWeek(), utc(2021, 1, 3, 23, 59, 59), "2020-W53", utc(2020, 12, 28, 0, 0, 0), utc(2021, 1, 4, 0, 0, 0)},
		{ISOWeek(), utc(2021, 1, 4, 0, 0, 0), "2021-W01", utc(2021, 1, 4, 0, 0, 0), utc(2021, 1, 11, 0, 0, 0)},
		{ISOWeek(), utc(2024, 12, 30, 0, 0, 0), "2025-W01", utc(2024, 12, 30, 0, 0, 0), utc(2025, 1, 6, 0, 0, 0)},
		{ISOWeek(), utc(2026, 12, 31, 0, 0, 0), "2026-W53", utc(2026, 12, 28, 0, 0, 0), utc(2027, 1, 4, 0, 0, 0)},
		{ISOWeek(), utc(2027, 1, 3, 0, 0, 0), "2026-W53", utc(2026, 12, 28, 0, 0, 0), utc(2027, 1, 4, 0, 0, 0)},
		{ISOWeek(), utc(2008, 12, 29, 0, 0, 0), "2009-W01", utc(2008, 12, 29, 0, 0, 0), utc(2009, 1, 5, 0, 0, 0)},
		{ISOWeek(), utc(2010, 1, 3, 0, 0, 0), "2009-W53", utc(2009, 12, 28, 0, 0, 0), utc(2010, 1, 4, 0, 0, 0)},
		// Before the epoch, and years that need a sign.
		{Hour(), utc(1969, 12, 31, 23, 30, 0), "1969-12-31T23", utc(1969, 12, 31, 23, 0, 0), utc(1970, 1, 1, 0, 0, 0)},
		{Every(6 * time.Hour), utc(1969, 12, 31, 23, 30, 0), "1969-12-31T18", utc(1969, 12, 31, 18, 0, 0), utc(1970, 1, 1, 0, 0, 0)},
		{Day(), utc(1, 1, 1, 0, 0, 0), "0001-01-01", utc(1, 1, 1, 0, 0, 0), utc(1, 1, 2, 0, 0, 0)},
		{Year(), utc(0, 6, 1, 0, 0, 0), "0000", utc(0, 1, 1, 0, 0, 0), utc(1, 1, 1, 0, 0, 0)},
		{Year(), utc(-1, 6, 1, 0, 0, 0), "-0001", utc(-1, 1, 1, 0, 0, 0), utc(0, 1, 1, 0, 0, 0)},
		{Month(), utc(10000, 1, 1, 0, 0, 0), "+10000-01", utc(10000, 1, 1, 0, 0, 0), utc(10000, 2, 1, 0, 0, 0)},
		{Day(), utc(9999, 12, 31, 1, 0, 0), "9999-12-31", utc(9999, 12, 31, 0, 0, 0), utc(10000, 1, 1, 0, 0, 0)},
	}
	for _, tt := range tests {
		s := mustNew(t, tt.width)
		b := s.For(tt.at)
		if b.String() != tt.label || !b.Start().Equal(tt.start) || !b.End().Equal(tt.end) {
			t.Errorf("%v For(%v) = %s [%v, %v), want %s [%v, %v)", tt.width, tt.at, b, b.Start(), b.End(), tt.label, tt.start, tt.end)
		}
		p, err := s.Parse(tt.label)
		if err != nil || p != b {
			t.Errorf("%v Parse(%q) = %v, %v, want %v", tt.width, tt.label, p, err, b)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		width       Width
		text        string
		wantForm    string // ParseError.Want starts with it
		wantInError string // the error text contains it
	}{
		{Month(), "2024-13", "YYYY-MM, such as 2024-01", "month 13 is out of range 01-12"},
		{Month(), "2024-1", "YYYY-MM", "the month must have 2 digits"},
		{Month(), "2024/01", "YYYY-MM", `found "/" where "-" should be`},
		{Month(), "2024-01-15", "YYYY-MM", `unexpected "-15" after the label`},
		{Month(), "24-01", "YYYY-MM", "the year must have 4 digits"},
		{Month(), "", "YYYY-MM", "it does not start with a year"},
		{Month(), "2024", "YYYY-MM", `it ends where "-" should follow`},
		{Month(), "+2024-01", "YYYY-MM", "only years past 9999"},
		{Month(), "-0000-01", "YYYY-MM", "year 0 is written 0000"},
		{Month(), "-01-01", "YYYY-MM", "a signed year has at least 4 digits"},
		{Month(), "+010000-01", "YYYY-MM", "no extra leading zeros"},
		{Month(), "+100000000000-01", "YYYY-MM", "more than 11 digits"},
		{Day(), "2100-02-29", "YYYY-MM-DD, such as 2024-01-15", "day 29 is out of range 01-28"},
		{Day(), "2023-02-29", "YYYY-MM-DD", "day 29 is out of range 01-28"},
		{Day(), "2024-04-31", "YYYY-MM-DD", "day 31 is out of range 01-30"},
		{Day(), "2024-00-10", "YYYY-MM-DD", "month 00 is out of range 01-12"},
		{ISOWeek(), "2021-W53", "YYYY-Www, such as 2024-W03", "ISO year 2021 has 52 weeks"},
		{ISOWeek(), "2024-W00", "YYYY-Www", "week 00 is out of range 01-53"},
		{ISOWeek(), "2024-03", "YYYY-Www", `found "-0" where "-W" should be`},
		{ISOWeek(), "2024-w03", "YYYY-Www", `found "-w" where "-W" should be`},
		{Year(), "2024-01", "YYYY, such as 2024", `unexpected "-01" after the label`},
		{Hour(), "2024-01-15T24", "YYYY-MM-DDTHH in UTC, such as 2024-01-15T10", "hour 24 is out of range 00-23"},
		{Hour(), "2024-01-15 10", "YYYY-MM-DDTHH", `found " " where "T" should be`},
		{Hour(), "2024-01-15T10:00", "YYYY-MM-DDTHH", `unexpected ":00" after the label`},
		{Minute(), "2024-01-15T10:60", "YYYY-MM-DDTHH:MM in UTC, such as 2024-01-15T10:04", "minute 60 is out of range 00-59"},
		{Every(6 * time.Hour), "2024-01-15T07", "YYYY-MM-DDTHH in UTC, such as 2024-01-15T06", "not the start of a 6h bucket; those start every 6h from 1970-01-01T00:00:00Z"},
		{Every(15 * time.Minute), "2024-01-15T10:05", "YYYY-MM-DDTHH:MM in UTC, such as 2024-01-15T10:00", "not the start of a 15m bucket"},
		{Every(90 * time.Second), "2024-01-15T10:04:61", "YYYY-MM-DDTHH:MM:SS in UTC, such as 2024-01-15T10:03:00", "second 61 is out of range 00-59"},
	}
	for _, tt := range tests {
		_, err := mustNew(t, tt.width).Parse(tt.text)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%v Parse(%q) error = %v, want a *ParseError", tt.width, tt.text, err)
			continue
		}
		if pe.Text != tt.text || !strings.HasPrefix(pe.Want, tt.wantForm) || !strings.Contains(err.Error(), tt.wantInError) {
			t.Errorf("%v Parse(%q) error = %v\nwant form %q and %q", tt.width, tt.text, err, tt.wantForm, tt.wantInError)
		}
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := mustNew(t, Month()).Parse("2024-13")
	const want = `bucket: cannot parse "2024-13": month 13 is out of range 01-12 (want YYYY-MM, such as 2024-01)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant  %s", err, want)
	}
}

// Every ISO week from 1600 to 2400 agrees with the time package, and week 53 occurs exactly
// in the years that have it.
func TestISOWeekMatchesTimePackage(t *testing.T) {
	s := mustNew(t, ISOWeek())
	years53 := map[int]bool{}
	for d := utc(1600, 1, 1, 12, 0, 0); d.Year() < 2400; d = d.AddDate(0, 0, 1) {
		y, w := d.ISOWeek()
		want := string(appendYear(nil, int64(y))) + "-W" + string(append2(nil, w))
		if got := s.For(d).String(); got != want {
			t.Fatalf("For(%s) = %s, want %s", d.Format(time.DateOnly), got, want)
		}
		if w == 53 {
			years53[y] = true
		}
	}
	for y := 1600; y < 2399; y++ {
		if got := weeksIn(int64(y)) == 53; got != years53[y] {
			t.Errorf("weeksIn(%d) = %d, time package says 53 weeks: %v", y, weeksIn(int64(y)), years53[y])
		}
	}
	for _, y := range []int{2004, 2009, 2015, 2020, 2026, 2032} {
		if !years53[y] {
			t.Errorf("%d should have an ISO week 53", y)
		}
	}
}

// Day, month and year labels agree with the time package's own calendar over centuries.
func TestCalendarLabelsMatchTimePackage(t *testing.T) {
	day, month, year := mustNew(t, Day()), mustNew(t, Month()), mustNew(t, Year())
	for d := utc(1, 1, 1, 0, 0, 0); d.Year() <= 9999; d = d.AddDate(0, 0, 11) {
		if got, want := day.For(d).String(), d.Format(time.DateOnly); got != want {
			t.Fatalf("day For(%v) = %s, want %s", d, got, want)
		}
		if got, want := month.For(d).String(), d.Format("2006-01"); got != want {
			t.Fatalf("month For(%v) = %s, want %s", d, got, want)
		}
		if got, want := year.For(d).String(), d.Format("2006"); got != want {
			t.Fatalf("year For(%v) = %s, want %s", d, got, want)
		}
	}
}

func TestCivilRoundTrip(t *testing.T) {
	for z := int64(-800_000); z <= 3_000_000; z += 7 {
		y, m, d := civilFromDays(z)
		if back := daysFromCivil(y, m, d); back != z || d < 1 || d > daysIn(y, m) {
			t.Fatalf("civilFromDays(%d) = %d-%d-%d, back to %d", z, y, m, d, back)
		}
	}
	if minSec != daysFromCivil(-99_999_999_999, 1, 1)*secondsPerDay || maxSec != daysFromCivil(100_000_000_000, 1, 1)*secondsPerDay-1 {
		t.Errorf("minSec/maxSec do not match the years they name")
	}
}
