package bucket

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func mustParseUUID(t testing.TB, s string) [16]byte {
	t.Helper()
	u, err := parseUUID(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestUUIDTime(t *testing.T) {
	tests := []struct {
		uuid string
		want time.Time
	}{
		// RFC 9562, appendix A.1.
		{"c232ab00-9414-11ec-b3c8-9f6bdeced846", utc(2022, 2, 22, 19, 22, 22)},
		{"C232AB00-9414-11EC-B3C8-9F6BDECED846", utc(2022, 2, 22, 19, 22, 22)},
		// The Gregorian epoch, the Unix epoch, and the last instant a timeuuid holds.
		{"00000000-0000-1000-8000-000000000000", utc(1582, 10, 15, 0, 0, 0)},
		{"13814000-1dd2-11b2-8080-808080808080", utc(1970, 1, 1, 0, 0, 0)},
		{"ffffffff-ffff-1fff-bfff-ffffffffffff", time.Date(5236, 3, 31, 21, 21, 0, 684697500, time.UTC)},
		// Made by a driver; 100 ns precision survives.
		{"e8b0a4b0-b2ec-11ee-9d5f-0242ac120002", time.Date(2024, 1, 14, 14, 55, 8, 98065600, time.UTC)},
	}
	for _, tt := range tests {
		got, err := ParseUUIDTime(tt.uuid)
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseUUIDTime(%s) = %v, %v, want %v", tt.uuid, got, err, tt.want)
		}
		fromBytes, err := UUIDTime(mustParseUUID(t, tt.uuid))
		if err != nil || !fromBytes.Equal(got) {
			t.Errorf("UUIDTime(%s) = %v, %v, want %v", tt.uuid, fromBytes, err, got)
		}
		if f := formatUUID(mustParseUUID(t, tt.uuid)); f != strings.ToLower(tt.uuid) {
			t.Errorf("formatUUID = %s, want %s", f, strings.ToLower(tt.uuid))
		}
	}
}

func TestUUIDTimeRejectsOtherVersions(t *testing.T) {
	for _, s := range []string{
		"0b0c8f4e-5a2b-4c3d-9e8f-0a1b2c3d4e5f", // random, version 4
		"00000000-0000-0000-0000-000000000000", // nil UUID
		"017f22e2-79b0-7cc3-98c4-dc0c0c07398f", // version 7, which holds Unix milliseconds, not a v1 time
	} {
		_, err := ParseUUIDTime(s)
		if !errors.Is(err, ErrNotTimeUUID) {
			t.Errorf("ParseUUIDTime(%s) error = %v, want ErrNotTimeUUID", s, err)
		}
	}
	_, err := ParseUUIDTime("0b0c8f4e-5a2b-4c3d-9e8f-0a1b2c3d4e5f")
	const want = "bucket: not a time-based (version 1) uuid: 0b0c8f4e-5a2b-4c3d-9e8f-0a1b2c3d4e5f is version 4"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant  %s", err, want)
	}
}

func TestParseUUIDErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"", "it has 0 characters, not 36"},
		{"c232ab00941411ecb3c89f6bdeced846", "it has 32 characters, not 36"},
		{"{c232ab00-9414-11ec-b3c8-9f6bdeced846}", "it has 38 characters, not 36"},
		{"c232ab00-9414-11ec-b3c8_9f6bdeced846", "character 24 is '_', not '-'"},
		{"c232ab00-9414-11ec-b3c8-9f6bdeced84g", `character 36, 'g', is not a hex digit`},
	}
	for _, tt := range tests {
		_, err := ParseUUIDTime(tt.in)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Reason != tt.reason || !strings.Contains(pe.Want, "8-4-4-4-12") {
			t.Errorf("ParseUUIDTime(%q) error = %v, want a *ParseError saying %q", tt.in, err, tt.reason)
		}
	}
}

