package migrations

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// mixedFile has every kind of statement the intents tell apart.
const mixedFile = `CREATE TABLE a (k int PRIMARY KEY, v int, l list<int>, s set<int>);
INSERT INTO a (k, v) VALUES (1, 1);
INSERT INTO a (k, v) VALUES (2, 2);
UPDATE a SET v = 3 WHERE k = 1;
DELETE v FROM a WHERE k = 2;
UPDATE a SET l = l + [1] WHERE k = 1;
BEGIN BATCH INSERT INTO a (k) VALUES (5); DELETE FROM a WHERE k = 6; APPLY BATCH;
ALTER TABLE a ADD c text;
TRUNCATE a;
DELETE l[0] FROM a WHERE k = 1;
INSERT INTO a (k) VALUES (7);
`

// TestIntentGroups: which statements share an intent and which get their done record at
// once. The expectations are written from the rules in progress.go's comment, not read
// from the code: DML whose repetition is harmless groups; DDL stands alone with its done
// record folded; what a successor could only stop in doubt at is recorded at once.
func TestIntentGroups(t *testing.T) {
	mg, err := Parse("m/0001_mixed.cql", []byte(mixedFile))
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for a := 1; a <= len(mg.Statements); {
		b := groupEnd(mg, a, "app")
		groups = append(groups, fmt.Sprintf("%d-%d", a, b))
		a = b + 1
	}
	// 6 appends to a list (its type unknown without the schema: assumed the worst), 9 is a
	// TRUNCATE, 10 deletes a list element by index.
	if got, want := strings.Join(groups, " "), "1-1 2-5 6-6 7-7 8-8 9-9 10-10 11-11"; got != want {
		t.Errorf("groups %s, want %s", got, want)
	}
	var atOnce []int
	for i := 1; i <= len(mg.Statements); i++ {
		if recordAtOnce(mg, i, "app") {
			atOnce = append(atOnce, i)
		}
	}
	if got, want := fmt.Sprint(atOnce), "[6 9 10]"; got != want {
		t.Errorf("done recorded at once for %s, want %s", got, want)
	}
	// 7 (the batch) is groupable but starts a group of its own: 6 ended the one before.
	// A run of more than maxGroup idempotent statements is cut at maxGroup.
	var b strings.Builder
	for i := range maxGroup + 5 {
		fmt.Fprintf(&b, "INSERT INTO a (k) VALUES (%d);\n", i)
	}
	long, err := Parse("m/0002_long.cql", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if e := groupEnd(long, 1, "app"); e != maxGroup {
		t.Errorf("a run of %d INSERTs: first intent ends at %d, want %d", maxGroup+5, e, maxGroup)
	}
	if e := groupEnd(long, maxGroup+1, "app"); e != maxGroup+5 {
		t.Errorf("second intent ends at %d, want %d", e, maxGroup+5)
	}
}

// writeCounter counts the lightweight transactions on the bookkeeping table.
type writeCounter struct {
	mu    sync.Mutex
	table string
	n     int
}

func (w *writeCounter) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	if strings.HasPrefix(q.Statement, "UPDATE "+w.table+" ") && strings.Contains(q.Statement, " IF ") {
		w.mu.Lock()
		w.n++
		w.mu.Unlock()
	}
}

func (w *writeCounter) take() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.n
	w.n = 0
	return n
}

