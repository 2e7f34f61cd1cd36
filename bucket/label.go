package bucket

import (
	"fmt"
	"strconv"
	"time"
)

// Labels are written and read here without the time package's layouts, so that every
// bucket (any year, any width) has exactly one label and Parse accepts exactly that label.

// precision of a fixed width's label: how many clock fields it needs.
type precision int

const (
	toHour precision = iota
	toMinute
	toSecond
)

func (w Width) precision() precision {
	switch s := w.seconds(); {
	case s%3600 == 0:
		return toHour
	case s%60 == 0:
		return toMinute
	}
	return toSecond
}

func (s Scheme) appendLabel(b []byte, k Bucket) []byte {
	switch s.width.unit {
	case day:
		return appendDate(b, k.key)
	case isoWeek:
		y, w := isoWeekOf(k.key)
		return append2(append(appendYear(b, y), '-', 'W'), w)
	case month:
		return append2(append(appendYear(b, floorDiv(k.key, 12)), '-'), int(floorMod(k.key, 12))+1)
	case year:
		return appendYear(b, k.key)
	}
	dayNum := floorDiv(k.start, secondsPerDay)
	sec := int(k.start - dayNum*secondsPerDay)
	b = append2(append(appendDate(b, dayNum), 'T'), sec/3600)
	if p := s.width.precision(); p >= toMinute {
		b = append2(append(b, ':'), sec/60%60)
		if p == toSecond {
			b = append2(append(b, ':'), sec%60)
		}
	}
	return b
}

// appendYear writes four digits for years 0 to 9999, and a sign outside them.
func appendYear(b []byte, y int64) []byte {
	switch {
	case y > 9999:
		return strconv.AppendInt(append(b, '+'), y, 10)
	case y < 0:
		b = append(b, '-')
		y = -y
	}
	for p := int64(1000); p > 1 && y < p; p /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, y, 10)
}

// appendDate writes day number dayNum as YYYY-MM-DD.
func appendDate(b []byte, dayNum int64) []byte {
	y, m, d := civilFromDays(dayNum)
	return append2(append(append2(append(appendYear(b, y), '-'), m), '-'), d)
}

// append2 writes a two-digit field, 0 to 99.
func append2(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

// want describes the label form, with the label of the bucket holding
// 2024-01-15T10:04:05Z as the example.
func (s Scheme) want() string {
	var form string
	switch s.width.unit {
	case day:
		form = "YYYY-MM-DD"
	case isoWeek:
		form = "YYYY-Www"
	case month:
		form = "YYYY-MM"
	case year:
		form = "YYYY"
	default:
		form = [...]string{"YYYY-MM-DDTHH", "YYYY-MM-DDTHH:MM", "YYYY-MM-DDTHH:MM:SS"}[s.width.precision()] + " in UTC"
	}
	example := Scheme{width: s.width}.For(time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC))
	return form + ", such as " + example.String()
}

