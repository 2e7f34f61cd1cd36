// Package exschema loads an example's migrations into the schema model under the keyspace
// they are deployed to. Migration files name no keyspace (the migrations runner binds them
// to one), so the model needs the keyspace from the caller, as the runner does.
package exschema

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Load applies the NNNN_name.cql files of dir in fsys, in version order, to a schema whose
// current keyspace is keyspace, so their unqualified names land in it.
func Load(fsys fs.FS, dir, keyspace string) (*cql.Schema, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(path.Ext(e.Name()), ".cql") {
			names = append(names, e.Name())
		}
	}
	ordered, err := cql.MigrationOrder(names)
	if err != nil {
		return nil, fmt.Errorf("load migrations from %s: %w", dir, err)
	}
	s := cql.NewSchema()
	s.Keyspaces[keyspace] = cql.NewKeyspace(keyspace)
	s.Current = keyspace
	for _, name := range ordered {
		file := path.Join(dir, name)
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("load migrations: %w", err)
		}
		if err := s.ApplyFile(file, src); err != nil {
			return nil, err
		}
	}
	return s, nil
}
