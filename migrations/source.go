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
	"github.com/cqlsize/cqlsize/cql/options"
)

// ErrDuplicateVersion: two files carry the same version number (0003_a.cql and 3_b.cql).
var ErrDuplicateVersion = errors.New("two migration files have the same version")

// ErrBadName: a .cql file in the folder does not start with a version number.
var ErrBadName = errors.New("migration file name does not start with a version number")

// ErrNoStatement: a migration file holds no statement and is not a deliberate no-op: an
// unfilled `migrate new` template. Applied, it would be recorded as done with nothing run,
// and once filled in refused as changed; `cqlsize migrate up` refuses it instead (Empty). A
// file of comments only, or with nothing in it, is a no-op version.
var ErrNoStatement = errors.New("has no statement")

// TemplateMarker is a line of the file `cqlsize migrate new` writes: a file that still
// carries it and holds no statement is a template nobody filled in.
const TemplateMarker = "Statements are separated by ';' and run in order"

// ErrNoMigrations: the folder holds no migration file. A deploy or CI job pointed at the
// wrong folder would otherwise "apply 0 files" and pass.
var ErrNoMigrations = errors.New("no migration files")

// ErrMixedLayout: one folder holds both golang-migrate files (1_x.up.cql) and plain
// NNNN_name.cql files.
var ErrMixedLayout = errors.New("migration files in two layouts")

// Layout is how a folder's files are named.
type Layout string

// Layouts Load reads.
const (
	// LayoutCqlsize: NNNN_name.cql (also V2__name.cql, Flyway's form, and gocqlx/migrate's
	// 001_name.cql).
	LayoutCqlsize Layout = "cqlsize"
	// LayoutGolangMigrate: golang-migrate's {version}_{title}.up.cql, with
	// {version}_{title}.down.cql beside it, which cqlsize never runs.
	LayoutGolangMigrate Layout = "golang-migrate"
)

// fileName is NNNN_description.cql: a dash also separates, the description is optional,
// and a leading V (Flyway's V2__name.cql) is accepted, as cql.LoadSchema accepts it.
var fileName = regexp.MustCompile(`^[Vv]?([0-9]+)(?:[_-]+(.*))?\.(?i:cql)$`)

// upSuffix and downSuffix mark golang-migrate's files.
const (
	upSuffix   = ".up.cql"
	downSuffix = ".down.cql"
)

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// ParseName reads the version and name from a migration file name such as
// 0003_add_tags.cql (version 3, name "add_tags"), or golang-migrate's 3_add_tags.up.cql
// (the same). A .down.cql name is not a migration: cqlsize does not run down migrations.
func ParseName(base string) (version int64, name string, err error) {
	if hasSuffixFold(base, downSuffix) {
		return 0, "", fmt.Errorf("%s: %w: a .down.cql file is a golang-migrate down migration, which cqlsize does not run", base, ErrBadName)
	}
	m := fileName.FindStringSubmatch(base)
	if m == nil {
		return 0, "", fmt.Errorf("%s: %w: want NNNN_name.cql, e.g. 0001_create_users.cql", base, ErrBadName)
	}
	// Version 0 is a version like any other: JHipster's first file is
	// 00000000000000_create-tables.cql and Flyway histories start at V0__; renumbering
	// would break the versions those tools recorded.
	v, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || v < 0 {
		return 0, "", fmt.Errorf("%s: %w: the version must be a number from 0 to %d", base, ErrBadName, int64(1<<63-1))
	}
	name = m[2]
	if hasSuffixFold(base, upSuffix) {
		name = name[:len(name)-len(".up")]
	}
	return v, name, nil
}

// nameError is a ParseName error naming the file by its path rather than its base name.
type nameError struct {
	msg string
	err error
}

func (e *nameError) Error() string { return e.msg }
func (e *nameError) Unwrap() error { return e.err }

func fileBase(file string) string { return path.Base(filepath.ToSlash(file)) }

