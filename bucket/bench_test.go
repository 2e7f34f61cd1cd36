package bucket

import (
	"testing"
	"time"
)

// b.Loop keeps the results of calls in its body alive, so no sink variables are needed.

func BenchmarkFor(b *testing.B) {
	at := time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC)
	for _, bc := range []struct {
		name  string
		width Width
		zone  string
	}{
		{"hour", Hour(), "UTC"},
		{"6h", Every(6 * time.Hour), "UTC"},
		{"day/UTC", Day(), "UTC"},
		{"day/New_York", Day(), "America/New_York"},
		{"iso-week/Berlin", ISOWeek(), "Europe/Berlin"},
		{"month/UTC", Month(), "UTC"},
		{"month/New_York", Month(), "America/New_York"},
	} {
		s := mustNew(b, bc.width).In(mustLoad(b, bc.zone))
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				s.For(at.Add(time.Duration(i) * time.Minute))
			}
		})
	}
}

func BenchmarkString(b *testing.B) {
	bk := mustNew(b, Day()).For(time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC))
	for b.Loop() {
		_ = bk.String()
	}
}

func BenchmarkShard(b *testing.B) {
	postID := [16]byte{0xc2, 0x32, 0xab, 0x00, 0x94, 0x14, 0x11, 0xec, 0xb3, 0xc8, 0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46}
	b.Run("16-byte-uuid", func(b *testing.B) {
		for b.Loop() {
			Shard(postID[:], 16)
		}
	})
	b.Run("36-char-string", func(b *testing.B) {
		for b.Loop() {
			Shard("c232ab00-9414-11ec-b3c8-9f6bdeced846", 16)
		}
	})
}
