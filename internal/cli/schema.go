package cli

import (
	"errors"
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
)

// loadSchema reads --schema (a .cql file or a folder of migrations). With a keyspace,
// unqualified names resolve to it, as they do when `cqlsize migrate --keyspace` applies the
// files. Migrations written without a keyspace are common, so their error says which flag
// fixes it.
func loadSchema(path, keyspace string) (*cql.Schema, error) {
	s, err := cql.LoadSchemaIn(path, keyspace)
	if err == nil {
		return s, nil
	}
	if keyspace == "" && errors.Is(err, cql.ErrNoKeyspace) {
		err = fmt.Errorf("%w (for migrations that run in a session's keyspace, pass --keyspace NAME)", err)
	}
	return nil, InputErr(fmt.Errorf("load schema: %w", err))
}
