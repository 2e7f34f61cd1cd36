package migrations_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

// ctxT bounds one test's calls: a guard against a hang, not a speed bound (a history of
// twenty files, each schema change awaited for agreement, takes minutes on a busy node).
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func load(t *testing.T, files map[string]string) []*migrations.Migration {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, src := range files {
		fsys["m/"+name] = &fstest.MapFile{Data: []byte(src)}
	}
	migs, err := migrations.Load(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	return migs
}

type recorder struct{ events []migrations.Event }

func (r *recorder) on(e migrations.Event) { r.events = append(r.events, e) }

func (r *recorder) count(k migrations.EventKind) int {
	n := 0
	for _, e := range r.events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func newMigrator(t *testing.T, s *gocql.Session, ks string, migs []*migrations.Migration, opt migrations.Options) (*migrations.Migrator, *recorder) {
	t.Helper()
	rec := &recorder{}
	opt.Keyspace = ks
	opt.OnEvent = rec.on
	m, err := migrations.New(s, migs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m, rec
}

var basic = map[string]string{
	"0001_users.cql": `-- users by id
CREATE TABLE users (id uuid PRIMARY KEY, name text, note text);
-- a ';' inside a string must not split the statement
INSERT INTO users (id, name, note) VALUES (00000000-0000-0000-0000-000000000001, 'root', 'a;b -- not a comment');`,
	"0002_hits.cql": `CREATE TABLE hits (k text PRIMARY KEY, n counter);
UPDATE hits SET n = n + 1 WHERE k = 'applied';`,
}

func TestUpAppliesOnceAndRecords(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	migs := load(t, basic)
	m, rec := newMigrator(t, s, ks, migs, migrations.Options{})

	res, err := m.Up(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 2 || rec.count(migrations.StatementDone) != 4 || rec.count(migrations.LockAcquired) != 1 {
		t.Fatalf("applied %d files, %d statements, %d lock acquisitions", len(res.Applied), rec.count(migrations.StatementDone), rec.count(migrations.LockAcquired))
	}
	var note string
	if err := s.Query(`SELECT note FROM users WHERE id = 00000000-0000-0000-0000-000000000001`).Scan(&note); err != nil || note != "a;b -- not a comment" {
		t.Fatalf("note = %q, %v", note, err)
	}

	// Up to date: a second run applies nothing and does not even take the lock.
	m2, rec2 := newMigrator(t, s, ks, migs, migrations.Options{})
	res, err = m2.Up(ctx)
	if err != nil || len(res.Applied) != 0 || rec2.count(migrations.LockAcquired) != 0 {
		t.Fatalf("second Up: %d applied, %d lock acquisitions, err %v", len(res.Applied), rec2.count(migrations.LockAcquired), err)
	}
	var n int64
	if err := s.Query(`SELECT n FROM hits WHERE k = 'applied'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("counter = %d, %v: want exactly one application", n, err)
	}

	st, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range st {
		r := x.Record
		if x.State != migrations.StatusApplied || r.Applied != 2 || r.Statements != 2 || r.Checksum != x.Migration.Checksum ||
			r.PID == 0 || r.AppliedBy == "" || !strings.HasPrefix(r.ToolVersion, "cqlsize ") || r.FinishedAt.Before(r.StartedAt) ||
			len(r.Done) != 2 || len(r.StatementSums) != 2 {
			t.Errorf("%s: state %s record %+v", x.File, x.State, r)
		}
	}
}

func TestChecksumMismatchAndAccept(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	m, _ := newMigrator(t, s, ks, load(t, basic), migrations.Options{})
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	changed := map[string]string{}
	for k, v := range basic {
		changed[k] = v
	}
	changed["0001_users.cql"] = "-- reworded comment\n" + basic["0001_users.cql"]
	migs := load(t, changed)
	m2, _ := newMigrator(t, s, ks, migs, migrations.Options{})
	_, err := m2.Up(ctx)
	var ce *migrations.ChecksumError
	if !errors.Is(err, migrations.ErrChecksumMismatch) || !errors.As(err, &ce) {
		t.Fatalf("Up after a change: %v, want ErrChecksumMismatch", err)
	}
	if !strings.Contains(err.Error(), ce.Recorded) || !strings.Contains(err.Error(), migs[0].Checksum) || ce.Recorded == migs[0].Checksum {
		t.Errorf("message does not give both checksums: %v", err)
	}
	prev, err := m2.AcceptChecksum(ctx, 1)
	if err != nil || prev != ce.Recorded {
		t.Fatalf("AcceptChecksum: %q, %v", prev, err)
	}
	if _, err := m2.Up(ctx); err != nil {
		t.Fatalf("Up after accepting: %v", err)
	}
	st, _ := m2.Status(ctx)
	if st[0].State != migrations.StatusApplied || st[0].Record.PreviousChecksum != ce.Recorded {
		t.Errorf("status after accept: %s, previous %q", st[0].State, st[0].Record.PreviousChecksum)
	}
}

func TestFailedStatementResumesAfterFix(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	broken := map[string]string{
		"0001_hits.cql": `CREATE TABLE hits (k text PRIMARY KEY, n counter);
UPDATE hits SET n = n + 1 WHERE k = 'once';
ALTER TABLE no_such_table ADD x int;
CREATE TABLE after (k int PRIMARY KEY);`,
	}
	m, _ := newMigrator(t, s, ks, load(t, broken), migrations.Options{})
	_, err := m.Up(ctx)
	var pe *migrations.PartialError
	if !errors.As(err, &pe) || pe.Statement != 3 || pe.Applied != 2 || pe.Pos.Line != 3 || pe.Pos.File != "m/0001_hits.cql" {
		t.Fatalf("Up: %v, want a PartialError at statement 3 (m/0001_hits.cql:3)", err)
	}
	if !strings.HasPrefix(err.Error(), "m/0001_hits.cql:3:1: ") {
		t.Errorf("error does not start with file:line:col: %v", err)
	}
	// The node refused it: the error says to fix that statement, and what ran before it.
	if pe.Text != "ALTER TABLE no_such_table ADD x int" || !pe.Refused || pe.LastRan.Line != 2 ||
		!strings.Contains(err.Error(), "fix statement 3 in m/0001_hits.cql") {
		t.Errorf("what to fix: text %q, refused %v, last ran at %s:\n%v", pe.Text, pe.Refused, pe.LastRan, err)
	}
	st, _ := m.Status(ctx)
	if st[0].State != migrations.StatusPartial || st[0].Record.Applied != 2 || !strings.Contains(st[0].Record.Error, "no_such_table") {
		t.Fatalf("status: %s %+v", st[0].State, st[0].Record)
	}

	// Fix the failing statement: the two that ran are unchanged, so the run continues.
	fixed := map[string]string{"0001_hits.cql": strings.Replace(broken["0001_hits.cql"], "no_such_table ADD x int", "hits ADD m counter", 1)}
	m2, rec := newMigrator(t, s, ks, load(t, fixed), migrations.Options{})
	res, err := m2.Up(ctx)
	if err != nil || len(res.Applied) != 1 || res.Applied[0].From != 3 {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	var resumed string
	for _, e := range rec.events {
		if e.Kind == migrations.MigrationStart {
			resumed = e.String()
		}
	}
	if !strings.Contains(resumed, "resuming at statement 3 of 4") || !strings.Contains(resumed, "statement 3 failed") {
		t.Errorf("resume message: %q", resumed)
	}
	var n int64
	if err := s.Query(`SELECT n FROM hits WHERE k = 'once'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("counter = %d, %v: a statement that ran was run again", n, err)
	}

	// Changing a statement that already ran is refused, naming the statement.
	edited := map[string]string{"0001_hits.cql": strings.Replace(fixed["0001_hits.cql"], "'once'", "'twice'", 1)}
	m3, _ := newMigrator(t, s, ks, load(t, edited), migrations.Options{})
	if _, err := m3.Up(ctx); !errors.Is(err, migrations.ErrChecksumMismatch) {
		t.Fatalf("edited applied file: %v", err)
	}
}

func TestBaselineAndOutOfOrder(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	files := map[string]string{
		"0001_a.cql": "CREATE TABLE a (k int PRIMARY KEY);",
		"0002_b.cql": "CREATE TABLE b (k int PRIMARY KEY);",
		"0003_c.cql": "CREATE TABLE c (k int PRIMARY KEY);",
	}
	// The schema of 1 and 2 exists already, made by hand.
	cassandratest.DDL(t, s, ks, files["0001_a.cql"], files["0002_b.cql"])
	m, _ := newMigrator(t, s, ks, load(t, files), migrations.Options{})
	got, err := m.Baseline(ctx, 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("Baseline: %d, %v", len(got), err)
	}
	res, err := m.Up(ctx)
	if err != nil || len(res.Applied) != 1 || res.Applied[0].Migration.Version != 3 {
		t.Fatalf("Up after baseline: %+v, %v", res, err)
	}
	st, _ := m.Status(ctx)
	want := []migrations.StatusState{migrations.StatusBaseline, migrations.StatusBaseline, migrations.StatusApplied}
	for i, x := range st {
		if x.State != want[i] {
			t.Errorf("%s: %s, want %s", x.File, x.State, want[i])
		}
	}

}

func TestOutOfOrderFileIsRefusedUnlessAllowed(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	files := map[string]string{
		"0001_a.cql": "CREATE TABLE a (k int PRIMARY KEY);",
		"0003_c.cql": "CREATE TABLE c (k int PRIMARY KEY);",
	}
	m, _ := newMigrator(t, s, ks, load(t, files), migrations.Options{})
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	files["0002_late.cql"] = "CREATE TABLE late (k int PRIMARY KEY);"
	m, _ = newMigrator(t, s, ks, load(t, files), migrations.Options{})
	_, err := m.Up(ctx)
	var oo *migrations.OutOfOrderError
	if !errors.As(err, &oo) || oo.File != "m/0002_late.cql" || oo.Applied != "m/0003_c.cql" {
		t.Fatalf("Up with a late file: %v", err)
	}
	m, _ = newMigrator(t, s, ks, load(t, files), migrations.Options{AllowOutOfOrder: true})
	if res, err := m.Up(ctx); err != nil || len(res.Applied) != 1 {
		t.Fatalf("Up allowing out of order: %+v, %v", res, err)
	}
}

// TestInFlightStatementIsRecognised: a run died while statement 2 (a CREATE TABLE without
// IF NOT EXISTS) was running, after Cassandra had applied it. The next run runs it again,
// recognises "already exists" as the earlier attempt's success, and continues.
func TestInFlightStatementIsRecognised(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	files := map[string]string{"0001_three.cql": `CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);
CREATE TABLE b (k int PRIMARY KEY);
CREATE TABLE c (k int PRIMARY KEY);`}
	migs := load(t, files)
	// Create the bookkeeping tables with an empty set.
	empty, _ := newMigrator(t, s, ks, nil, migrations.Options{})
	if _, err := empty.Up(ctx); err != nil {
		t.Fatal(err)
	}
	// What the dead run left: statements 1 and 2 applied, the bookkeeping saying 1 done
	// and 2 running.
	for _, st := range migs[0].Statements[:2] {
		cassandratest.DDL(t, s, ks, st.Text)
	}
	if err := s.Query(`INSERT INTO cqlsize_migrations (target, version, name, checksum, state, statements, applied, running,
		statement_checksum, applied_by, pid) VALUES (?, 1, '0001_three.cql', ?, 'running', 3, 1, 2, ?, 'dead-host', 4242)`,
		ks, migs[0].Checksum, map[int]string{1: migs[0].Statements[0].Checksum}).Exec(); err != nil {
		t.Fatal(err)
	}
	m, rec := newMigrator(t, s, ks, migs, migrations.Options{})
	steps, err := m.Plan(ctx, 0)
	if err != nil || len(steps) != 2 || !steps[0].InFlight || steps[0].Index != 2 {
		t.Fatalf("plan: %+v, %v", steps, err)
	}
	res, err := m.Up(ctx)
	if err != nil || len(res.Applied) != 1 || res.Applied[0].From != 2 {
		t.Fatalf("Up: %+v, %v", res, err)
	}
	var start, recovered string
	for _, e := range rec.events {
		switch e.Kind {
		case migrations.MigrationStart:
			start = e.String()
		case migrations.Recovered:
			recovered = e.String()
		}
	}
	if !strings.Contains(start, "dead-host pid 4242") || !strings.Contains(start, "stopped during statement 2") {
		t.Errorf("resume message: %q", start)
	}
	if !strings.Contains(recovered, "statement 2") || !strings.Contains(recovered, "had been applied") {
		t.Errorf("recovery message: %q", recovered)
	}
	st, _ := m.Status(ctx)
	if st[0].State != migrations.StatusApplied || st[0].Record.Applied != 3 {
		t.Errorf("status: %s, %d applied", st[0].State, st[0].Record.Applied)
	}
}

func TestStatusReadsWithoutCreating(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	m, _ := newMigrator(t, s, ks, load(t, basic), migrations.Options{})
	st, err := m.Status(ctxT(t))
	if err != nil || len(st) != 2 || st[0].State != migrations.StatusPending {
		t.Fatalf("status on a fresh keyspace: %+v, %v", st, err)
	}
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ?`, ks).Scan(&n); err != nil || n != 0 {
		t.Fatalf("status created %d tables (%v)", n, err)
	}
}

// The bookkeeping can live in a keyspace of its own, created on first use when a
// replication is given; the history is kept per target keyspace.
func TestBookkeepingInItsOwnKeyspace(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	bk := ks + "_bk"
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + bk).Exec() })
	ctx := ctxT(t)
	m, _ := newMigrator(t, s, ks, load(t, basic), migrations.Options{BookkeepingKeyspace: bk, Table: "history"})
	if _, err := m.Up(ctx); !errors.Is(err, migrations.ErrNoKeyspace) || !strings.Contains(err.Error(), bk) {
		t.Fatalf("Up without a replication for a missing bookkeeping keyspace: %v", err)
	}
	m, _ = newMigrator(t, s, ks, load(t, basic), migrations.Options{BookkeepingKeyspace: bk, Table: "history",
		Replication: "{'class': 'SimpleStrategy', 'replication_factor': 1}"})
	if res, err := m.Up(ctx); err != nil || len(res.Applied) != 2 {
		t.Fatalf("Up: %+v, %v", res, err)
	}
	var n int
	if err := s.Query(`SELECT count(*) FROM `+bk+`.history WHERE target = ?`, ks).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%s.history has %d rows for %s (%v)", bk, n, ks, err)
	}
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'cqlsize_migrations'`, ks).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a bookkeeping table was created in the target keyspace too")
	}
}
