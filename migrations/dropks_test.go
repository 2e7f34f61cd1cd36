package migrations_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/migrations"
)

// TestHistoryThatDropsItsBookkeepingIsRefused: a history written for cqlsh drops and
// recreates its keyspace; with the bookkeeping in that keyspace it is refused before
// anything runs, at the DROP, naming where the bookkeeping should go instead.
func TestHistoryThatDropsItsBookkeepingIsRefused(t *testing.T) {
	migs := load(t, map[string]string{
		"0001_init.cql": "DROP KEYSPACE IF EXISTS shop;\nCREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nCREATE TABLE shop.t (k int PRIMARY KEY);\n",
	})
	err := migrations.CheckBookkeeping(migs, "shop")
	if !errors.Is(err, migrations.ErrDropsBookkeeping) || !strings.Contains(err.Error(), "0001_init.cql:1:1") || !strings.Contains(err.Error(), "Options.BookkeepingKeyspace") {
		t.Fatalf("want a refusal at 0001_init.cql:1:1 naming Options.BookkeepingKeyspace, got %v", err)
	}
	if err := migrations.CheckBookkeeping(migs, "ops"); err != nil {
		t.Errorf("bookkeeping in a keyspace the history does not drop: %v", err)
	}
	if got := migrations.DroppedKeyspaces(migs); len(got) != 1 || got["shop"].Line != 1 {
		t.Errorf("DroppedKeyspaces: %v", got)
	}
}
