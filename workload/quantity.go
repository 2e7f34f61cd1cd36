package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/bucket"
)

// Day, Week, Month and Year are the calendar spans a workload may name. A month is its
// average length (30.44 days) where an average matters and 31 days where the longest
// bucket matters (see Span).
const (
	Day   = 24 * time.Hour
	Week  = 7 * Day
	Year  = time.Duration(365.2425 * float64(Day))
	Month = Year / 12
)

// ParseCount reads a non-negative count as people write them: 2000000, 2_000_000, 2e6,
// 2M, 1.5k, 3B (k, M, B and G are powers of 1000).
func ParseCount(s string) (float64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	if t == "" {
		return 0, fmt.Errorf("want a number, got nothing")
	}
	mult := 1.0
	switch t[len(t)-1] {
	case 'k', 'K':
		mult = 1e3
	case 'M':
		mult = 1e6
	case 'B', 'G':
		mult = 1e9
	}
	if mult != 1 {
		t = t[:len(t)-1]
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a number such as 50000, 2_000_000 or 2M, got %q", s)
	}
	v *= mult
	if math.IsInf(v, 0) { // 1e308k
		return 0, fmt.Errorf("want a number such as 50000, 2_000_000 or 2M, got %q: too large", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("want a number of zero or more, got %q", s)
	}
	return v, nil
}

// ParseFraction reads a fraction from 0 to 1: 0.3, 30%.
func ParseFraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("want a fraction such as 0.3 or 30%%, got %q", s)
	}
	if pct {
		v /= 100
	}
	if v < 0 || v > 1 {
		return 0, fmt.Errorf("want a fraction from 0 to 1 (0%% to 100%%), got %q", s)
	}
	return v, nil
}

// unitSpans are the time units a duration, a rate or a bucket width may name.
var unitSpans = map[string]time.Duration{
	"us": time.Microsecond, "µs": time.Microsecond, "ms": time.Millisecond,
	"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": Day, "day": Day, "days": Day,
	"w": Week, "week": Week, "weeks": Week, "iso-week": Week, "isoweek": Week,
	"month": Month, "months": Month, "mo": Month,
	"quarter": 3 * Month, "y": Year, "year": Year, "years": Year,
}

