package bucket

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// fuzzScheme picks a scheme from the test grid, or a fixed width of fixedSec seconds.
func fuzzScheme(t *testing.T, zones []*time.Location, widthSel, zoneSel uint8, fixedSec uint32) (Scheme, bool) {
	widths := testWidths()
	w := Every(time.Duration(fixedSec) * time.Second)
	if i := int(widthSel) % (len(widths) + 1); i < len(widths) {
		w = widths[i]
	}
	s, err := New(w)
	if err != nil {
		if !errors.Is(err, ErrInvalidWidth) {
			t.Fatalf("New(%v) error %v does not wrap ErrInvalidWidth", w, err)
		}
		return Scheme{}, false
	}
	return s.In(zones[int(zoneSel)%len(zones)]), true
}

// FuzzFor checks, for any instant, width and zone, that For never panics and that inside
// the years labels carry every promised property holds.
func FuzzFor(f *testing.F) {
	f.Add(int64(1705313045), int64(123456789), uint8(2), uint8(0), uint32(0))
	f.Add(int64(1710054000), int64(0), uint8(2), uint8(3), uint32(0))  // New York spring forward
	f.Add(int64(1712415600), int64(0), uint8(2), uint8(5), uint32(0))  // Lord Howe fall back
	f.Add(int64(1325239200), int64(0), uint8(3), uint8(7), uint32(0))  // Apia skipped day
	f.Add(int64(-3225229200), int64(0), uint8(2), uint8(8), uint32(0)) // Juneau 1867
	f.Add(int64(657082860), int64(0), uint8(2), uint8(9), uint32(0))   // St John's 1990
	f.Add(int64(-1), int64(999999999), uint8(13), uint8(1), uint32(21600))
	f.Add(int64(1<<63-1), int64(0), uint8(5), uint8(4), uint32(0))
	f.Add(int64(-1<<63), int64(0), uint8(4), uint8(6), uint32(0))
	zones := testZones(f)
	const margin = 200 * 366 * secondsPerDay // more than any width the fuzzer can pick
	f.Fuzz(func(t *testing.T, sec, nsec int64, widthSel, zoneSel uint8, fixedSec uint32) {
		s, ok := fuzzScheme(t, zones, widthSel, zoneSel, fixedSec)
		if !ok {
			return
		}
		nsec = floorMod(nsec, 1e9)
		for _, at := range []time.Time{time.Unix(sec, nsec), time.Unix(sec%(1<<36), nsec)} {
			if at.Unix() > minSec+margin && at.Unix() < maxSec-margin {
				checkBucket(t, s, at)
				continue
			}
			b := s.For(at)
			_, _ = s.Parse(b.Next().Prev().String())
			_, _ = s.Between(at, at.Add(time.Hour), 10)
			_, _ = s.Newest(at.Add(-time.Hour), at, 3)
		}
	})
}

// FuzzParse checks that Parse, ParseWidth and ParseUUIDTime never panic, and that whatever
// they accept is exactly what the matching String or format writes.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"2024", "2024-01", "2024-01-15", "2024-W03", "2020-W53", "2024-01-15T10", "2024-01-15T10:04",
		"2024-01-15T10:04:05", "+10000-01", "-0001-12-31", "0000", "2100-02-29", "2011-12-30",
		"6h", "iso-week", "1h30m", "-5m", "c232ab00-9414-11ec-b3c8-9f6bdeced846", "", "-", "+", "2024-W",
	} {
		f.Add(seed, uint8(0), uint8(0), uint32(0))
	}
	f.Add("2024-01-15T06", uint8(13), uint8(0), uint32(21600))
	f.Add("2011-12-30", uint8(2), uint8(7), uint32(0))
	zones := testZones(f)
	f.Fuzz(func(t *testing.T, text string, widthSel, zoneSel uint8, fixedSec uint32) {
		if w, err := ParseWidth(text); err == nil {
			if again, err := ParseWidth(w.String()); err != nil || again != w {
				t.Fatalf("ParseWidth(%q) = %v, but ParseWidth(%q) = %v, %v", text, w, w.String(), again, err)
			}
		} else if !errors.Is(err, ErrInvalidWidth) {
			t.Fatalf("ParseWidth(%q) error %v does not wrap ErrInvalidWidth", text, err)
		}
		if u, err := parseUUID(text); err == nil {
			if formatUUID(u) != strings.ToLower(text) {
				t.Fatalf("parseUUID(%q) = %s", text, formatUUID(u))
			}
			_, _ = UUIDTime(u)
		}
		s, ok := fuzzScheme(t, zones, widthSel, zoneSel, fixedSec)
		if !ok {
			return
		}
		for _, s := range []Scheme{s, s.In(time.UTC)} {
			b, err := s.Parse(text)
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Text != text || pe.Want == "" || pe.Reason == "" {
					t.Fatalf("%v in %v: Parse(%q) error %v is not a complete *ParseError", s.Width(), s.Location(), text, err)
				}
				continue
			}
			if b.String() != text {
				t.Fatalf("%v in %v: Parse(%q) = %s, which is written differently", s.Width(), s.Location(), text, b)
			}
			if !b.Start().Before(b.End()) || s.For(b.Start()) != b {
				t.Fatalf("%v in %v: Parse(%q) = [%v, %v), For(Start) = %s", s.Width(), s.Location(), text, b.Start(), b.End(), s.For(b.Start()))
			}
		}
	})
}
