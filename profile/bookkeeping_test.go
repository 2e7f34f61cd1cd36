package profile

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// The backfill's progress and lease tables are bookkeeping too, by name or by comment,
// and the note says whose they are.
func TestBookkeepingKnowsTheBackfillTables(t *testing.T) {
	for _, tc := range []struct {
		t    cql.Table
		want bool
	}{
		{cql.Table{Name: "cqlsize_backfill"}, true},
		{cql.Table{Name: "cqlsize_backfill_lease"}, true},
		{cql.Table{Name: "other", Options: cql.TableOptions{Comment: "cqlsize backfill: one row per token range copied, per backfill"}}, true},
		{cql.Table{Name: "posts"}, false},
	} {
		if got := Bookkeeping(&tc.t); got != tc.want {
			t.Errorf("Bookkeeping(%s) = %v", tc.t.Name, got)
		}
	}
	if note := SkippedNote("app", []string{"cqlsize_backfill", "cqlsize_migrations"}); !strings.Contains(note, "cqlsize migrate's and backfill's own bookkeeping") {
		t.Errorf("note: %s", note)
	}
	if note := SkippedNote("app", []string{"cqlsize_migrations"}); !strings.Contains(note, ": cqlsize migrate's own bookkeeping") {
		t.Errorf("note: %s", note)
	}
}