// Set is a folder of migrations, loaded once: what a Migrator runs (Migrations) and, from
// the same parsed statements, the schema they produce (Schema). A service that embeds its
// migrations loads them with LoadSet and needs nothing else.
type Set struct {
	Dir        string // the folder as given, as messages show it
	Layout     Layout
	Migrations []*Migration // in version order
	// Ignored lists the files that look like migrations but are not run: golang-migrate's
	// .down.cql files.
	Ignored []string
	// Skipped lists the numbered files that are not .cql files (0002_b.sql): probably meant
	// as migrations, never run, so the load names them (Notes); in the manifest layout, the
	// sub-folders without a manifest.
	Skipped []string
	// NotVersioned lists Flyway's repeatable (R__x.cql) and undo (U2__x.cql) migrations,
	// which cqlsize does not run.
	NotVersioned []string
	// Unlisted lists the .cql files of a manifest layout's version folders that no
	// manifest names: they never run.
	Unlisted []string
}

// Notes says, one line each, what Load left out and why: the .down.cql files (Note) and
// each numbered file that is not a .cql file ("ignoring 0002_b.sql: migrations are .cql
// files"), so a migration saved with the wrong extension is not skipped without a word.
func (s *Set) Notes() []string {
	var out []string
	if n := s.Note(); n != "" {
		out = append(out, n)
	}
	for _, f := range s.Skipped {
		if strings.HasSuffix(f, "/") {
			out = append(out, fmt.Sprintf("ignoring %s: it holds no %s", f, Manifest))
			continue
		}
		out = append(out, fmt.Sprintf("ignoring %s: migrations are .cql files", fileBase(f)))
	}
	for _, f := range s.NotVersioned {
		out = append(out, fmt.Sprintf("ignoring %s: Flyway's repeatable and undo migrations are not run by cqlsize", fileBase(f)))
	}
	for _, f := range s.Unlisted {
		out = append(out, fmt.Sprintf("ignoring %s: no %s lists it", f, Manifest))
	}
	return out
}

// Empty returns an error naming every migration with no statement that is not a
// deliberate no-op (ErrNoStatement), or nil. A file of comments only ("intentionally
// blank", kept so the version numbers stay contiguous) or with nothing in it at all (Flyway
// accepts both, and histories written for it have them) is a no-op version: it is recorded
// as applied and nothing is sent (NoOp), and Notes says so of an empty one. An unfilled
// `migrate new` template is refused, and so is a history in which no file has a statement. The
// loader accepts all of them (`migrate new` adds its template beside an unfilled one);
// whatever applies or validates the set calls Empty.
func Empty(migs []*Migration) error {
	var errs []error
	statements := 0
	for _, m := range migs {
		statements += len(m.Statements) + len(m.Calls)
		switch {
		case len(m.Statements) > 0 || len(m.Calls) > 0:
		case strings.Contains(string(m.Source), TemplateMarker):
			errs = append(errs, fmt.Errorf("%s %w: it is the `migrate new` template, unfilled: fill it in or delete it", m.File, ErrNoStatement))
		}
	}
	if len(errs) == 0 && len(migs) > 0 && statements == 0 {
		errs = append(errs, fmt.Errorf("%d migration files and not one statement: every file is comments only (%s %w)", len(migs), migs[0].File, ErrNoStatement))
	}
	return errors.Join(errs...)
}

// NoOp reports whether m is a no-op version: a file of comments only, recorded as applied
// with nothing sent.
func (m *Migration) NoOp() bool { return len(m.Statements) == 0 && len(m.Calls) == 0 }

// NoOpKind says what kind of no-op version m is, for its note: "an empty file" or "no
// statement (comments only)".
func (m *Migration) NoOpKind() string {
	if len(strings.TrimSpace(string(m.Source))) == 0 {
		return "an empty file"
	}
	return "no statement (comments only)"
}

// numbered matches a .sql file name that starts with a version number: with .cql it
// would be a migration.
var numbered = regexp.MustCompile(`^[Vv]?[0-9]+(?:[_-].*)?\.(?i:sql)$`)

