package denorm

import (
	"errors"
	"testing"
	"time"
)

// TestTieredTokenRoundTrip: a tiered page token gives back its period, its period's own
// token and the oldest bound; an altered token, one of another key or a plain Timeline's
// is ErrBadToken.
func TestTieredTokenRoundTrip(t *testing.T) {
	tt := &TieredTimeline{Tiers: &Tiers{plan: &TierPlan{Table: "app.posts_by_tag_tiers"}},
		Timeline: &Timeline{Query: "SELECT post_id FROM app.posts_by_tag WHERE tag = ? AND bucket = ? AND shard = ?", Secret: []byte("s")}}
	fp := tt.fingerprint([]any{"go"})
	from := time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)
	oldest := time.Date(2024, 1, 15, 10, 4, 5, 123, time.UTC)
	for _, tc := range []struct {
		from, oldest time.Time
		inner        string
	}{
		{from, oldest, "inner-token"},
		{time.Time{}, time.Time{}, ""},
		{from, time.Time{}, ""},
	} {
		tok := tt.encodeToken(fp, tc.from, tc.inner, tc.oldest)
		f, in, o, err := tt.decodeToken(tok, fp)
		if err != nil || !f.Equal(tc.from) || in != tc.inner || !o.Equal(tc.oldest) || f.IsZero() != tc.from.IsZero() {
			t.Errorf("round trip of %v %q %v: %v %q %v, %v", tc.from, tc.inner, tc.oldest, f, in, o, err)
		}
	}
	tok := tt.encodeToken(fp, from, "inner", oldest)
	altered := []byte(tok)
	altered[3] ^= 1
	other := tt.fingerprint([]any{"db"})
	plain := tt.Timeline.encodeToken(tt.Timeline.fingerprint([]any{"go"}), token{shards: []shardPos{{}}})
	for name, bad := range map[string]struct {
		tok string
		fp  []byte
	}{"altered": {string(altered), fp}, "another key": {tok, other}, "a Timeline's": {plain, fp}, "empty": {"", fp}} {
		if _, _, _, err := tt.decodeToken(bad.tok, bad.fp); !errors.Is(err, ErrBadToken) {
			t.Errorf("%s: %v, want ErrBadToken", name, err)
		}
	}
}
