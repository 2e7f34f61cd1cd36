package cli

import (
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
)

// schemaNotes prints on stderr what a --schema folder holds that looks like a migration but
// is not read (a numbered .sql file), as `cqlsize migrate` says of the same folder: a
// migration saved with the wrong extension is not left out of the model without a word.
func schemaNotes(env *Env, path string) {
	for _, n := range cql.MigrationNotes(path) {
		fmt.Fprintf(env.Stderr, "%s: %s\n", path, n)
	}
}