// TestBookkeepingWritesPerFile counts the fenced writes of the bookkeeping table (read by
// the driver's query observer) for files of each shape, and checks the record each leaves.
// Before intents were shared and done records folded, every file cost 2 + 2n writes.
func TestBookkeepingWritesPerFile(t *testing.T) {
	_, ks := cassandratest.Keyspace(t)
	w := &writeCounter{table: cql.QuoteName(ks) + "." + cql.QuoteName(DefaultTable)}
	cfg := cassandratest.Config(t)
	cfg.Keyspace = ks
	cfg.DriverAgreementWait = -1
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	cc.QueryObserver = w
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	inserts := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "INSERT INTO r (k, v) VALUES (%d, %d);\n", i, i)
		}
		return b.String()
	}
	files := []struct {
		name, src string
		writes    int // fenced writes of the file's row
	}{
		// The bookkeeping is created by the first run; the lock's takeOver is one more write.
		{"0001_tables.cql", "CREATE TABLE r (k int PRIMARY KEY, v int);\nCREATE TABLE c (k int PRIMARY KEY, n counter);\n", 3},
		{"0002_rows.cql", inserts(50), 2},                // one intent for all 50, the finish
		{"0003_more_rows.cql", inserts(maxGroup + 1), 3}, // two intents, the finish
		{"0004_counters.cql", "UPDATE c SET n = n + 1 WHERE k = 1;\nUPDATE c SET n = n + 1 WHERE k = 2;\n", 5}, // intent and done each, the finish
		{"0005_ddl.cql", "ALTER TABLE r ADD a text;\nALTER TABLE r ADD b text;\nALTER TABLE r ADD d text;\n", 4},
	}
	var migs []*Migration
	for _, f := range files {
		mg, err := Parse("m/"+f.name, []byte(f.src))
		if err != nil {
			t.Fatal(err)
		}
		migs = append(migs, mg)
		m, err := New(s, migs, Options{Keyspace: ks})
		if err != nil {
			t.Fatal(err)
		}
		w.take()
		if _, err := m.Up(ctx); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		// takeOver is one more conditional UPDATE of the table (of its static column).
		if got := w.take() - 1; got != f.writes {
			t.Errorf("%s: %d fenced writes of its record, want %d", f.name, got, f.writes)
		}
		var state string
		var applied, running, runningTo int
		var done map[int]time.Time
		var sums map[int]string
		if err := s.Query(`SELECT state, applied, running, running_to, statement_done, statement_checksum FROM `+w.table+` WHERE target = ? AND version = ?`,
			ks, mg.Version).Scan(&state, &applied, &running, &runningTo, &done, &sums); err != nil {
			t.Fatal(err)
		}
		if state != "applied" || applied != len(mg.Statements) || running != 0 || runningTo != 0 || len(done) != len(mg.Statements) {
			t.Errorf("%s: state %s, applied %d, running %d-%d, %d done times; want applied, %d, 0-0, %d",
				f.name, state, applied, running, runningTo, len(done), len(mg.Statements), len(mg.Statements))
		}
		for i, st := range mg.Statements {
			if sums[i+1] != st.Checksum {
				t.Errorf("%s: statement %d recorded with checksum %q, want %q", f.name, i+1, sums[i+1], st.Checksum)
			}
		}
	}
	var n int64
	if err := s.Query(`SELECT n FROM c WHERE k = 1`).Scan(&n); err != nil || n != 1 {
		t.Errorf("counter 1 = %d (%v), want 1", n, err)
	}
	if err := s.Query(`SELECT count(*) FROM r`).Scan(&n); err != nil || n != int64(maxGroup+1) {
		t.Errorf("r holds %d rows (%v), want %d", n, err, maxGroup+1)
	}
}