// Note says what Load left out and why, or "" when it left out nothing worth saying:
// "ignoring 3 .down.cql files: cqlsize does not run down migrations".
func (s *Set) Note() string {
	switch n := len(s.Ignored); n {
	case 0:
		return ""
	case 1:
		return "ignoring 1 .down.cql file: cqlsize does not run down migrations"
	default:
		return fmt.Sprintf("ignoring %d .down.cql files: cqlsize does not run down migrations", n)
	}
}

// Schema applies every statement of the set, in order, to a schema in which keyspace
// exists, empty, before the first statement (as `cqlsize migrate --keyspace` runs them;
// "" for none): the schema model of what the migrations produce, from the statements
// already parsed by the load.
func (s *Set) Schema(keyspace string) (*cql.Schema, error) {
	return SchemaOf(s.Migrations, keyspace)
}

// SchemaOn is Schema by the schema rules of Cassandra release rel (cql.Schema.Release).
func (s *Set) SchemaOn(keyspace string, rel options.Release) (*cql.Schema, error) {
	return SchemaOn(s.Migrations, keyspace, rel)
}

// SchemaOf is Set.Schema for a list of migrations (as Load returns them). Its error names
// every statement the model refuses, not only the first (Refusals).
func SchemaOf(migs []*Migration, keyspace string) (*cql.Schema, error) {
	return SchemaOn(migs, keyspace, cql.Release50)
}

// SchemaOn is SchemaOf by the schema rules of Cassandra release rel.
func SchemaOn(migs []*Migration, keyspace string, rel options.Release) (*cql.Schema, error) {
	return SchemaJudged(migs, keyspace, rel, nil)
}

// SchemaJudged is SchemaOn with checkSelect judging each SELECT of the history against the
// schema the statements before it build (cql.Schema.CheckSelect): `migrate validate` passes
// cql/check's Rejection, so a SELECT the node refuses is refused before `up` stops at it.
func SchemaJudged(migs []*Migration, keyspace string, rel options.Release, checkSelect func(*cql.Schema, *cql.Select) error) (*cql.Schema, error) {
	sch := cql.NewSchemaIn(keyspace)
	if keyspace != "" && CreatesKeyspace(migs, keyspace) {
		// The history creates its keyspace itself (as `up` lets it): it does not exist
		// before the first statement, which then resolves later unqualified names to it.
		sch = cql.NewSchema()
		sch.Current = keyspace
	}
	if keyspace == "" {
		// A history that qualifies every name reads without -k: the keyspaces it names and
		// never creates exist, empty, before the first statement, as -k makes its one.
		for _, ks := range ImpliedKeyspaces(migs) {
			sch.Keyspaces[ks] = cql.NewKeyspace(ks)
		}
	}
	sch.Release = rel
	sch.CheckSelect = checkSelect
	var r Refusals
	for _, m := range migs {
		// Each file starts in the target keyspace: a USE holds to the end of its file, as
		// the runner sends it (Statement.Keyspace).
		sch.Current = keyspace
		for _, st := range m.Parsed {
			r.Apply(sch, st)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return sch, nil
}

// LoadDir reads the migrations in a folder of the file system (see Load). Positions in
// errors start with dir, so they can be clicked.
func LoadDir(dir string) ([]*Migration, error) {
	set, err := LoadSetDir(dir)
	if err != nil {
		return nil, err
	}
	return set.Migrations, nil
}

// LoadSetDir is LoadSet for a folder of the file system.
func LoadSetDir(dir string) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("read migrations folder %s: not a folder", dir)
	}
	return load(os.DirFS(dir), ".", dir, "")
}

// Load reads every NNNN_name.cql file in dir of fsys (an embed.FS works: a service can
// carry its migrations in its binary), splits each into statements with the cql lexer and
// returns them in version order. Other files (README.md, ...) and sub-folders are
// ignored; golang-migrate's layout (1_init.up.cql, 1_init.down.cql) is read too, its
// .down.cql files left out (LoadSet says so in Set.Note). Every problem is reported, each
// naming its file: a .cql name without a version, two files with one version, a file that
// does not lex (file:line:col), a folder with no migration at all (ErrNoMigrations), or one
// that mixes the two layouts (ErrMixedLayout).
func Load(fsys fs.FS, dir string) ([]*Migration, error) {
	set, err := load(fsys, dir, dir, "")
	if err != nil {
		return nil, err
	}
	return set.Migrations, nil
}

