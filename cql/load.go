package cql

import (
	"github.com/cqlsize/cqlsize/cql/options"

	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// LoadSchema reads a schema from path: a .cql file, or a folder of migrations applied in
// version order (see MigrationOrder). Statements are applied as Cassandra would apply them;
// the first statement that fails stops the load with an *Error at its file:line:col.
func LoadSchema(p string) (*Schema, error) { return LoadSchemaIn(p, "") }

// LoadSchemaIn is LoadSchema for migrations written to run in a session's keyspace, the way
// `cqlsize migrate --keyspace` (and most migration tools) apply them: unqualified names
// resolve to keyspace, which exists, empty, before the first statement. An empty keyspace
// is LoadSchema.
func LoadSchemaIn(p, keyspace string) (*Schema, error) { return LoadSchemaOn(p, keyspace, Release50) }

// LoadSchemaOn is LoadSchemaIn by the schema rules of Cassandra release rel
// (Schema.Release).
func LoadSchemaOn(p, keyspace string, rel options.Release) (*Schema, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err // an *fs.PathError: it names the operation and the path
	}
	if !info.IsDir() {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		s := NewSchemaIn(keyspace)
		s.Release = rel
		if err := s.ApplyFile(p, src); err != nil {
			return nil, err
		}
		return s, nil
	}
	return loadDir(os.DirFS(p), ".", p, keyspace, rel)
}

// LoadSchemaFS is LoadSchema for a folder of migrations in fsys (dir "." for its root).
func LoadSchemaFS(fsys fs.FS, dir string) (*Schema, error) {
	return loadDir(fsys, dir, dir, "", Release50)
}

// LoadSchemaFSIn is LoadSchemaIn for a folder of migrations in fsys.
func LoadSchemaFSIn(fsys fs.FS, dir, keyspace string) (*Schema, error) {
	return loadDir(fsys, dir, dir, keyspace, Release50)
}

// NewSchemaIn returns an empty schema whose current keyspace is keyspace, created empty,
// as a session connected to that keyspace sees it; an empty keyspace gives NewSchema().
func NewSchemaIn(keyspace string) *Schema {
	s := NewSchema()
	if keyspace != "" {
		s.Keyspaces[keyspace] = NewKeyspace(keyspace)
		s.Current = keyspace
	}
	return s
}

// loadDir applies the migrations of dir in fsys; shown is the folder as positions print it.
func loadDir(fsys fs.FS, dir, shown, keyspace string, rel options.Release) (*Schema, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations folder: %w", err)
	}
	var names []string
	for _, e := range entries {
		// golang-migrate's .down.cql files undo their .up.cql; applying them would leave a
		// model of nothing, so a folder in that layout reads as its up files only (what
		// `cqlsize migrate` runs).
		if !e.IsDir() && strings.EqualFold(path.Ext(e.Name()), ".cql") && !strings.HasSuffix(strings.ToLower(e.Name()), ".down.cql") {
			names = append(names, e.Name())
		}
	}
	ordered, err := MigrationOrder(names)
	if err != nil {
		return nil, fmt.Errorf("migrations in %s: %w", shown, err)
	}
	s := NewSchemaIn(keyspace)
	s.Release = rel
	for _, name := range ordered {
		src, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		file := name
		if shown != "." && shown != "" {
			file = filepath.Join(shown, name)
		}
		if err := s.ApplyFile(file, src); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// MigrationNotes says, one line each, which files of the folder p look like migrations but
// are not read: a numbered file that is not a .cql file ("ignoring 0002_b.sql: migrations
// are .cql files"), as `cqlsize migrate` says of the same folder. A file, or a folder it
// cannot read, has no notes (the load reports the error).
func MigrationNotes(p string) []string {
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil
	}
	var notes []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.EqualFold(path.Ext(n), ".sql") {
			continue
		}
		if _, ok := migrationVersion(n); ok {
			notes = append(notes, fmt.Sprintf("ignoring %s: migrations are .cql files", n))
		}
	}
	return notes
}

// MigrationOrder sorts migration file names into the order they are applied: by their
// leading version number (compared as a number, so 2_x comes before 10_x), then by name.
// The version is the digits a name starts with, after an optional V or v: 0001_init.cql,
// V2__add_tags.cql and 20240101_users.cql are versions 1, 2 and 20240101. A name without
// a version is an error rather than a guess about where it belongs.
func MigrationOrder(names []string) ([]string, error) {
	type mig struct {
		name, version string
	}
	migs := make([]mig, 0, len(names))
	for _, n := range names {
		v, ok := migrationVersion(n)
		if !ok {
			return nil, fmt.Errorf("order migrations: %s does not start with a version number (like 0001_name.cql or V1__name.cql)", n)
		}
		migs = append(migs, mig{n, v})
	}
	sort.SliceStable(migs, func(i, j int) bool {
		a, b := migs[i].version, migs[j].version
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		if a != b {
			return a < b
		}
		return migs[i].name < migs[j].name
	})
	out := make([]string, len(migs))
	for i, m := range migs {
		out[i] = m.name
	}
	return out, nil
}

// migrationVersion returns the version of a migration file name without leading zeros
// ("0" for all zeros), so comparing length then text compares the numbers.
func migrationVersion(name string) (string, bool) {
	s := name
	if len(s) > 0 && (s[0] == 'V' || s[0] == 'v') {
		s = s[1:]
	}
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	if n == 0 {
		return "", false
	}
	v := strings.TrimLeft(s[:n], "0")
	if v == "" {
		v = "0"
	}
	return v, true
}
