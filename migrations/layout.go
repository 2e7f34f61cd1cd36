package migrations

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Layouts of other runners' histories, read as they write them. A history keeps its
// runner's order: Flyway's numeric version order, gocqlx's file-name order, a manifest's
// folder order.
const (
	// LayoutFlyway: Flyway's versioned migrations, V<version>__<description>.cql, the
	// version's parts separated by dots or underscores (V1_1__a.cql is version 1.1), and
	// V<version>_<description>.cql with a dotted version (V1.46_tables.cql). Versions are
	// ordered numerically part by part (1.5 before 1.46; 1.0 and 1 are the same version).
	// An upper-case V only, as Flyway requires. A folder whose versions are all single
	// numbers (V1__a.cql, V2__b.cql) records them as they are; one with a dotted version
	// numbers its files 1, 2, 3... in version order (Migration.Version), each keeping the
	// version it was written with (Migration.Label). Flyway's repeatable (R__) and undo
	// (U1__) migrations are left out, and said to be.
	LayoutFlyway Layout = "flyway"
	// LayoutGocqlx: github.com/scylladb/gocqlx/v2/migrate's folder: every *.cql file,
	// applied in the byte order of its name (001-init.cql, v2.0.0.cql, ...), as gocqlx
	// sorts them; the files are numbered 1, 2, 3... in that order. Its `-- CALL name;`
	// lines run a callback the program registered (Options.Calls). Never detected: a
	// folder of unversioned names is refused unless the layout is asked for, since a
	// misnamed file would otherwise run in alphabetical order without a word.
	LayoutGocqlx Layout = "gocqlx"
	// LayoutManifest: one sub-folder a version (v0.1/, v1.0/, ...), each with a
	// manifest.json naming its files in order, as Temporal's and Cadence's schema tools
	// keep them: {"CurrVersion": "1.0", "Description": "...", "SchemaUpdateCqlFiles":
	// ["changes.cql"]}. The folders are ordered by CurrVersion, numerically; every file
	// listed is a migration, numbered 1, 2, 3... in that order.
	LayoutManifest Layout = "manifest"
)

// Manifest is the file a manifest layout's version folder holds.
const Manifest = "manifest.json"

// ErrUnknownLayout: a layout name Load does not know.
var ErrUnknownLayout = errors.New("unknown migration layout")

// ParseLayout reads a layout's name as a user gives it ("" or "auto": detect it).
func ParseLayout(s string) (Layout, error) {
	switch l := Layout(strings.ToLower(strings.TrimSpace(s))); l {
	case "", "auto":
		return "", nil
	case LayoutCqlsize, LayoutGolangMigrate, LayoutFlyway, LayoutGocqlx, LayoutManifest:
		return l, nil
	}
	return "", fmt.Errorf("%q: %w: want auto, %s, %s, %s, %s or %s", s, ErrUnknownLayout,
		LayoutCqlsize, LayoutFlyway, LayoutGolangMigrate, LayoutGocqlx, LayoutManifest)
}

// VersionLabel is the version as its file writes it: "1.46" for V1.46_x.cql, the file name
// for gocqlx's layout, "3" for 0003_x.cql.
func (m *Migration) VersionLabel() string {
	if m.Label != "" {
		return m.Label
	}
	return strconv.FormatInt(m.Version, 10)
}

// dotted is a version of several numbers (Flyway's 1.46, a manifest's 0.1).
type dotted []int64

// parseDotted reads numbers separated by any of seps.
func parseDotted(s, seps string) (dotted, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
	if len(fields) == 0 {
		return nil, fmt.Errorf("no version number in %q", s)
	}
	out := make(dotted, len(fields))
	for i, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a version number part (0 to %d)", f, int64(1<<63-1))
		}
		out[i] = n
	}
	return out, nil
}

// trimmed drops trailing zero parts: Flyway reads 1.0 and 1 as one version.
func (d dotted) trimmed() dotted {
	n := len(d)
	for n > 1 && d[n-1] == 0 {
		n--
	}
	return d[:n]
}

