package backfill

import (
	"strings"
	"testing"
)

// TestSameStampsTTLBounds pins the TTLs verify accepts for a copied cell whose source had
// 1000 s left: read after the source, the copy's TTL may be up to slack seconds shorter,
// and up to 1 (TTL()'s rounding) + 3 (a write queued in the coordinator) seconds longer.
func TestSameStampsTTLBounds(t *testing.T) {
	c := tcol{}
	c.Column = "v"
	const ts, source, slack = int64(1700000000000000), 1000, 5
	for _, tc := range []struct {
		got  int
		want string // "" accepted, else a fragment of the finding
	}{
		{1000, ""},
		{1004, ""},             // source + 1 + 3
		{1005, "TTL of 1005s"}, // a second more
		{995, ""},              // source - slack
		{994, "TTL of 994s"},
		{0, "TTL of 0s"}, // the copy lost its TTL
	} {
		m := map[string]any{"writetime(v)": ts, "ttl(v)": tc.got}
		got := sameStamps(c, m, []stamp{{ts: ts, ttl: source}}, slack)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("copy TTL %d: %q, want %q", tc.got, got, tc.want)
		}
	}
	// No TTL in the source: any TTL in the copy is wrong.
	if got := sameStamps(c, map[string]any{"writetime(v)": ts, "ttl(v)": 7}, []stamp{{ts: ts, ttl: noTTL}}, slack); !strings.Contains(got, "the source cell none") {
		t.Errorf("copy with a TTL the source lacks: %q", got)
	}
}
