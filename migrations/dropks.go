package migrations

import (
	"errors"
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
)

// ErrDropsBookkeeping: the history drops the keyspace its bookkeeping lives in.
var ErrDropsBookkeeping = errors.New("the history drops the keyspace of its own bookkeeping")

// DroppedKeyspaces lists, in order, where the history drops a keyspace (DROP KEYSPACE
// [IF EXISTS] ks): statement positions by keyspace name.
func DroppedKeyspaces(migs []*Migration) map[string]cql.Pos {
	out := map[string]cql.Pos{}
	for _, m := range migs {
		for _, st := range m.Parsed {
			if d, ok := st.(*cql.DropKeyspace); ok {
				if _, seen := out[d.Name.Name]; !seen {
					out[d.Name.Name] = d.Pos
				}
			}
		}
	}
	return out
}

// CheckBookkeeping refuses a history that drops keyspace bookkeeping, where the
// bookkeeping and lock tables live. Histories written for cqlsh start with DROP KEYSPACE
// IF EXISTS app; CREATE KEYSPACE app ...: run as written, that statement deletes the record
// of the run and its lock, the run stops with its lock lost and the node is left empty.
// The history is fine with its bookkeeping in another keyspace, which it never drops.
func CheckBookkeeping(migs []*Migration, bookkeeping string) error {
	if bookkeeping == "" {
		return nil
	}
	pos, ok := DroppedKeyspaces(migs)[bookkeeping]
	if !ok {
		return nil
	}
	return fmt.Errorf("%s: %w: DROP KEYSPACE %s would delete the bookkeeping and the lock of the run that sends it (the run would stop with its lock lost, the keyspace empty); "+
		"keep the bookkeeping in a keyspace the history does not drop (Options.BookkeepingKeyspace)", pos, ErrDropsBookkeeping, cql.QuoteName(bookkeeping))
}