// compare orders versions part by part, numerically, a missing part counting as 0.
func (d dotted) compare(o dotted) int {
	for i := 0; i < max(len(d), len(o)); i++ {
		var a, b int64
		if i < len(d) {
			a = d[i]
		}
		if i < len(o) {
			b = o[i]
		}
		if a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (d dotted) String() string {
	parts := make([]string, len(d))
	for i, n := range d {
		parts[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(parts, ".")
}

// flywayDouble is V<version>__<description>.cql, the version's parts separated by dots or
// underscores; flywaySingle is V<dotted version>_<description>.cql (or -), the form
// projects use where the description follows one underscore.
var (
	flywayDouble = regexp.MustCompile(`^V([0-9]+(?:[._][0-9]+)*)__(.*)\.(?i:cql)$`)
	flywaySingle = regexp.MustCompile(`^V([0-9]+(?:\.[0-9]+)+)(?:[_-]+(.*))?\.(?i:cql)$`)
	// flywayOther are Flyway's repeatable and undo migrations, which cqlsize does not run.
	flywayOther = regexp.MustCompile(`^(?:R__.*|U[0-9]+(?:[._][0-9]+)*__.*)\.(?i:cql)$`)
)

// versionedName is what a versioned layout's file name says.
type versionedName struct {
	parts  dotted
	name   string
	flyway bool // in Flyway's V...__ form
}

// parseVersioned reads a cqlsize, golang-migrate or Flyway file name.
func parseVersioned(base string) (versionedName, error) {
	for _, re := range []*regexp.Regexp{flywayDouble, flywaySingle} {
		if m := re.FindStringSubmatch(base); m != nil {
			parts, err := parseDotted(m[1], "._")
			if err != nil {
				return versionedName{}, fmt.Errorf("%s: %w: %v", base, ErrBadName, err)
			}
			return versionedName{parts: parts, name: m[2], flyway: true}, nil
		}
	}
	v, name, err := ParseName(base)
	if err != nil {
		return versionedName{}, err
	}
	return versionedName{parts: dotted{v}, name: name}, nil
}

// numberVersions sets the versions of a versioned folder's files: a folder of single
// numbers keeps them (0003_x.cql is version 3, as it was always recorded); one with a
// dotted version numbers its files by their place in version order, each keeping the
// version it was written with as its label. Two files with one version are refused.
func numberVersions(files []*pendingFile) error {
	multi := false
	for _, f := range files {
		multi = multi || len(f.parts) > 1
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].parts.compare(files[j].parts) < 0 })
	var errs []error
	for i, f := range files {
		if i > 0 && files[i-1].parts.compare(f.parts) == 0 {
			errs = append(errs, fmt.Errorf("%s and %s: %w (%s)", files[i-1].file, f.file, ErrDuplicateVersion, f.parts.trimmed()))
		}
		if multi {
			f.version, f.label = int64(i+1), f.parts.String()
		} else {
			f.version = f.parts[0]
		}
	}
	return errors.Join(errs...)
}

// pendingFile is a migration file read but not yet parsed, while its version is worked out.
type pendingFile struct {
	file, name, label string
	parts             dotted
	version           int64
	src               []byte
}

func (p *pendingFile) parse() (*Migration, error) {
	m, err := parseMigration(p.file, p.version, p.name, p.src)
	if err != nil {
		return nil, err
	}
	m.Label = p.label
	return m, nil
}

// loadGocqlx reads gocqlx/migrate's folder: every *.cql file in name order.
func loadGocqlx(fsys fs.FS, dir, display string, entries []fs.DirEntry, show func(string) string) (*Set, error) {
	set := &Set{Dir: display, Layout: LayoutGocqlx}
	var names, others, folders []string
	for _, e := range entries {
		base := e.Name()
		switch {
		case e.IsDir():
			folders = append(folders, base+"/")
		case strings.HasSuffix(base, ".cql"): // gocqlx globs *.cql, case and all
			names = append(names, base)
		default:
			others = append(others, base)
		}
	}
	if len(names) == 0 {
		return nil, noMigrations(display, folders, others, nil)
	}
	sort.Strings(names)
	var errs []error
	for i, base := range names {
		src, err := fs.ReadFile(fsys, path.Join(dir, base))
		if err != nil {
			errs = append(errs, fmt.Errorf("read migration %s: %w", show(base), err))
			continue
		}
		name := strings.TrimSuffix(base, ".cql")
		m, err := parseMigration(show(base), int64(i+1), name, src)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m.Label = name
		m.Calls = gocqlxCalls(m.File, src, m.Statements)
		set.Migrations = append(set.Migrations, m)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// gocqlxCall is gocqlx's callback line: a ';'-separated piece that is, once trimmed, one
// `-- CALL name;` comment and nothing else (gocqlx runs it; a callback line that shares
// its piece with another comment is skipped by gocqlx, so it is skipped here too).
var gocqlxCall = regexp.MustCompile(`^-- *CALL +(.+);$`)

// gocqlxCalls finds the callback lines of a gocqlx file, cutting it at every ';' as gocqlx
// does, and places each before the first statement that starts after it.
func gocqlxCalls(file string, src []byte, stmts []Statement) []Call {
	var out []Call
	start := 0
	for start < len(src) {
		end := start
		for end < len(src) && src[end] != ';' {
			end++
		}
		if end < len(src) {
			end++ // the piece keeps its ';'
		}
		piece := string(src[start:end])
		if m := gocqlxCall.FindStringSubmatch(strings.TrimSpace(piece)); m != nil {
			at := start + strings.Index(piece, "--")
			pos := offsetPos(file, src, at)
			before := 0
			for _, st := range stmts {
				if st.Pos.Offset < at {
					before++
				}
			}
			out = append(out, Call{Name: m[1], Pos: pos, After: before})
		}
		start = end
	}
	return out
}

// offsetPos is the file:line:col of a byte offset (columns count bytes, as the lexer's do).
func offsetPos(file string, src []byte, off int) cql.Pos {
	line, col := 1, 1
	for _, b := range src[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return cql.Pos{File: file, Line: line, Col: col, Offset: off}
}

// manifestFile is a version folder's manifest.json, in the fields this layout reads.
type manifestFile struct {
	CurrVersion          string
	MinCompatibleVersion string
	Description          string
	SchemaUpdateCqlFiles []string
}

// hasManifests reports whether dir holds version folders with a manifest and no .cql
// file of its own: the manifest layout.
func hasManifests(fsys fs.FS, dir string, entries []fs.DirEntry) bool {
	found := false
	for _, e := range entries {
		if !e.IsDir() {
			if hasSuffixFold(e.Name(), ".cql") {
				return false
			}
			continue
		}
		if _, err := fs.Stat(fsys, path.Join(dir, e.Name(), Manifest)); err == nil {
			found = true
		}
	}
	return found
}

// loadManifest reads a folder of version folders, each with its manifest.json.
func loadManifest(fsys fs.FS, dir, display string, entries []fs.DirEntry, show func(string) string) (*Set, error) {
	set := &Set{Dir: display, Layout: LayoutManifest}
	type version struct {
		folder string
		parts  dotted
		man    manifestFile
	}
	var versions []version
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		folder := e.Name()
		mpath := path.Join(dir, folder, Manifest)
		raw, err := fs.ReadFile(fsys, mpath)
		if errors.Is(err, fs.ErrNotExist) {
			set.Skipped = append(set.Skipped, show(folder)+"/")
			continue
		}
		shown := show(path.Join(folder, Manifest))
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", shown, err))
			continue
		}
		var man manifestFile
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		if err := dec.Decode(&man); err != nil {
			errs = append(errs, jsonError(shown, raw, err))
			continue
		}
		label := man.CurrVersion
		if label == "" {
			label = strings.TrimPrefix(strings.TrimPrefix(folder, "v"), "V")
		}
		parts, err := parseDotted(label, ".")
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: CurrVersion %q: want a version such as 1.0: %v", shown, man.CurrVersion, err))
			continue
		}
		if len(man.SchemaUpdateCqlFiles) == 0 {
			errs = append(errs, fmt.Errorf("%s: SchemaUpdateCqlFiles lists no file", shown))
			continue
		}
		versions = append(versions, version{folder: folder, parts: parts, man: man})
	}
	sort.SliceStable(versions, func(i, j int) bool { return versions[i].parts.compare(versions[j].parts) < 0 })
	n := int64(0)
	for i, v := range versions {
		if i > 0 && versions[i-1].parts.compare(v.parts) == 0 {
			errs = append(errs, fmt.Errorf("%s and %s: %w (%s)", show(versions[i-1].folder), show(v.folder), ErrDuplicateVersion, v.parts))
			continue
		}
		listed := map[string]bool{}
		for _, f := range v.man.SchemaUpdateCqlFiles {
			rel := path.Join(v.folder, f)
			listed[path.Clean(rel)] = true
			src, err := fs.ReadFile(fsys, path.Join(dir, rel))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s lists %s: %w", show(path.Join(v.folder, Manifest)), f, err))
				continue
			}
			n++
			name := v.man.Description
			if len(v.man.SchemaUpdateCqlFiles) > 1 || name == "" {
				name = strings.TrimSuffix(path.Base(f), path.Ext(f))
			}
			m, err := parseMigration(show(rel), n, name, src)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			m.Label = v.parts.String()
			if len(v.man.SchemaUpdateCqlFiles) > 1 {
				m.Label += "/" + path.Base(f)
			}
			set.Migrations = append(set.Migrations, m)
		}
		// A .cql file beside the manifest that it does not list never runs: say so.
		if ents, err := fs.ReadDir(fsys, path.Join(dir, v.folder)); err == nil {
			for _, e := range ents {
				rel := path.Join(v.folder, e.Name())
				if !e.IsDir() && hasSuffixFold(e.Name(), ".cql") && !listed[rel] {
					set.Unlisted = append(set.Unlisted, show(rel))
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(set.Migrations) == 0 {
		return nil, fmt.Errorf("migrations folder %s: %w: no version folder holds a %s", display, ErrNoMigrations, Manifest)
	}
	return set, nil
}

// jsonError names a manifest's syntax error by line and column.
func jsonError(file string, raw []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		p := offsetPos(file, raw, int(max(0, min(se.Offset-1, int64(len(raw))))))
		return fmt.Errorf("%s: %v", p, err)
	case errors.As(err, &te):
		p := offsetPos(file, raw, int(min(te.Offset, int64(len(raw)))))
		return fmt.Errorf("%s: %s holds a %s where a %s belongs", p, te.Field, te.Value, te.Type)
	}
	return fmt.Errorf("%s: %v", file, err)
}
