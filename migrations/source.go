package migrations

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// ErrDuplicateVersion: two files carry the same version number (0003_a.cql and 3_b.cql).
var ErrDuplicateVersion = errors.New("two migration files have the same version")

// ErrBadName: a .cql file in the folder does not start with a version number.
var ErrBadName = errors.New("migration file name does not start with a version number")

// fileName is NNNN_description.cql: a dash also separates, the description is optional,
// and a leading V (Flyway's V2__name.cql) is accepted, as cql.LoadSchema accepts it.
var fileName = regexp.MustCompile(`^[Vv]?([0-9]+)(?:[_-]+(.*))?\.cql$`)

// ParseName reads the version and name from a migration file name such as
// 0003_add_tags.cql (version 3, name "add_tags").
func ParseName(base string) (version int64, name string, err error) {
	m := fileName.FindStringSubmatch(base)
	if m == nil {
		return 0, "", fmt.Errorf("%s: %w: want NNNN_name.cql, e.g. 0001_create_users.cql", base, ErrBadName)
	}
	v, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || v <= 0 {
		return 0, "", fmt.Errorf("%s: %w: the version must be a number from 1 to %d", base, ErrBadName, int64(1<<63-1))
	}
	return v, m[2], nil
}

func fileBase(file string) string { return path.Base(filepath.ToSlash(file)) }

// LoadDir reads the migrations in a folder of the file system (see Load). Positions in
// errors start with dir, so they can be clicked.
func LoadDir(dir string) ([]*Migration, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("read migrations folder %s: not a folder", dir)
	}
	return load(os.DirFS(dir), ".", dir)
}

// Load reads every NNNN_name.cql file in dir of fsys (an embed.FS works: a service can
// carry its migrations in its binary), splits each into statements with the cql lexer and
// returns them in version order. Other files (README.md, ...) and sub-folders are
// ignored. Every problem is reported, each naming its file: a .cql name without a
// version, two files with one version, a file that does not lex (file:line:col).
func Load(fsys fs.FS, dir string) ([]*Migration, error) {
	return load(fsys, dir, dir)
}

func load(fsys fs.FS, dir, display string) ([]*Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations folder %s: %w", display, err)
	}
	var errs []error
	var out []*Migration
	byVersion := map[int64]*Migration{}
	for _, e := range entries {
		base := e.Name()
		if e.IsDir() || strings.HasPrefix(base, ".") || !strings.HasSuffix(strings.ToLower(base), ".cql") {
			continue
		}
		file := base
		if display != "." && display != "" {
			file = filepath.Join(display, base)
		}
		v, name, err := ParseName(base)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", file, errors.Unwrap(err)))
			continue
		}
		src, err := fs.ReadFile(fsys, path.Join(dir, base))
		if err != nil {
			errs = append(errs, fmt.Errorf("read migration %s: %w", file, err))
			continue
		}
		m, err := parseMigration(file, v, name, src)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev := byVersion[v]; prev != nil {
			errs = append(errs, fmt.Errorf("%s and %s: %w (%d)", prev.File, file, ErrDuplicateVersion, v))
			continue
		}
		byVersion[v] = m
		out = append(out, m)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Parse builds a Migration from a file's name and content (Load does this for each file).
func Parse(file string, src []byte) (*Migration, error) {
	v, name, err := ParseName(fileBase(file))
	if err != nil {
		return nil, err
	}
	return parseMigration(file, v, name, src)
}

func parseMigration(file string, version int64, name string, src []byte) (*Migration, error) {
	// The statements are cut by cql.SplitStatements, which lexes like Cassandra, rather
	// than by gocqlx/migrate's splitter: that one cuts on every ';' (breaking a ';' inside
	// a string, comment or $$ body) and skips a statement after a leading "--" comment.
	raw, err := cql.SplitStatements(file, src)
	if err != nil {
		return nil, err
	}
	// Every statement is parsed too, before anything runs: a typo in the last file stops
	// the run at its file:line:col with nothing applied, instead of halfway through.
	parsed, err := cql.ParseFile(file, src)
	if err != nil {
		return nil, err
	}
	if len(parsed) != len(raw) {
		return nil, fmt.Errorf("%s: the parser found %d statements where the splitter found %d; please report this file", file, len(parsed), len(raw))
	}
	for _, st := range parsed {
		if u, ok := st.(*cql.Use); ok {
			return nil, cql.Errorf(u.Pos, "USE cannot run in a migration: the driver refuses it, and it would change the keyspace of every later statement; qualify names (%s.table) or set the target keyspace (--keyspace)", u.Keyspace)
		}
	}
	m := &Migration{Version: version, Name: name, File: file, Checksum: sha256hex(src), Source: src, Parsed: parsed}
	for _, r := range raw {
		m.Statements = append(m.Statements, Statement{
			Text: r.Text, Pos: r.Pos, End: r.End, Doc: r.Doc,
			Checksum: sha256hex([]byte(r.Text)),
			Schema:   isSchemaChange(r.Text),
		})
	}
	return m, nil
}
