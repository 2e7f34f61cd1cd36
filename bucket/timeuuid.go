package bucket

import (
	"fmt"
	"time"
)

// A version 1 UUID (a Cassandra timeuuid) holds a 60-bit count of 100 ns intervals since
// 1582-10-15T00:00:00Z, the start of the Gregorian calendar: the low 32 bits in bytes 0-3,
// the middle 16 in bytes 4-5, the high 12 in bytes 6-7 after the version nibble.

// uuidEpochTicks is the Unix epoch in 100 ns intervals since 1582-10-15T00:00:00Z.
const (
	uuidEpochTicks = 0x01B21DD213814000
	maxUUIDTicks   = 1<<60 - 1
	ticksPerSecond = 10_000_000
)

// UUIDTime returns the instant, to 100 ns and in UTC, held by a version 1 UUID such as a
// Cassandra timeuuid, so that a row's bucket can be chosen from its id. It fails, wrapping
// ErrNotTimeUUID, when u is not version 1 (a random version 4 UUID holds no time). Like
// Cassandra, it checks the version and not the variant.
func UUIDTime(u [16]byte) (time.Time, error) {
	if v := u[6] >> 4; v != 1 {
		return time.Time{}, fmt.Errorf("bucket: %w: %s is version %d", ErrNotTimeUUID, formatUUID(u), v)
	}
	ticks := int64(u[6]&0x0f)<<56 | int64(u[7])<<48 | int64(u[4])<<40 | int64(u[5])<<32 |
		int64(u[0])<<24 | int64(u[1])<<16 | int64(u[2])<<8 | int64(u[3])
	ticks -= uuidEpochTicks
	sec := floorDiv(ticks, ticksPerSecond)
	return time.Unix(sec, (ticks-sec*ticksPerSecond)*100).UTC(), nil
}

// ParseUUIDTime is UUIDTime for a UUID in its text form, 8-4-4-4-12 hex digits in either
// case, such as c232ab00-9414-11ec-b3c8-9f6bdeced846. Malformed text is a *ParseError.
func ParseUUIDTime(s string) (time.Time, error) {
	u, err := parseUUID(s)
	if err != nil {
		return time.Time{}, err
	}
	return UUIDTime(u)
}

// MinTimeUUID returns the smallest timeuuid, in Cassandra's timeuuid order, at instant t,
// like CQL's minTimeuuid: the bound for "id >= MinTimeUUID(from)". For a half-open read of
// [from, to) use id >= MinTimeUUID(from) AND id < MinTimeUUID(to).
//
// The result is a range bound, never an id: every call for the same instant returns the
// same bytes, so rows written with it would overwrite one another. Unlike CQL, which takes
// milliseconds, t counts to 100 ns. Instants before 1582-10-15 or after the year 5236, which
// no timeuuid can hold, give the smallest or the largest time a timeuuid holds.
func MinTimeUUID(t time.Time) [16]byte {
	// Cassandra compares the last 8 bytes as signed bytes, so the smallest is 0x80 each.
	return timeUUID(t, 0x80)
}

// MaxTimeUUID returns the largest timeuuid, in Cassandra's timeuuid order, at instant t,
// like CQL's maxTimeuuid: the bound for "id <= MaxTimeUUID(to)", which includes ids made
// during the 100 ns at t. Like MinTimeUUID it is a range bound, never an id.
func MaxTimeUUID(t time.Time) [16]byte {
	// Signed, the largest last byte is 0x7f.
	return timeUUID(t, 0x7f)
}

func timeUUID(t time.Time, tail byte) [16]byte {
	// Clamp to a second either side of what a timeuuid holds first, so the arithmetic below
	// cannot overflow, then exactly.
	sec := clampUnix(t, -uuidEpochTicks/ticksPerSecond-1, (maxUUIDTicks-uuidEpochTicks)/ticksPerSecond+1)
	ticks := min(max(sec*ticksPerSecond+int64(t.Nanosecond()/100)+uuidEpochTicks, 0), maxUUIDTicks)
	var u [16]byte
	u[0], u[1], u[2], u[3] = byte(ticks>>24), byte(ticks>>16), byte(ticks>>8), byte(ticks)
	u[4], u[5] = byte(ticks>>40), byte(ticks>>32)
	u[6], u[7] = 0x10|byte(ticks>>56)&0x0f, byte(ticks>>48)
	for i := 8; i < 16; i++ {
		u[i] = tail
	}
	return u
}

const hexDigits = "0123456789abcdef"

// formatUUID writes u in its 8-4-4-4-12 text form.
func formatUUID(u [16]byte) string {
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexDigits[c>>4], hexDigits[c&0x0f]
		j += 2
	}
	return string(b[:])
}

func parseUUID(s string) ([16]byte, error) {
	const want = "a UUID as 8-4-4-4-12 hex digits, such as c232ab00-9414-11ec-b3c8-9f6bdeced846"
	var u [16]byte
	if len(s) != 36 {
		return u, &ParseError{Text: s, Want: want, Reason: fmt.Sprintf("it has %d characters, not 36", len(s))}
	}
	j := 0
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return u, &ParseError{Text: s, Want: want, Reason: fmt.Sprintf("character %d is %q, not '-'", i+1, s[i])}
			}
			continue
		}
		v, ok := unhex(s[i])
		if !ok {
			return u, &ParseError{Text: s, Want: want, Reason: fmt.Sprintf("character %d, %q, is not a hex digit", i+1, s[i])}
		}
		u[j/2] |= v << (4 * (1 - j%2))
		j++
	}
	return u, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
