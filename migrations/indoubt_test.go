package migrations

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// liveModel is a schema as liveschema.Read would return it for keyspace ks, built from DDL.
func liveModel(t *testing.T, ks string, ddl ...string) *cql.Schema {
	t.Helper()
	s := cql.NewSchema()
	s.Keyspaces[ks] = cql.NewKeyspace(ks)
	s.Current = ks
	for _, d := range ddl {
		st, err := cql.Parse("live.cql", []byte(d))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Apply(st); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestJudgeInFlight(t *testing.T) {
	live := liveModel(t, "app",
		"CREATE TABLE c (k int PRIMARY KEY, n counter)",
		"CREATE TABLE t (k int PRIMARY KEY, l list<int>, s set<int>, m map<int, text>, v text)",
		"CREATE TYPE addr (street text)",
	)
	tests := []struct {
		stmt string
		want rerunVerdict
		says string // in the reason or the check
	}{
		// DML: idempotent unless relative to the current value.
		{"INSERT INTO t (k, v) VALUES (1, 'a')", rerunSend, ""},
		{"UPDATE t SET v = 'b' WHERE k = 1", rerunSend, ""},
		{"UPDATE t SET s = s + {1}, m = m + {1: 'x'} WHERE k = 1", rerunSend, ""},
		{"UPDATE t SET l = l - [1] WHERE k = 1", rerunSend, ""},
		{"UPDATE t SET l[0] = 5 WHERE k = 1", rerunSend, ""},
		{"DELETE v FROM t WHERE k = 1", rerunSend, ""},
		{"DELETE m[1] FROM t WHERE k = 1", rerunSend, ""},
		{"UPDATE c SET n = n + 1 WHERE k = 7", rerunInDoubt, "SELECT n FROM c WHERE k = 7"},
		{"UPDATE c SET n = n - 1 WHERE k = 7", rerunInDoubt, "a counter"},
		{"UPDATE t SET l = l + [1] WHERE k = 1", rerunInDoubt, "list append"},
		{"UPDATE t SET l = [1] + l WHERE k = 1", rerunInDoubt, "list prepend"},
		{"DELETE l[0] FROM t WHERE k = 1", rerunInDoubt, "by index"},
		{"UPDATE unknown SET n = n + 1 WHERE k = 1", rerunInDoubt, "unknown type"},
		{"BEGIN BATCH INSERT INTO t (k) VALUES (1); UPDATE t SET v = 'x' WHERE k = 2; APPLY BATCH", rerunSend, ""},
		{"BEGIN BATCH INSERT INTO t (k) VALUES (1); UPDATE t SET l = l + [2] WHERE k = 2; APPLY BATCH", rerunInDoubt, "list append"},
		{"BEGIN COUNTER BATCH UPDATE c SET n = n + 1 WHERE k = 1; APPLY BATCH", rerunInDoubt, "COUNTER"},
		{"TRUNCATE t", rerunInDoubt, "TRUNCATE"},
		// DDL: judged by the live schema.
		{"CREATE TABLE c (k int PRIMARY KEY, n counter)", rerunDone, ""},
		{"CREATE TABLE c (k int PRIMARY KEY, n counter, extra counter)", rerunInDoubt, "differs"},
		{"CREATE TABLE fresh (k int PRIMARY KEY)", rerunSend, ""},
		{"CREATE TABLE IF NOT EXISTS c (k int PRIMARY KEY, other text)", rerunSend, ""},
		{"CREATE TYPE addr (street text)", rerunDone, ""},
		{"CREATE TYPE addr (street text, zip int)", rerunInDoubt, "differs"},
		{"ALTER TABLE t ADD v text", rerunDone, ""},
		{"ALTER TABLE t ADD v int", rerunInDoubt, "type"},
		{"ALTER TABLE t ADD w text", rerunSend, ""},
		{"ALTER TABLE t DROP gone", rerunDone, ""},
		{"ALTER TABLE t DROP v", rerunSend, ""},
		{"ALTER TABLE t WITH gc_grace_seconds = 10", rerunSend, ""},
		{"ALTER TYPE addr ADD street text", rerunDone, ""},
		{"DROP TABLE gone", rerunDone, ""},
		{"DROP TABLE t", rerunSend, ""},
		{"DROP TABLE IF EXISTS gone", rerunSend, ""},
		{"CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", rerunDone, ""},
	}
	for _, tc := range tests {
		t.Run(tc.stmt, func(t *testing.T) {
			st, err := cql.Parse("m.cql", []byte(tc.stmt))
			if err != nil {
				t.Fatal(err)
			}
			got, reason, check := judgeInFlight(st, "app", live)
			if got != tc.want || !strings.Contains(reason+" "+check, tc.says) {
				t.Errorf("verdict %d (%q, check %q), want %d saying %q", got, reason, check, tc.want, tc.says)
			}
		})
	}
	if v, _, _ := judgeInFlight(nil, "app", live); v != rerunInDoubt {
		t.Errorf("an unparsed statement: verdict %d, want in doubt", v)
	}
}

// deadRun writes what a run that died while sending statement running of mg leaves: the
// statements before it recorded as done, running = running, and the fence held by an owner
// that is gone.
func deadRun(t *testing.T, s *gocql.Session, ks string, mg *Migration, running int) {
	t.Helper()
	sums := map[int]string{}
	for i := 1; i < running; i++ {
		sums[i] = mg.Statements[i-1].Checksum
	}
	if err := s.Query(`UPDATE cqlsize_migrations SET lock_owner = ? WHERE target = ?`, gocql.TimeUUID(), ks).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query(`INSERT INTO cqlsize_migrations (target, version, name, checksum, state, statements, applied, running,
		statement_checksum, applied_by, pid) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, 'dead-host', 4242)`,
		ks, mg.Version, fileBase(mg.File), mg.Checksum, len(mg.Statements), running-1, running, sums).Exec(); err != nil {
		t.Fatal(err)
	}
}

func loadOne(t *testing.T, name, src string) *Migration {
	t.Helper()
	mg, err := Parse("m/"+name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return mg
}

func counter(t *testing.T, s *gocql.Session, k string) int64 {
	t.Helper()
	var n int64
	err := s.Query(`SELECT n FROM hits WHERE k = ?`, k).Consistency(gocql.Quorum).Scan(&n)
	if err != nil && !errors.Is(err, gocql.ErrNotFound) {
		t.Fatal(err)
	}
	return n
}

// A successor that finds a counter update recorded as being sent stops in doubt, says so
// in Status, keeps stopping there, and continues once a person resolved it: --applied skips
// it, --rerun sends it once.
func TestInDoubtStopsUntilResolved(t *testing.T) {
	for _, applied := range []bool{true, false} {
		t.Run(fmt.Sprintf("applied=%t", applied), func(t *testing.T) {
			t.Parallel() // each in its own keyspace; most of it is waiting for agreement and a lease
			s, ks := cassandratest.Keyspace(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cassandratest.DDL(t, s, ks, `CREATE TABLE hits (k text PRIMARY KEY, n counter)`)
			mg := loadOne(t, "0001_hits.cql", "UPDATE hits SET n = n + 1 WHERE k = 'one';\nUPDATE hits SET n = n + 1 WHERE k = 'two';\nUPDATE hits SET n = n + 1 WHERE k = 'three';")
			empty, err := New(s, nil, Options{Keyspace: ks})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := empty.Up(ctx); err != nil {
				t.Fatal(err)
			}
			// Statement 1 ran and was recorded; statement 2 was being sent when the run died.
			if err := s.Query(`UPDATE hits SET n = n + 1 WHERE k = 'one'`).Exec(); err != nil {
				t.Fatal(err)
			}
			deadRun(t, s, ks, mg, 2)
			m, err := New(s, []*Migration{mg}, Options{Keyspace: ks, LockTTL: 3 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			for try := 1; try <= 2; try++ {
				_, err = m.Up(ctx)
				var ide *InDoubtError
				if !errors.Is(err, ErrInDoubt) || !errors.As(err, &ide) || ide.Statement != 2 || ide.Pos.Line != 2 {
					t.Fatalf("Up %d: %v, want an InDoubtError at statement 2", try, err)
				}
				for _, want := range []string{"m/0001_hits.cql:2:1", "dead-host pid 4242", "SELECT n FROM hits WHERE k = 'two'",
					"Migrator.Resolve(1, 2, true)", "Migrator.Resolve(1, 2, false)"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("in-doubt message lacks %q: %v", want, err)
					}
				}
			}
			if n := counter(t, s, "two"); n != 0 {
				t.Fatalf("the in-doubt statement was sent: counter two = %d", n)
			}
			st, err := m.Status(ctx)
			if err != nil || st[0].State != StatusInDoubt || st[0].Record.Running != 2 {
				t.Fatalf("status: %+v, %v", st, err)
			}
			if err := m.Resolve(ctx, 1, 3, applied); err == nil || !strings.Contains(err.Error(), "not in doubt") {
				t.Errorf("resolving a statement that is not in doubt: %v", err)
			}
			if err := m.Resolve(ctx, 1, 2, applied); err != nil {
				t.Fatal(err)
			}
			res, err := m.Up(ctx)
			if err != nil || len(res.Applied) != 1 {
				t.Fatalf("Up after resolve: %+v, %v", res, err)
			}
			want := map[bool]int64{true: 0, false: 1}[applied] // --applied: the person says it ran (here it did not)
			if n := counter(t, s, "two"); n != want {
				t.Errorf("counter two = %d after resolve applied=%t, want %d", n, applied, want)
			}
			if one, three := counter(t, s, "one"), counter(t, s, "three"); one != 1 || three != 1 {
				t.Errorf("counters one %d, three %d: want 1 each", one, three)
			}
			var resolved map[int]string
			if err := s.Query(`SELECT resolved FROM cqlsize_migrations WHERE target = ? AND version = 1`, ks).Scan(&resolved); err != nil ||
				!strings.Contains(resolved[2], map[bool]string{true: "applied", false: "rerun"}[applied]) {
				t.Errorf("resolved = %v, %v", resolved, err)
			}
		})
	}
}

// An idempotent statement (an INSERT) recorded as being sent is simply sent again.
func TestIdempotentInFlightIsSentAgain(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cassandratest.DDL(t, s, ks, `CREATE TABLE items (k int PRIMARY KEY, v text)`)
	mg := loadOne(t, "0001_items.cql", "INSERT INTO items (k, v) VALUES (1, 'a');\nINSERT INTO items (k, v) VALUES (2, 'b');")
	empty, _ := New(s, nil, Options{Keyspace: ks})
	if _, err := empty.Up(ctx); err != nil {
		t.Fatal(err)
	}
	deadRun(t, s, ks, mg, 1)
	var msgs []string
	m, err := New(s, []*Migration{mg}, Options{Keyspace: ks, OnEvent: func(e Event) {
		if e.Kind == Recovered {
			msgs = append(msgs, e.String())
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "idempotent") {
		t.Errorf("recovery events: %q", msgs)
	}
	var n int
	if err := s.Query(`SELECT count(*) FROM items`).Scan(&n); err != nil || n != 2 {
		t.Errorf("items: %d rows, %v", n, err)
	}
}