// LoadSet is Load returning the whole Set: the migrations, the layout, the files left out,
// and the schema model from the same parse (Set.Schema).
func LoadSet(fsys fs.FS, dir string) (*Set, error) {
	return load(fsys, dir, dir, "")
}

// LoadSetAs is LoadSet in a layout named by the caller ("" detects it, as LoadSet does).
// gocqlx's layout is never detected (LayoutGocqlx says why): ask for it.
func LoadSetAs(fsys fs.FS, dir string, layout Layout) (*Set, error) {
	return load(fsys, dir, dir, layout)
}

// LoadSetDirAs is LoadSetAs for a folder of the file system.
func LoadSetDirAs(dir string, layout Layout) (*Set, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("read migrations folder %s: not a folder", dir)
	}
	return load(os.DirFS(dir), ".", dir, layout)
}

func load(fsys fs.FS, dir, display string, layout Layout) (*Set, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations folder %s: %w", display, err)
	}
	show := func(base string) string {
		if display != "." && display != "" {
			return filepath.Join(display, filepath.FromSlash(base))
		}
		return filepath.FromSlash(base)
	}
	switch {
	case layout == LayoutGocqlx:
		return loadGocqlx(fsys, dir, display, entries, show)
	case layout == LayoutManifest || (layout == "" && hasManifests(fsys, dir, entries)):
		return loadManifest(fsys, dir, display, entries, show)
	}
	set := &Set{Dir: display, Layout: LayoutCqlsize}
	var errs []error
	var up, plain, flyway []string // golang-migrate .up.cql files, plain .cql files, Flyway's V...__ files
	var folders, others []string
	var files []*pendingFile
	for _, e := range entries {
		base := e.Name()
		switch {
		case strings.HasPrefix(base, "."):
			continue
		case e.IsDir():
			folders = append(folders, base+"/")
			continue
		case hasSuffixFold(base, downSuffix):
			set.Ignored = append(set.Ignored, show(base))
			continue
		case flywayOther.MatchString(base):
			set.NotVersioned = append(set.NotVersioned, show(base))
			continue
		case !hasSuffixFold(base, ".cql"):
			others = append(others, base)
			if numbered.MatchString(base) {
				set.Skipped = append(set.Skipped, show(base))
			}
			continue
		case hasSuffixFold(base, upSuffix):
			up = append(up, base)
		default:
			plain = append(plain, base)
		}
		file := show(base)
		vn, err := parseVersioned(base)
		if err == nil && layout == LayoutFlyway && !vn.flyway {
			err = fmt.Errorf("%s: %w: the flyway layout wants V<version>__<description>.cql, e.g. V1.1__create_users.cql", base, ErrBadName)
		}
		if err != nil {
			// The message names the file as messages show it (with its folder), and keeps
			// what is wrong with the name and what is wanted.
			errs = append(errs, &nameError{msg: file + strings.TrimPrefix(err.Error(), base), err: err})
			continue
		}
		if vn.flyway {
			flyway = append(flyway, base)
		}
		src, err := fs.ReadFile(fsys, path.Join(dir, base))
		if err != nil {
			errs = append(errs, fmt.Errorf("read migration %s: %w", file, err))
			continue
		}
		files = append(files, &pendingFile{file: file, name: vn.name, parts: vn.parts, src: src})
	}
	// Both layouts in one folder are refused rather than guessed at: golang-migrate runs
	// only the .up.cql files and skips the plain ones, cqlsize would run both, so the two
	// tools would disagree about the history of the same keyspace.
	if len(up) > 0 && len(plain) > 0 {
		errs = append([]error{fmt.Errorf("%s: %w: %s is golang-migrate's ({version}_{title}.up.cql) and %s is cqlsize's (NNNN_name.cql); "+
			"golang-migrate would skip %s, so the two tools would apply different histories: rename the plain files to .up.cql, or the .up.cql files to .cql",
			display, ErrMixedLayout, up[0], plain[0], plain[0])}, errs...)
	}
	if err := numberVersions(files); err != nil {
		errs = append(errs, err)
	}
	// Every file is parsed even when names are wrong: one run reports every problem.
	badName := errors.Is(errors.Join(errs...), ErrBadName)
	for _, f := range files {
		m, err := f.parse()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		set.Migrations = append(set.Migrations, m)
	}
	if len(errs) > 0 {
		if layout == "" && badName {
			errs = append(errs, fmt.Errorf("if these are gocqlx/migrate files (applied in file-name order), pass --layout gocqlx (migrations.LayoutGocqlx)"))
		}
		return nil, errors.Join(errs...)
	}
	switch {
	case len(up) > 0:
		set.Layout = LayoutGolangMigrate
	case len(flyway) > 0:
		set.Layout = LayoutFlyway
	}
	if layout != "" && layout != set.Layout && len(set.Migrations) > 0 {
		return nil, fmt.Errorf("migrations folder %s: asked for the %s layout, and its files are in the %s layout (%s)", display, layout, set.Layout, fileBase(set.Migrations[0].File))
	}
	if len(set.Migrations) == 0 {
		return nil, noMigrations(display, folders, others, set.Ignored)
	}
	sort.SliceStable(set.Migrations, func(i, j int) bool { return set.Migrations[i].Version < set.Migrations[j].Version })
	return set, nil
}

