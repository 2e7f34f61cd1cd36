package migrations

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// Tool names another migration tool whose bookkeeping Adopt reads.
type Tool string

// Tools Adopt reads.
const (
	// GolangMigrate is github.com/golang-migrate/migrate's Cassandra driver. Its table
	// (schema_migrations by default, x-migrations-table to change it) is
	// (version bigint PRIMARY KEY, dirty boolean) and holds one row: the last version
	// applied. Every file up to it is applied; dirty = true means the run of that version
	// failed partway.
	GolangMigrate Tool = "golang-migrate"
	// Gocqlx is github.com/scylladb/gocqlx's migrate package. Its table (gocqlx_migrate)
	// is (name text PRIMARY KEY, checksum text, done int, start_time timestamp,
	// end_time timestamp): one row per file, checksum the md5 of the file's bytes, done the
	// number of ';'-separated pieces of the file it has run.
	Gocqlx Tool = "gocqlx"
	// Flyway is Flyway's Cassandra support (flyway-database-cassandra). Its table
	// (flyway_schema_history by default) is one partition ('flyway') with a row per run
	// of a file, by installed_rank: version text, type, script, checksum int (CRC-32 of
	// the file's lines, line endings left out), success boolean. A BASELINE row marks
	// every version up to its own as applied.
	Flyway Tool = "flyway"
)

// DefaultTable is the other tool's default bookkeeping table.
func (t Tool) DefaultTable() string {
	switch t {
	case GolangMigrate:
		return "schema_migrations"
	case Gocqlx:
		return "gocqlx_migrate"
	case Flyway:
		return "flyway_schema_history"
	}
	return ""
}

// ParseTool reads a --from value.
func ParseTool(s string) (Tool, error) {
	switch t := Tool(strings.ToLower(strings.TrimSpace(s))); t {
	case GolangMigrate, Gocqlx, Flyway:
		return t, nil
	}
	return "", fmt.Errorf("%q: want %s, %s or %s", s, GolangMigrate, Gocqlx, Flyway)
}

// ErrNotAdoptable: the other tool's bookkeeping says a run stopped partway, names a file
// the folder does not have, or records a file whose content has changed since. Nothing is
// recorded; the error says what to do.
var ErrNotAdoptable = errors.New("cannot adopt the other tool's history")

// Adopt reads the bookkeeping table of another migration tool in the target keyspace
// (table "" for the tool's default) and records exactly the files that tool applied as
// applied (state baseline, with the checksums cqlsize computes), without running them, so
// that the next Up runs only the rest. It refuses (ErrNotAdoptable) a history the other
// tool left half-applied or that does not match the folder. It returns the files it
// recorded; files already recorded by cqlsize are left as they are.
func (m *Migrator) Adopt(ctx context.Context, from Tool, table string) ([]*Migration, error) {
	if table == "" {
		table = from.DefaultTable()
	}
	if err := checkName(table); err != nil {
		return nil, fmt.Errorf("%s table %q: %w", from, table, err)
	}
	ok, err := tableExists(ctx, m.s, m.opt.Keyspace, table)
	if err != nil {
		return nil, err
	}
	where := cql.QuoteName(m.opt.Keyspace) + "." + cql.QuoteName(table)
	if !ok {
		return nil, fmt.Errorf("%w: no table %s: %s has not run in keyspace %s (or keeps its history in another table: name it)", ErrNotAdoptable, where, from, m.opt.Keyspace)
	}
	var versions []int64
	switch from {
	case GolangMigrate:
		versions, err = m.golangMigrateApplied(ctx, where)
	case Gocqlx:
		versions, err = m.gocqlxApplied(ctx, where)
	case Flyway:
		versions, err = m.flywayApplied(ctx, where)
	default:
		return nil, fmt.Errorf("adopt: unknown tool %q", from)
	}
	if err != nil {
		return nil, err
	}
	return m.BaselineVersions(ctx, versions)
}

