package cli

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/options"
	"github.com/cqlsize/cqlsize/migrations"
	"github.com/cqlsize/cqlsize/sizing"
)

// loadSchema reads --schema (a .cql file or a folder of migrations). With a keyspace,
// unqualified names resolve to it, as they do when `cqlsize migrate --keyspace` applies the
// files. Migrations written without a keyspace are common, so their error says which flag
// fixes it. A folder in golang-migrate's layout is read as migrate reads it (the .up.cql
// files; the .down.cql ones would undo them). A schema that defines no table is bad input:
// a job pointed at an empty file or folder must not pass having checked nothing.
func loadSchema(path, keyspace string) (*cql.Schema, error) {
	return loadSchemaOn(path, keyspace, cql.Release50)
}

// loadSchemaOn is loadSchema by the schema rules of Cassandra release rel (--target).
func loadSchemaOn(path, keyspace string, rel options.Release) (*cql.Schema, error) {
	s, err := readSchema(path, keyspace, rel)
	if err != nil {
		if keyspace == "" && errors.Is(err, cql.ErrNoKeyspace) {
			err = fmt.Errorf("%w (for migrations that run in a session's keyspace, pass --keyspace NAME)", err)
		}
		return nil, InputErr(fmt.Errorf("load schema: %w", keyspaceHint(err)))
	}
	if len(s.Tables()) == 0 {
		return nil, InputErr(fmt.Errorf("schema %s defines no table (an empty file, or no CREATE TABLE in it): nothing to check; is the path right?", path))
	}
	return s, nil
}

func readSchema(path, keyspace string, rel options.Release) (*cql.Schema, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() && golangMigrateDir(path) {
		set, err := migrations.LoadSetDir(path)
		if err != nil {
			return nil, err
		}
		return set.SchemaOn(keyspace, rel)
	}
	s, err := cql.LoadSchemaOn(path, keyspace, rel)
	if err != nil && keyspace == "" && missingKeyspaceName(err) != "" {
		if migs := qualifiedHistory(path); migs != nil {
			// Every name is qualified: the keyspaces nothing creates exist, empty, as
			// migrations.SchemaOn reads such a history (ImpliedKeyspaces).
			return migrations.SchemaOn(migs, "", rel)
		}
	}
	return s, err
}

// qualifiedHistory is the file or folder at path as migrations when it qualifies every name
// and names a keyspace it never creates (migrations.ImpliedKeyspaces); nil otherwise.
func qualifiedHistory(path string) []*migrations.Migration {
	var migs []*migrations.Migration
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		set, err := migrations.LoadSetDir(path)
		if err != nil {
			return nil
		}
		migs = set.Migrations
	} else {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		stmts, err := cql.ParseFile(path, src)
		if err != nil {
			return nil
		}
		migs = []*migrations.Migration{{File: path, Parsed: stmts}}
	}
	if len(migrations.ImpliedKeyspaces(migs)) == 0 {
		return nil
	}
	return migs
}

// golangMigrateDir reports whether a folder holds golang-migrate's .up.cql/.down.cql files.
func golangMigrateDir(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		if !e.IsDir() && (strings.HasSuffix(n, ".up.cql") || strings.HasSuffix(n, ".down.cql")) {
			return true
		}
	}
	return false
}

// missingKeyspace matches the model's message for a name in a keyspace nothing created.
var missingKeyspace = regexp.MustCompile(`^keyspace "?([^" ]+?)"? does not exist$`)

// missingKeyspaceName is the keyspace of a "keyspace X does not exist" model error, or "".
func missingKeyspaceName(err error) string {
	var ce *cql.Error
	if !errors.As(err, &ce) {
		return ""
	}
	if m := missingKeyspace.FindStringSubmatch(ce.Msg); m != nil {
		return m[1]
	}
	return ""
}

// keyspaceHint adds the fix to "keyspace X does not exist": schemas and migration
// histories often qualify names with the keyspace their deploy creates outside the files.
func keyspaceHint(err error) error {
	ks := missingKeyspaceName(err)
	if ks == "" {
		return err
	}
	m := []string{"", ks}
	return fmt.Errorf("%w: no statement before it creates keyspace %s; pass -k/--keyspace %s if the files run in that keyspace (it then exists, empty, before the first statement, as it does for `cqlsize migrate up --keyspace %s`), or add CREATE KEYSPACE %s WITH replication = {...} before its first use",
		err, m[1], m[1], m[1], m[1])
}

// releaseOf is the schema rules a --target follows: 4.1's for cassandra-4.1, 5.0's
// otherwise (scylladb's CQL dialect is not modelled; it is read as 5.0's).
func releaseOf(t sizing.Target) options.Release {
	if t == sizing.Cassandra41 {
		return cql.Release41
	}
	return cql.Release50
}

// onlyKeyspaceCreatedFirst is the keyspace a migrations folder runs in when it says so
// itself: its first statement creates that keyspace and no statement creates another.
// Otherwise "" (a file, a folder that does not load, or an ambiguous history).
func onlyKeyspaceCreatedFirst(path string) string {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return ""
	}
	set, err := migrations.LoadSetDir(path)
	if err != nil || len(set.Migrations) == 0 || len(set.Migrations[0].Parsed) == 0 {
		return ""
	}
	first, ok := set.Migrations[0].Parsed[0].(*cql.CreateKeyspace)
	if !ok {
		return ""
	}
	for _, m := range set.Migrations {
		for _, p := range m.Parsed {
			if ck, ok := p.(*cql.CreateKeyspace); ok && ck.Name.Name != first.Name.Name {
				return ""
			}
		}
	}
	return first.Name.Name
}