// noMigrations explains an empty folder by what it does hold.
func noMigrations(display string, folders, others, ignored []string) error {
	var held []string
	list := func(names []string, one, many string) {
		if len(names) == 0 {
			return
		}
		ex := names
		if len(ex) > 3 {
			ex = ex[:3]
		}
		what := one
		if len(names) > 1 {
			what = many
		}
		held = append(held, fmt.Sprintf("%d %s (%s)", len(names), what, strings.Join(ex, ", ")))
	}
	list(folders, "sub-folder", "sub-folders")
	list(others, "other file", "other files")
	list(ignored, ".down.cql file", ".down.cql files")
	what := "it is empty"
	if len(held) > 0 {
		what = "it holds only " + strings.Join(held, " and ")
	}
	if display == "" {
		display = "."
	}
	return fmt.Errorf("migrations folder %s: %w: %s; want NNNN_name.cql files (or golang-migrate's N_name.up.cql), e.g. 0001_create_users.cql; is the folder right?",
		display, ErrNoMigrations, what)
}

// Parse builds a Migration from a file's name and content (Load does this for each file).
// A dotted version (Flyway's V1.46__x.cql) is numbered by its place in its folder, which
// one file does not tell: its Version is 0 and its Label the version as written.
func Parse(file string, src []byte) (*Migration, error) {
	vn, err := parseVersioned(fileBase(file))
	if err != nil {
		return nil, err
	}
	p := &pendingFile{file: file, name: vn.name, parts: vn.parts, src: src, version: vn.parts[0]}
	if len(vn.parts) > 1 {
		p.version, p.label = 0, vn.parts.String()
	}
	return p.parse()
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
	m := &Migration{Version: version, Name: name, File: file, Checksum: sha256hex(src), Source: src, Parsed: parsed}
	// A USE switches the keyspace of the file's following statements, as it would in
	// cqlsh; histories written for other runners say `USE app;` at the top. The driver
	// refuses USE, so it is never sent: the statements after it are sent with their names
	// qualified (statementText), and the next file starts again in the target keyspace.
	use := ""
	for i, r := range raw {
		st := Statement{
			Text: r.Text, Pos: r.Pos, End: r.End, Doc: r.Doc,
			Checksum: sha256hex([]byte(r.Text)),
			Schema:   isSchemaChange(r.Text),
			Keyspace: use,
		}
		if u, ok := parsed[i].(*cql.Use); ok {
			st.Use, st.Keyspace = true, ""
			use = u.Keyspace.Name
		}
		m.Statements = append(m.Statements, st)
	}
	return m, nil
}