// Recorded from Cassandra 5.0.9: SELECT minTimeuuid('2024-01-15 10:04:05.123+0000'),
// maxTimeuuid('2024-01-15 10:04:05.123+0000') FROM system.local. CQL's maxTimeuuid covers
// the whole millisecond; MaxTimeUUID takes the last 100 ns of it.
func TestMinMaxTimeUUIDMatchCassandra(t *testing.T) {
	at := time.Date(2024, 1, 15, 10, 4, 5, 123_000_000, time.UTC)
	if got := formatUUID(MinTimeUUID(at)); got != "6a5bdd30-b38d-11ee-8080-808080808080" {
		t.Errorf("MinTimeUUID = %s, want Cassandra's 6a5bdd30-b38d-11ee-8080-808080808080", got)
	}
	if got := formatUUID(MaxTimeUUID(at.Add(time.Millisecond - 100))); got != "6a5c043f-b38d-11ee-7f7f-7f7f7f7f7f7f" {
		t.Errorf("MaxTimeUUID = %s, want Cassandra's 6a5c043f-b38d-11ee-7f7f-7f7f7f7f7f7f", got)
	}
}

// cassandraCompare orders timeuuids as Cassandra's TimeUUIDType does: by time, then by the
// last 8 bytes compared as signed bytes.
func cassandraCompare(a, b [16]byte) int {
	ta, _ := UUIDTime(a)
	tb, _ := UUIDTime(b)
	if c := ta.Compare(tb); c != 0 {
		return c
	}
	for i := 8; i < 16; i++ {
		if x, y := int8(a[i]), int8(b[i]); x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Any timeuuid made at t sorts between MinTimeUUID(t) and MaxTimeUUID(t), and after
// MaxTimeUUID of the instant 100 ns earlier; the time survives the round trip to 100 ns.
func TestMinMaxTimeUUIDBoundIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lo, hi := utc(1583, 1, 1, 0, 0, 0).Unix(), utc(5236, 1, 1, 0, 0, 0).Unix()
	for range 10_000 {
		at := time.Unix(lo+rng.Int64N(hi-lo), rng.Int64N(1e9))
		mn, mx := MinTimeUUID(at), MaxTimeUUID(at)
		got, err := UUIDTime(mn)
		if err != nil || !got.Equal(at.Truncate(100)) {
			t.Fatalf("UUIDTime(MinTimeUUID(%v)) = %v, %v", at, got, err)
		}
		id := mn
		for i := 8; i < 16; i++ {
			id[i] = byte(rng.Uint32())
		}
		id[8] = id[8]&0x3f | 0x80 // RFC 4122 variant, as drivers write
		if cassandraCompare(mn, id) > 0 || cassandraCompare(id, mx) > 0 {
			t.Fatalf("id %s made at %v is outside [%s, %s]", formatUUID(id), at, formatUUID(mn), formatUUID(mx))
		}
		if before := MaxTimeUUID(at.Add(-100)); cassandraCompare(before, mn) >= 0 {
			t.Fatalf("MaxTimeUUID(t-100ns) %s does not sort before MinTimeUUID(t) %s", formatUUID(before), formatUUID(mn))
		}
	}
}

func TestTimeUUIDClampsToWhatATimeuuidHolds(t *testing.T) {
	first := mustParseUUID(t, "00000000-0000-1000-8080-808080808080")
	last := mustParseUUID(t, "ffffffff-ffff-1fff-7f7f-7f7f7f7f7f7f")
	for _, at := range []time.Time{{}, utc(1582, 10, 14, 23, 59, 59), earliestTime(), earliestTime().Add(time.Hour)} {
		if got := MinTimeUUID(at); got != first {
			t.Errorf("MinTimeUUID(%v) = %s, want %s", at, formatUUID(got), formatUUID(first))
		}
	}
	for _, at := range []time.Time{utc(5237, 1, 1, 0, 0, 0), utc(9999, 1, 1, 0, 0, 0), latestTime(), latestTime().Add(-time.Hour)} {
		if got := MaxTimeUUID(at); got != last {
			t.Errorf("MaxTimeUUID(%v) = %s, want %s", at, formatUUID(got), formatUUID(last))
		}
	}
	if got := MinTimeUUID(utc(1582, 10, 15, 0, 0, 0)); !bytes.Equal(got[:8], first[:8]) {
		t.Errorf("MinTimeUUID(Gregorian epoch) = %s", formatUUID(got))
	}
}