// TestOldRecordsAreRead: a bookkeeping table as the previous cqlsize left it (fence columns,
// no running_to), holding the records its bookkeeping wrote: a file applied; a file whose
// run died while sending statement 3 (an idempotent INSERT: running = 3 alone); a file
// whose run died after its last statement's done record and before its finish. Status
// reads them without altering the table; Up adds running_to, re-sends statement 3 of the
// second file, and finishes the third without sending anything.
func TestOldRecordsAreRead(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cassandratest.DDL(t, s, ks, `CREATE TABLE cqlsize_migrations (
			target text, version bigint,
			name text, checksum text, previous_checksum text, state text,
			statements int, applied int, running int,
			statement_done map<int, timestamp>, statement_checksum map<int, text>,
			error text, started_at timestamp, finished_at timestamp,
			applied_by text, pid int, tool_version text, run_id uuid,
			lock_owner uuid static, resolved map<int, text>, in_doubt map<int, text>,
			PRIMARY KEY ((target), version))`)
	var migs []*Migration
	for _, f := range []struct{ name, src string }{
		{"m/0001_a.cql", "CREATE TABLE a (k int PRIMARY KEY, n counter);\n"},
		{"m/0002_rows.cql", "CREATE TABLE r (k int PRIMARY KEY, v int);\nINSERT INTO r (k, v) VALUES (1, 1);\nINSERT INTO r (k, v) VALUES (2, 2);\nINSERT INTO r (k, v) VALUES (3, 3);\n"},
		{"m/0003_count.cql", "UPDATE a SET n = n + 1 WHERE k = 1;\n"},
	} {
		mg, err := Parse(f.name, []byte(f.src))
		if err != nil {
			t.Fatal(err)
		}
		migs = append(migs, mg)
	}
	// What the old runs did to the data: file 1, statements 1-2 of file 2 (3 was being
	// sent when its run died: here it had not arrived), the whole of file 3.
	cassandratest.DDL(t, s, ks, migs[0].Statements[0].Text, migs[1].Statements[0].Text, migs[1].Statements[1].Text,
		migs[2].Statements[0].Text)
	old := func(mg *Migration, state string, applied, running int) {
		sums := map[int]string{}
		done := map[int]time.Time{}
		for i := 1; i <= applied; i++ {
			sums[i] = mg.Statements[i-1].Checksum
			done[i] = time.Now()
		}
		if err := s.Query(`INSERT INTO cqlsize_migrations (target, version, name, checksum, state, statements, applied, running,
			statement_done, statement_checksum, applied_by, pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'old-host', 4242)`,
			ks, mg.Version, fileBase(mg.File), mg.Checksum, state, len(mg.Statements), applied, running, done, sums).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	old(migs[0], "applied", 1, 0)
	old(migs[1], "running", 2, 3)
	old(migs[2], "running", 1, 0)
	m, err := New(s, migs, Options{Keyspace: ks})
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.Status(ctx)
	if err != nil || len(st) != 3 || st[0].State != StatusApplied || st[1].State != StatusPartial || st[1].Record.Running != 3 ||
		st[1].Record.RunningTo != 0 || st[2].State != StatusPartial {
		t.Fatalf("status of the old records: %+v, %v", st, err)
	}
	steps, err := m.Plan(ctx, 0)
	if err != nil || len(steps) != 2 || steps[0].Index != 3 || !steps[0].InFlight || steps[1].Index != 4 || steps[1].InFlight {
		t.Fatalf("plan: %+v, %v", steps, err)
	}
	res, err := m.Up(ctx)
	if err != nil || len(res.Applied) != 2 || res.Applied[0].From != 3 || res.Applied[1].From != 2 {
		t.Fatalf("Up on old records: %+v, %v", res, err)
	}
	var n int64
	if err := s.Query(`SELECT n FROM a WHERE k = 1`).Scan(&n); err != nil || n != 1 {
		t.Errorf("counter = %d (%v): file 3's statement ran %d times", n, err, n)
	}
	if err := s.Query(`SELECT count(*) FROM r`).Scan(&n); err != nil || n != 3 {
		t.Errorf("r holds %d rows (%v), want 3", n, err)
	}
	st, err = m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range st {
		if x.State != StatusApplied || x.Record.Applied != len(x.Migration.Statements) || x.Record.Running != 0 {
			t.Errorf("%s after Up: %s, applied %d, running %d", x.File, x.State, x.Record.Applied, x.Record.Running)
		}
	}
}

// TestPartialErrorSaysWhatIsUnrecorded: a run that stops before the write that records
// what ran (its lease lost) says so, instead of "recorded".
func TestPartialErrorSaysWhatIsUnrecorded(t *testing.T) {
	pos := cql.Pos{File: "m/0003_x.cql", Line: 7, Col: 1}
	for _, c := range []struct {
		applied, unrecorded int
		want                string
	}{
		{4, 1, "m/0003_x.cql:7:1: statement 4 of 9 failed (4 applied; statement 4 is recorded only as being sent: the next run judges it as in flight, then continues from statement 5): boom"},
		{4, 3, "m/0003_x.cql:7:1: statement 4 of 9 failed (4 applied; statements 2-4 are recorded only as being sent: the next run judges them as in flight, then continues from statement 5): boom"},
	} {
		e := &PartialError{File: "m/0003_x.cql", Version: 3, Statement: 4, Total: 9, Pos: pos, Applied: c.applied, Unrecorded: c.unrecorded, Err: errors.New("boom")}
		if got := e.Error(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
