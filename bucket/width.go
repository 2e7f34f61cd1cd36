package bucket

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A Width is how much time one bucket covers. Calendar widths (Day, ISOWeek, Month, Year)
// follow the wall clock of a Scheme's location, so their buckets start at local midnight
// and a day with a daylight-saving change is 23 or 25 hours long. Every bucket stays one
// unbroken interval: where a zone skips midnight the day starts at the change, where the
// clock goes back across midnight the repeated time belongs to the later day, and a day a
// zone skipped has no bucket. Fixed widths (Minute,
// Hour, Every) measure elapsed time: every bucket is exactly as long as the width, buckets
// start at whole multiples of it since the Unix epoch (1970-01-01T00:00:00Z), and the
// location is ignored, so that no bucket is ever shortened or doubled by a clock change.
//
// The zero Width is not valid; New rejects it.
type Width struct {
	unit  unit          // a calendar unit, or fixed
	fixed time.Duration // the width when unit is fixed
}

type unit uint8

const (
	fixed unit = iota
	day
	isoWeek
	month
	year
)

// Minute returns the fixed width of one minute, labelled like 2024-01-15T10:04 (UTC).
func Minute() Width { return Every(time.Minute) }

// Hour returns the fixed width of one hour, labelled like 2024-01-15T10 (UTC). In zones
// whose offset is a whole number of hours, an hour bucket is also a local clock hour.
func Hour() Width { return Every(time.Hour) }

// Day returns the calendar day of the location, labelled like 2024-01-15.
func Day() Width { return Width{unit: day} }

// ISOWeek returns the ISO 8601 week (Monday to Sunday, week 1 holds the year's first
// Thursday), labelled like 2024-W03. Near January 1 its year can differ from the calendar
// year: 2021-01-01 is in 2020-W53 and 2024-12-30 is in 2025-W01.
func ISOWeek() Width { return Width{unit: isoWeek} }

// Month returns the calendar month of the location, labelled like 2024-01.
func Month() Width { return Width{unit: month} }

// Year returns the calendar year of the location, labelled like 2024.
func Year() Width { return Width{unit: year} }

// Every returns the fixed width d, such as Every(6*time.Hour) or Every(15*time.Minute).
// Its buckets are labelled by their UTC start at the precision d needs: 2024-01-15T06 when d
// is whole hours, 2024-01-15T10:15 when whole minutes, 2024-01-15T10:01:30 otherwise. New
// rejects a d that is not positive or not a whole number of seconds.
func Every(d time.Duration) Width { return Width{fixed: d} }

// ParseWidth reads a width as written in a flag or a config file: minute, hour, day,
// iso-week, month or year (any case), or a duration that time.ParseDuration accepts, such
// as 6h, 15m or 1h30m.
func ParseWidth(s string) (Width, error) {
	var w Width
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "minute":
		w = Minute()
	case "hour":
		w = Hour()
	case "day":
		w = Day()
	case "iso-week":
		w = ISOWeek()
	case "month":
		w = Month()
	case "year":
		w = Year()
	default:
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			var ok bool
			if d, ok = daysOrWeeks(strings.TrimSpace(s)); !ok {
				return Width{}, fmt.Errorf("bucket: %w %q: want minute, hour, day, iso-week, month, year or a duration such as 6h, 15m, 2d or 3w", ErrInvalidWidth, s)
			}
		}
		w = Every(d)
	}
	if err := w.check(); err != nil {
		return Width{}, err
	}
	return w, nil
}

// daysOrWeeks reads a whole number of days or weeks (2d, 3w), which time.ParseDuration
// does not: 3w is 504h, a fixed span counted from the epoch, not an ISO week.
func daysOrWeeks(s string) (time.Duration, bool) {
	if len(s) < 2 {
		return 0, false
	}
	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]|0x20]
	n, err := strconv.Atoi(s[:len(s)-1])
	if unit == 0 || err != nil || n <= 0 || n > 100000 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// check reports why w cannot cut time into buckets, or nil.
func (w Width) check() error {
	if w.unit != fixed {
		return nil
	}
	switch {
	case w.fixed <= 0:
		return fmt.Errorf("bucket: %w %s: must be positive", ErrInvalidWidth, w)
	case w.fixed%time.Second != 0:
		return fmt.Errorf("bucket: %w %s: must be a whole number of seconds", ErrInvalidWidth, w)
	}
	return nil
}

// seconds returns a fixed width in seconds.
func (w Width) seconds() int64 { return int64(w.fixed / time.Second) }

// String returns the width in the form ParseWidth reads: a name, or a duration such as 6h
// or 1h30m.
func (w Width) String() string {
	switch w.unit {
	case day:
		return "day"
	case isoWeek:
		return "iso-week"
	case month:
		return "month"
	case year:
		return "year"
	}
	switch d := w.fixed; {
	case d == time.Minute:
		return "minute"
	case d == time.Hour:
		return "hour"
	case d <= 0 || d%time.Second != 0:
		return d.String()
	default:
		// Like Duration.String without the zero parts: 6h, not 6h0m0s.
		var b []byte
		if h := d / time.Hour; h > 0 {
			b = strconv.AppendInt(b, int64(h), 10)
			b = append(b, 'h')
		}
		if m := d % time.Hour / time.Minute; m > 0 {
			b = strconv.AppendInt(b, int64(m), 10)
			b = append(b, 'm')
		}
		if s := d % time.Minute / time.Second; s > 0 {
			b = strconv.AppendInt(b, int64(s), 10)
			b = append(b, 's')
		}
		return string(b)
	}
}

// MarshalText writes the width as String does, so a Width can sit in a YAML or JSON config.
func (w Width) MarshalText() ([]byte, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	return []byte(w.String()), nil
}

// UnmarshalText reads the width as ParseWidth does.
func (w *Width) UnmarshalText(text []byte) error {
	v, err := ParseWidth(string(text))
	if err != nil {
		return err
	}
	*w = v
	return nil
}