// ParseDuration reads a span of time: 90s, 30m, 1h, 30d, 2w, 6 months, 1y, 1h30m, or a plain
// number of seconds (86400), which is how default_time_to_live is written.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("want a duration such as 30d, 12h or 86400 (seconds), got nothing")
	}
	if n, err := strconv.ParseFloat(t, 64); err == nil {
		// float64(MaxInt64) is 2^63, one past the largest duration: >= keeps the product in range.
		if n < 0 || math.IsNaN(n) || n*1e9 >= float64(math.MaxInt64) {
			return 0, fmt.Errorf("want a duration of zero or more, got %q", s)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	if d, err := time.ParseDuration(t); err == nil {
		if d < 0 {
			return 0, fmt.Errorf("want a duration of zero or more, got %q", s)
		}
		return d, nil
	}
	num, unit := splitNumberUnit(t)
	span, ok := unitSpans[strings.ToLower(unit)]
	if !ok || num == "" {
		return 0, fmt.Errorf("want a duration such as 30d, 12h, 2w or 86400 (seconds), got %q", s)
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 || math.IsNaN(n) || n*float64(span) >= float64(math.MaxInt64) {
		return 0, fmt.Errorf("want a duration such as 30d, 12h, 2w or 86400 (seconds), got %q", s)
	}
	return time.Duration(n * float64(span)), nil
}

// splitNumberUnit splits "30d" into "30" and "d", "6 months" into "6" and "months".
func splitNumberUnit(s string) (num, unit string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// Rate is how many things happen per span of time: 50 rows per day per partition key.
type Rate struct {
	Count float64
	Per   time.Duration
}

// ParseRate reads a rate: 50/day, 3/hour, 1000/s, 2/iso-week, 10/6h, 1.5k/min.
func ParseRate(s string) (Rate, error) {
	i := strings.IndexByte(s, '/')
	if i < 0 {
		return Rate{}, fmt.Errorf("want a rate such as 50/day, 3/hour or 1000/s, got %q", s)
	}
	n, err := ParseCount(s[:i])
	if err != nil {
		return Rate{}, fmt.Errorf("rate %q: %w", s, err)
	}
	unit := strings.TrimSpace(s[i+1:])
	per, ok := unitSpans[strings.ToLower(unit)]
	if !ok {
		d, err := ParseDuration(unit)
		if err != nil || d <= 0 {
			return Rate{}, fmt.Errorf("want a rate such as 50/day, 3/hour or 1000/s, got %q: unknown unit %q", s, unit)
		}
		per = d
	}
	return Rate{Count: n, Per: per}, nil
}

// IsZero reports whether the rate was not set.
func (r Rate) IsZero() bool { return r.Per == 0 }

// PerSecond is the rate in events per second.
func (r Rate) PerSecond() float64 {
	if r.Per <= 0 {
		return 0
	}
	return r.Count / r.Per.Seconds()
}

// Over is how many events happen in d.
func (r Rate) Over(d time.Duration) float64 { return r.PerSecond() * d.Seconds() }

func (r Rate) String() string {
	if r.IsZero() {
		return "0"
	}
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"year", Year}, {"month", Month}, {"week", Week}, {"day", Day}, {"hour", time.Hour}, {"min", time.Minute}, {"s", time.Second}} {
		if r.Per == u.d {
			return FormatNumber(r.Count) + "/" + u.name
		}
	}
	return FormatNumber(r.Count) + "/" + r.Per.String()
}

// Span is how long one partition of a time-bucketed table receives writes, as lengths of
// time: Avg is the average length of a bucket (what sets the number of partitions and the
// typical one) and Max the longest (what sets the largest: 31 days for a month, 366 for a
// year). It is not bucket.Width, which says where buckets start and how they are labelled in
// a time zone; a Span only measures them, so sizing needs no location. The zero Span means no
// bucket bounds the partition.
type Span struct {
	Name string
	Avg  time.Duration
	Max  time.Duration
}

// IsZero reports whether no width was given.
func (w Span) IsZero() bool { return w.Avg == 0 }

// String is the bucket's name (month, 6h), or "none" for the zero Span, so an unbucketed
// table never prints as an empty string.
func (w Span) String() string {
	if w.IsZero() {
		return "none"
	}
	return w.Name
}

// calendarWidths are the lengths of the bucket package's calendar widths.
var calendarWidths = map[string]Span{
	"minute":   {"minute", time.Minute, time.Minute},
	"hour":     {"hour", time.Hour, time.Hour},
	"day":      {"day", Day, Day},
	"iso-week": {"iso-week", Week, Week},
	"month":    {"month", Month, 31 * Day},
	"year":     {"year", Year, 366 * Day},
}

// ParseSpan reads a bucket's span as the bucket package reads a width (bucket.ParseWidth): minute,
// hour, day, iso-week, month, year, or a duration such as 6h, 15m, 2d or 3w.
func ParseSpan(s string) (Span, error) {
	bw, err := bucket.ParseWidth(s)
	if err != nil {
		return Span{}, err
	}
	name := bw.String()
	if w, ok := calendarWidths[name]; ok {
		return w, nil
	}
	d, err := time.ParseDuration(name)
	if err != nil {
		return Span{}, fmt.Errorf("bucket width %q: %w", s, err)
	}
	return Span{Name: name, Avg: d, Max: d}, nil
}

// FormatDuration renders d in the largest unit that keeps it readable: 30d, 6h, 90s, 1.5y.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d >= Year:
		return FormatNumber(float64(d)/float64(Year)) + "y"
	case d >= 2*Day || d%Day == 0:
		return FormatNumber(float64(d)/float64(Day)) + "d"
	case d >= time.Hour:
		return FormatNumber(float64(d)/float64(time.Hour)) + "h"
	case d >= time.Minute:
		return FormatNumber(float64(d)/float64(time.Minute)) + "m"
	case d >= time.Second:
		return FormatNumber(d.Seconds()) + "s"
	}
	return d.String()
}

// FormatNumber prints up to three significant decimals without trailing zeros.
func FormatNumber(v float64) string {
	if math.Abs(v) >= 1e15 || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