// parseKey reads a label into the key of the bucket it names.
func (s Scheme) parseKey(text string) (int64, error) {
	p := labelParser{text: text, rest: text, want: s.want()}
	y, err := p.year()
	if err != nil {
		return 0, err
	}
	if s.width.unit == year {
		return y, p.end()
	}
	if s.width.unit == isoWeek {
		if err := p.literal("-W"); err != nil {
			return 0, err
		}
		w, err := p.field("week", 1, 53)
		if err != nil {
			return 0, err
		}
		if n := weeksIn(y); w > n {
			return 0, p.fail(fmt.Sprintf("ISO year %s has %d weeks", appendYear(nil, y), n))
		}
		return isoWeekIndex(firstMonday(y)) + int64(w-1), p.end()
	}
	if err := p.literal("-"); err != nil {
		return 0, err
	}
	m, err := p.field("month", 1, 12)
	if err != nil {
		return 0, err
	}
	if s.width.unit == month {
		return y*12 + int64(m-1), p.end()
	}
	if err := p.literal("-"); err != nil {
		return 0, err
	}
	d, err := p.field("day", 1, daysIn(y, m))
	if err != nil {
		return 0, err
	}
	dayNum := daysFromCivil(y, m, d)
	if s.width.unit == day {
		return dayNum, p.end()
	}

	sec := dayNum * secondsPerDay
	if err := p.literal("T"); err != nil {
		return 0, err
	}
	hh, err := p.field("hour", 0, 23)
	if err != nil {
		return 0, err
	}
	sec += int64(hh) * 3600
	prec := s.width.precision()
	if prec >= toMinute {
		if err := p.literal(":"); err != nil {
			return 0, err
		}
		mm, err := p.field("minute", 0, 59)
		if err != nil {
			return 0, err
		}
		sec += int64(mm) * 60
	}
	if prec == toSecond {
		if err := p.literal(":"); err != nil {
			return 0, err
		}
		ss, err := p.field("second", 0, 59)
		if err != nil {
			return 0, err
		}
		sec += int64(ss)
	}
	if err := p.end(); err != nil {
		return 0, err
	}
	if floorMod(sec, s.width.seconds()) != 0 {
		return 0, p.fail(fmt.Sprintf("it is not the start of a %s bucket; those start every %s from 1970-01-01T00:00:00Z", s.width, s.width))
	}
	return floorDiv(sec, s.width.seconds()), nil
}

type labelParser struct {
	text, rest, want string
}

func (p *labelParser) fail(reason string) error {
	return &ParseError{Text: p.text, Want: p.want, Reason: reason}
}

// digits takes the run of ASCII digits at the start of the rest.
func (p *labelParser) digits() string {
	i := 0
	for i < len(p.rest) && '0' <= p.rest[i] && p.rest[i] <= '9' {
		i++
	}
	run := p.rest[:i]
	p.rest = p.rest[i:]
	return run
}

func (p *labelParser) year() (int64, error) {
	sign := byte(0)
	if p.rest != "" && (p.rest[0] == '+' || p.rest[0] == '-') {
		sign, p.rest = p.rest[0], p.rest[1:]
	}
	run := p.digits()
	if run == "" {
		return 0, p.fail("it does not start with a year")
	}
	if len(run) > 11 {
		return 0, p.fail("the year has more than 11 digits")
	}
	y, _ := strconv.ParseInt(run, 10, 64) // cannot fail: 1 to 11 digits
	switch {
	case sign == 0 && len(run) != 4:
		return 0, p.fail("the year must have 4 digits; years past 9999 are written with a sign, as +10000")
	case sign == '+' && y <= 9999:
		return 0, p.fail("only years past 9999 are written with a '+'")
	case sign == '-' && y == 0:
		return 0, p.fail("year 0 is written 0000")
	case sign != 0 && len(run) < 4, sign != 0 && len(run) > 4 && run[0] == '0':
		return 0, p.fail("a signed year has at least 4 digits and no extra leading zeros")
	case sign == '-':
		y = -y
	}
	return y, nil
}

// field takes a two-digit number between lo and hi.
func (p *labelParser) field(name string, lo, hi int) (int, error) {
	run := p.digits()
	if len(run) != 2 {
		return 0, p.fail(fmt.Sprintf("the %s must have 2 digits", name))
	}
	n := int(run[0]-'0')*10 + int(run[1]-'0')
	if n < lo || n > hi {
		return 0, p.fail(fmt.Sprintf("%s %s is out of range %02d-%02d", name, run, lo, hi))
	}
	return n, nil
}

func (p *labelParser) literal(lit string) error {
	if len(p.rest) < len(lit) || p.rest[:len(lit)] != lit {
		if p.rest == "" {
			return p.fail(fmt.Sprintf("it ends where %q should follow", lit))
		}
		return p.fail(fmt.Sprintf("found %q where %q should be", p.rest[:min(len(p.rest), len(lit))], lit))
	}
	p.rest = p.rest[len(lit):]
	return nil
}

func (p *labelParser) end() error {
	if p.rest != "" {
		return p.fail(fmt.Sprintf("unexpected %q after the label", p.rest))
	}
	return nil
}