// golangMigrateApplied reads golang-migrate's single row: every file up to its version.
func (m *Migrator) golangMigrateApplied(ctx context.Context, table string) ([]int64, error) {
	iter := m.st.q(ctx, `SELECT version, dirty FROM `+table).Iter()
	type row struct {
		version int64
		dirty   bool
	}
	var rows []row
	var r row
	for iter.Scan(&r.version, &r.dirty) {
		rows = append(rows, r)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	switch {
	case len(rows) == 0:
		return nil, fmt.Errorf("%w: %s is empty: golang-migrate applied nothing here; run Migrator.Up", ErrNotAdoptable, table)
	case len(rows) > 1:
		return nil, fmt.Errorf("%w: %s holds %d versions where golang-migrate keeps one (two runs at once?); keep the right one (DELETE the others) and adopt again", ErrNotAdoptable, table, len(rows))
	}
	v, dirty := rows[0].version, rows[0].dirty
	if dirty {
		return nil, fmt.Errorf("%w: %s says version %d is dirty: golang-migrate's run of it failed partway. Check which of its statements ran and finish or undo them by hand, then mark it clean with `migrate -path DIR -database URL force %d` (or the version before it, if you undid it) and adopt again",
			ErrNotAdoptable, table, v, v)
	}
	if m.byVersion[v] == nil {
		return nil, fmt.Errorf("%w: golang-migrate applied up to version %d (%s), and the folder has no file with that version", ErrNotAdoptable, v, table)
	}
	var out []int64
	for _, mg := range m.migs {
		if mg.Version <= v {
			out = append(out, mg.Version)
		}
	}
	return out, nil
}

// gocqlxApplied reads gocqlx's rows: each names a file it ran, with the file's md5 and
// how many of its pieces ran.
func (m *Migrator) gocqlxApplied(ctx context.Context, table string) ([]int64, error) {
	byName := map[string]*Migration{}
	for _, mg := range m.migs {
		byName[fileBase(mg.File)] = mg
	}
	iter := m.st.q(ctx, `SELECT name, checksum, done FROM `+table).Iter()
	var (
		name, sum string
		done      int
		out       []int64
		problems  []string
	)
	for iter.Scan(&name, &sum, &done) {
		mg := byName[name]
		switch {
		case mg == nil:
			problems = append(problems, fmt.Sprintf("gocqlx applied %s, which the folder does not have", name))
		case md5hex(mg.Source) != sum:
			problems = append(problems, fmt.Sprintf("%s changed since gocqlx applied it (md5 %s recorded, %s now)", mg.File, sum, md5hex(mg.Source)))
		case done < gocqlxPieces(mg.Source):
			problems = append(problems, fmt.Sprintf("gocqlx stopped %s after %d of its %d ';'-separated pieces: finish that file with gocqlx (or by hand, then set done = %d) before adopting",
				mg.File, done, gocqlxPieces(mg.Source), gocqlxPieces(mg.Source)))
		default:
			out = append(out, mg.Version)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("%w from %s: %s", ErrNotAdoptable, table, strings.Join(problems, "; "))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s is empty: gocqlx applied nothing here; run Migrator.Up", ErrNotAdoptable, table)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// gocqlxPieces counts the pieces gocqlx runs a file as: it cuts at every ';' (inside
// strings and comments too) and runs a last piece without one when it is not blank. Its
// done column counts the same pieces, so a file is complete when done reaches this.
func gocqlxPieces(src []byte) int {
	n := bytes.Count(src, []byte(";"))
	if i := bytes.LastIndexByte(src, ';'); len(bytes.TrimSpace(src[i+1:])) > 0 {
		n++
	}
	return n
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// BaselineVersions records the given versions as applied (state baseline) without running
// them, as Baseline does for every version up to one. Versions already recorded as applied
// are left alone; a partly applied one is an error.
func (m *Migrator) BaselineVersions(ctx context.Context, versions []int64) ([]*Migration, error) {
	want := map[int64]bool{}
	for _, v := range versions {
		if m.byVersion[v] == nil {
			return nil, fmt.Errorf("baseline: version %d: %w", v, ErrUnknownVersion)
		}
		want[v] = true
	}
	if _, err := m.st.ensure(ctx); err != nil {
		return nil, err
	}
	l, err := m.lock(ctx, nil)
	if err != nil {
		return nil, err
	}
	out, err := m.baselineWhere(l, func(mg *Migration) bool { return want[mg.Version] })
	err = m.unlock(l, l.explain(err))
	return out, err
}

// baselineWhere records the files chosen by pick as baselined, in version order.
func (m *Migrator) baselineWhere(l *lease, pick func(*Migration) bool) ([]*Migration, error) {
	recs, err := m.records(l.ctx)
	if err != nil {
		return nil, err
	}
	run, err := gocql.RandomUUID()
	if err != nil {
		return nil, err
	}
	var out []*Migration
	for _, mg := range m.migs {
		if !pick(mg) {
			continue
		}
		if r := recs[mg.Version]; r != nil {
			if !r.Complete() {
				return out, fmt.Errorf("baseline: %s is partly applied (%d of %d statements): finish it with Migrator.Up first", mg.File, r.Applied, len(mg.Statements))
			}
			continue
		}
		if err := m.st.baseline(l.ctx, l.owner, mg, run); err != nil {
			return out, err
		}
		out = append(out, mg)
	}
	return out, nil
}
