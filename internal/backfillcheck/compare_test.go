package backfillcheck_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

// The TTL check judges the moments a page could have been computed at, not the moment it
// was asked for: a target page answered seconds late shows a TTL that many seconds
// shorter, and that is not a short copy. Nor is a copy a few seconds short: the backfill
// counts TTLs down from when it asked for its page. Minutes off either way is a wrong TTL.
func TestCompareTTLUsesTheReadWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	quick := backfillcheck.ReadWindow{Asked: t0, Answered: t0.Add(20 * time.Millisecond)}
	at := func(asked, took time.Duration) backfillcheck.ReadWindow {
		return backfillcheck.ReadWindow{Asked: t0.Add(asked), Answered: t0.Add(asked + took)}
	}
	for _, c := range []struct {
		name string
		got  backfillcheck.Cell
		want string // "" when the copy is right
	}{
		{"same expiry, both read quickly", backfillcheck.Cell{TTL: 1000, Read: quick}, ""},
		{"target page answered 4 s after it was asked", backfillcheck.Cell{TTL: 996, Read: at(0, 4*time.Second)}, ""},
		{"target read 30 s later", backfillcheck.Cell{TTL: 970, Read: at(30*time.Second, 10*time.Millisecond)}, ""},
		{"target written 50 s after the source read", backfillcheck.Cell{TTL: 1050, Read: quick}, ""},
		{"target 3 s early: the backfill's page came back 2 s after it asked", backfillcheck.Cell{TTL: 997, Read: quick}, ""},
		{"target expires 5 min early", backfillcheck.Cell{TTL: 700, Read: quick}, "before the source's"},
		{"target expires 10 min late", backfillcheck.Cell{TTL: 1600, Read: quick}, "after the source's"},
		{"target lost its TTL", backfillcheck.Cell{Read: quick}, "none, source 1000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.got.Value, c.got.Write = "v", 1
			want := backfillcheck.Row{"content": {Value: "v", Write: 1, TTL: 1000, Read: quick}}
			got := backfillcheck.Row{"content": c.got}
			rep := backfillcheck.Compare("t", map[string]backfillcheck.Expected{"k": {Cells: want}}, map[string]backfillcheck.Row{"k": got}, time.Minute)
			switch {
			case c.want == "" && !rep.OK():
				t.Errorf("a right copy was refused: %s", rep)
			case c.want != "" && (rep.TTLs != 1 || !strings.Contains(rep.String(), c.want)):
				t.Errorf("want one TTL finding saying %q, got %s", c.want, rep)
			}
		})
	}
}
