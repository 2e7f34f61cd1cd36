package profile

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Bookkeeping names the tables `cqlsize migrate` keeps in a keyspace it manages: the history
// (cqlsize_migrations) and the lease (cqlsize_migrations_lock), or the same under another
// --table name, which their comment gives away; and the per-range progress of
// `cqlsize backfill` (cqlsize_backfill, cqlsize_backfill_lease). They are the tool's records, not the
// application's data: a workload of them is one `estimate --schema <the migrations>` refuses
// (the files never create them), so a profile of every table leaves them out.
func Bookkeeping(t *cql.Table) bool {
	if t == nil {
		return false
	}
	switch t.Name {
	case "cqlsize_migrations", "cqlsize_migrations_lock", "cqlsize_backfill", "cqlsize_backfill_lease":
		return true
	}
	return strings.HasPrefix(t.Options.Comment, "cqlsize migrate:") || strings.HasPrefix(t.Options.Comment, "cqlsize backfill:")
}

// NoTableError is a keyspace with no table to profile: none at all, or only cqlsize's own
// bookkeeping (Skipped). Bad input, like a keyspace that does not exist: a profile of
// nothing is a workload `estimate` refuses.
type NoTableError struct {
	Keyspace string
	Skipped  []string
}

func (e *NoTableError) Error() string {
	if len(e.Skipped) > 0 {
		return fmt.Sprintf("keyspace %s has no table but %s own bookkeeping (%s); name one in Options.Tables to profile it",
			e.Keyspace, whose(e.Skipped), strings.Join(e.Skipped, ", "))
	}
	return fmt.Sprintf("keyspace %s has no table", e.Keyspace)
}

// ReadNothing reports a partial profile that read no partition of any table: printed, it
// would be a workload of nothing standing in for the tables it could not read.
func (r *Result) ReadNothing() bool {
	if r == nil || !r.Partial {
		return false
	}
	for _, t := range r.Tables {
		if t.PartitionsSeen > 0 {
			return false
		}
	}
	return true
}

// SkippedNote is the note a profile carries for the bookkeeping tables it left out.
func SkippedNote(keyspace string, skipped []string) string {
	q := make([]string, len(skipped))
	for i, n := range skipped {
		q[i] = keyspace + "." + n
	}
	return fmt.Sprintf("skipped %s: %s own bookkeeping, not application data (name it in Options.Tables to profile it)",
		strings.Join(q, ", "), whose(skipped))
}

// whose names the command that keeps the tables: migrate, unless a backfill's are among them.
func whose(tables []string) string {
	for _, t := range tables {
		if strings.HasPrefix(t, "cqlsize_backfill") {
			return "cqlsize migrate's and backfill's"
		}
	}
	return "cqlsize migrate's"
}
