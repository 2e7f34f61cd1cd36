package bucket

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestParseWidth(t *testing.T) {
	tests := []struct {
		in   string
		want Width
		name string // Width.String
	}{
		{"minute", Minute(), "minute"},
		{"hour", Hour(), "hour"},
		{"day", Day(), "day"},
		{"iso-week", ISOWeek(), "iso-week"},
		{"month", Month(), "month"},
		{"year", Year(), "year"},
		{" Month ", Month(), "month"},
		{"DAY", Day(), "day"},
		{"6h", Every(6 * time.Hour), "6h"},
		{"3w", Every(504 * time.Hour), "504h"},
		{"2D", Every(48 * time.Hour), "48h"},
		{"15m", Every(15 * time.Minute), "15m"},
		{"1h30m", Every(90 * time.Minute), "1h30m"},
		{"90s", Every(90 * time.Second), "1m30s"},
		{"60m", Hour(), "hour"},
		{"1m", Minute(), "minute"},
		{"24h", Every(24 * time.Hour), "24h"},
		{"1s", Every(time.Second), "1s"},
	}
	for _, tt := range tests {
		got, err := ParseWidth(tt.in)
		if err != nil {
			t.Errorf("ParseWidth(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want || got.String() != tt.name {
			t.Errorf("ParseWidth(%q) = %v, want %v (%s)", tt.in, got, tt.want, tt.name)
		}
		again, err := ParseWidth(got.String())
		if err != nil || again != got {
			t.Errorf("ParseWidth(%q) = %v, %v: String does not round-trip", got.String(), again, err)
		}
	}
}

func TestParseWidthErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", `bucket: invalid width "": want minute, hour, day, iso-week, month, year or a duration such as 6h, 15m, 2d or 3w`},
		{"fortnight", `bucket: invalid width "fortnight": want minute, hour, day, iso-week, month, year or a duration such as 6h, 15m, 2d or 3w`},
		{"week", `bucket: invalid width "week": want minute, hour, day, iso-week, month, year or a duration such as 6h, 15m, 2d or 3w`},
		{"0s", "bucket: invalid width 0s: must be positive"},
		{"-6h", "bucket: invalid width -6h0m0s: must be positive"},
		{"1.5s", "bucket: invalid width 1.5s: must be a whole number of seconds"},
		{"500ms", "bucket: invalid width 500ms: must be a whole number of seconds"},
	}
	for _, tt := range tests {
		_, err := ParseWidth(tt.in)
		if !errors.Is(err, ErrInvalidWidth) {
			t.Errorf("ParseWidth(%q) error = %v, want ErrInvalidWidth", tt.in, err)
			continue
		}
		if err.Error() != tt.msg {
			t.Errorf("ParseWidth(%q) error\n got %s\nwant %s", tt.in, err, tt.msg)
		}
	}
}

func TestNewRejectsBadWidths(t *testing.T) {
	for _, w := range []Width{{}, Every(0), Every(-time.Hour), Every(time.Millisecond), Every(1500 * time.Millisecond)} {
		s, err := New(w)
		if !errors.Is(err, ErrInvalidWidth) {
			t.Errorf("New(%v) error = %v, want ErrInvalidWidth", w, err)
		}
		if s != (Scheme{}) {
			t.Errorf("New(%v) = %v with an error, want the zero Scheme", w, s)
		}
	}
}

// The zero Scheme and zero Bucket are misuse, not input, but must not panic.
func TestZeroValuesDoNotPanic(t *testing.T) {
	var s Scheme
	now := time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC)
	if b := s.For(now); b != (Bucket{}) {
		t.Errorf("zero Scheme For = %v, want the zero Bucket", b)
	}
	var b Bucket
	if b.String() != "" || !b.Start().IsZero() || !b.End().IsZero() || b.Next() != (Bucket{}) || b.Prev() != (Bucket{}) {
		t.Errorf("zero Bucket methods returned non-zero values")
	}
	if _, err := s.Parse("2024"); !errors.Is(err, ErrInvalidWidth) {
		t.Errorf("zero Scheme Parse error = %v, want ErrInvalidWidth", err)
	}
	if _, err := s.Between(now, now.Add(time.Hour), 10); !errors.Is(err, ErrInvalidWidth) {
		t.Errorf("zero Scheme Between error = %v, want ErrInvalidWidth", err)
	}
	if _, err := s.Newest(now, now.Add(time.Hour), 10); !errors.Is(err, ErrInvalidWidth) {
		t.Errorf("zero Scheme Newest error = %v, want ErrInvalidWidth", err)
	}
	if _, err := s.Partitions(now, now.Add(time.Hour), 2, 10); !errors.Is(err, ErrInvalidWidth) {
		t.Errorf("zero Scheme Partitions error = %v, want ErrInvalidWidth", err)
	}
}

func TestWidthText(t *testing.T) {
	var cfg struct {
		Width Width `json:"width"`
	}
	if err := json.Unmarshal([]byte(`{"width":"6h"}`), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Width != Every(6*time.Hour) {
		t.Errorf("unmarshalled width = %v, want 6h", cfg.Width)
	}
	out, err := json.Marshal(struct{ W Width }{ISOWeek()})
	if err != nil || string(out) != `{"W":"iso-week"}` {
		t.Errorf("json.Marshal(iso-week) = %s, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"width":"fortnight"}`), &cfg); !errors.Is(err, ErrInvalidWidth) {
		t.Errorf("unmarshal fortnight error = %v, want ErrInvalidWidth", err)
	}
	if _, err := json.Marshal(struct{ W Width }{}); !errors.Is(err, ErrInvalidWidth) {
		t.Errorf("marshal zero Width error = %v, want ErrInvalidWidth", err)
	}
}

func TestSchemeAccessors(t *testing.T) {
	s := mustNew(t, Month())
	if s.Width() != Month() || s.Location() != time.UTC {
		t.Errorf("New(Month()) = %v in %v", s.Width(), s.Location())
	}
	berlin := mustLoad(t, "Europe/Berlin")
	if got := s.In(berlin).Location(); got != berlin {
		t.Errorf("In(berlin).Location() = %v", got)
	}
	if s.In(nil) != s || s.In(time.UTC) != s {
		t.Errorf("In(nil) and In(time.UTC) should both be the UTC scheme")
	}
}

func mustNew(t testing.TB, w Width) Scheme {
	t.Helper()
	s, err := New(w)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
