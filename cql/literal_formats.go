package cql

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// The string forms of dates, times, timestamps and addresses, and the units of a duration,
// as far as they can be judged for sure: each rule below refuses only a string no parser of
// the node reads, in a shape its parsers do read (a day 45 in "yyyy-MM-dd", an hour 25 in
// "hh:mm:ss"), and the messages are the node's own (the wide corpus, insert.cql and
// literals.cql, holds the 5.0.9 verdicts). Anything else in a string stays the node's to
// judge: the timestamp parser alone takes a dozen layouts and time zones.

var (
	rawDays     = regexp.MustCompile(`^-?\d+$`)
	dateLayout  = regexp.MustCompile(`^(-?\d+)-(\d{1,2})-(\d{1,2})$`)
	timeLayout  = regexp.MustCompile(`^(\d+):(\d+):(\d+)(\.\d{1,9})?$`)
	dottedQuad  = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)\.(\d+)$`)
	durationStd = regexp.MustCompile(`(?i)(\d+)(y|mo|w|d|h|ms|m|s|us|µs|ns)`)
)

// The years of the first and last day a date holds: the days since 1970-01-01 fit a Java
// int, from -5877641-06-23 to 5881580-07-11. Only a year outside them is refused for sure.
const minDateYear, maxDateYear = -5877641, 5881580

// stringFormat refuses a string constant that the node cannot read as a value of ty.
func stringFormat(ty Type, v *Term) error {
	s := v.Value
	switch ty.Name {
	case "date":
		return dateString(v, s)
	case "time":
		if strings.TrimSpace(s) == "" {
			return Errorf(v.Pos, "(TimeType) Unable to coerce '%s' to a formatted time (long)", s)
		}
		if m := timeLayout.FindStringSubmatch(s); m != nil {
			h, _ := strconv.Atoi(m[1])
			mi, _ := strconv.Atoi(m[2])
			sec, _ := strconv.Atoi(m[3])
			if len(m[1]) > 2 || len(m[2]) > 2 || len(m[3]) > 2 || h > 23 || mi > 59 || sec > 59 {
				return Errorf(v.Pos, "(TimeType) Unable to coerce '%s' to a formatted time (long)", s)
			}
		}
	case "timestamp":
		// Every layout the node reads starts with a year, and "now" is the one word it takes
		// ('' is an empty value, which a timestamp takes; ' ' is not).
		if s != "" && !strings.ContainsAny(s, "0123456789") && !strings.EqualFold(strings.TrimSpace(s), "now") {
			return Errorf(v.Pos, "Unable to parse a date/time from '%s'", s)
		}
	case "inet":
		// Four numbers and dots are read as an IPv4 address, or not at all: the node would
		// otherwise look the string up as a host name, and no host is named by digits alone.
		if m := dottedQuad.FindStringSubmatch(s); m != nil {
			for _, part := range m[1:] {
				if n, err := strconv.Atoi(part); err != nil || n > 255 {
					return Errorf(v.Pos, "Unable to make inet address from '%s'", s)
				}
			}
		}
	}
	return nil
}

// dateString judges a date written as days (an unsigned count, epoch at 2^31) or as
// yyyy-MM-dd.
func dateString(v *Term, s string) error {
	if strings.TrimSpace(s) == "" {
		return Errorf(v.Pos, "Unable to coerce '%s' to a formatted date (long)", s) // no empty value for a date
	}
	if rawDays.MatchString(s) {
		n, ok := new(big.Int).SetString(s, 10)
		if !ok || n.Sign() < 0 || n.Cmp(big.NewInt(1<<32-1)) > 0 {
			return Errorf(v.Pos, "Unable to make unsigned int (for date) from: '%s'", s)
		}
		return nil
	}
	m := dateLayout.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	year, err := strconv.Atoi(m[1])
	if err != nil || year < minDateYear {
		return Errorf(v.Pos, "Input date %s is less than min supported date -5877641-06-23", s)
	}
	if year > maxDateYear {
		return Errorf(v.Pos, "Input date %s is greater than max supported date 5881580-07-11", s)
	}
	month, _ := strconv.Atoi(m[2])
	day, _ := strconv.Atoi(m[3])
	// 29 days for February whatever the year: a leap year is the node's to judge.
	days := [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	if month < 1 || month > 12 || day < 1 || day > days[month] {
		return Errorf(v.Pos, "Unable to coerce '%s' to a formatted date (long)", s)
	}
	return nil
}

// durationRepeats refuses a duration constant in the standard form (1h30m) that names a unit
// twice, as the node does ("The hours are specified multiple times"). The ISO forms (P1D,
// PT2H) are left to the node.
func durationRepeats(v *Term) error {
	text := strings.TrimPrefix(v.Text, "-")
	if strings.HasPrefix(strings.ToUpper(text), "P") {
		return nil
	}
	names := map[string]string{"y": "years", "mo": "months", "w": "weeks", "d": "days", "h": "hours",
		"m": "minutes", "s": "seconds", "ms": "milliseconds", "us": "microseconds", "µs": "microseconds", "ns": "nanoseconds"}
	seen := map[string]bool{}
	for _, m := range durationStd.FindAllStringSubmatch(text, -1) {
		unit := names[strings.ToLower(m[2])]
		if seen[unit] {
			return Errorf(v.Pos, "Invalid duration. The %s are specified multiple times", unit)
		}
		seen[unit] = true
	}
	return nil
}
