package ddl_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/ddl"
)

// The ids of tables cqlsize has created on clusters (the migration bookkeeping, the
// backfill's checkpoint and lease tables): a table created again by a later version must
// get the same id, or two processes of two versions would create two tables.
func TestTableIDIsFixed(t *testing.T) {
	for _, tc := range []struct{ scope, keyspace, table, want string }{
		{"migrations", "app", "cqlsize_migrations", "04538643-08b9-4679-af84-e15e90ff2309"},
		{"migrations", "MyKs", "cqlsize_migrations_lock", "9aee991e-59ec-4e39-902b-47da82f106ec"},
		{"backfill", "app", "cqlsize_backfill", "033c59cc-85ce-4ae5-944d-dc91b86f5bff"},
		{"backfill", "app", "cqlsize_backfill_lease", "f258ea07-78fc-4533-9c68-c4ea31c29a69"},
	} {
		if got := ddl.TableID(tc.scope, tc.keyspace, tc.table); got != tc.want {
			t.Errorf("TableID(%q, %q, %q) = %s, want %s", tc.scope, tc.keyspace, tc.table, got, tc.want)
		}
	}
}

func TestStatement(t *testing.T) {
	tb := ddl.Table{Scope: "backfill", Keyspace: "app", Name: "cqlsize_backfill_lease", Columns: "k text PRIMARY KEY, v int",
		Options: "gc_grace_seconds = 3600 AND comment = 'x'"}
	want := `CREATE TABLE IF NOT EXISTS app.cqlsize_backfill_lease (k text PRIMARY KEY, v int) WITH ID = f258ea07-78fc-4533-9c68-c4ea31c29a69 AND gc_grace_seconds = 3600 AND comment = 'x'`
	if got := tb.Statement(); got != want {
		t.Errorf("statement:\n got %s\nwant %s", got, want)
	}
	tb.Options, tb.Keyspace = "", `My"Ks`
	if got := tb.Statement(); got != `CREATE TABLE IF NOT EXISTS "My""Ks".cqlsize_backfill_lease (k text PRIMARY KEY, v int) WITH ID = `+tb.ID() {
		t.Errorf("statement without options, quoted keyspace: %s", got)
	}
}

func TestWithID(t *testing.T) {
	const id = "f258ea07-78fc-4533-9c68-c4ea31c29a69"
	for _, tc := range []struct{ in, want string }{
		{"CREATE TABLE t (k int PRIMARY KEY, v int)", "CREATE TABLE t (k int PRIMARY KEY, v int) WITH ID = " + id},
		{"CREATE TABLE t (k int PRIMARY KEY, v int);\n", "CREATE TABLE t (k int PRIMARY KEY, v int) WITH ID = " + id},
		{"CREATE TABLE t (k int, c int, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC)",
			"CREATE TABLE t (k int, c int, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC) AND ID = " + id},
		{"create table t (k int primary key, s frozen<set<text>>) with comment = 'with (x)'",
			"create table t (k int primary key, s frozen<set<text>>) with comment = 'with (x)' AND ID = " + id},
		// A column named with: inside the list, not an option.
		{"CREATE TABLE t (k int PRIMARY KEY, with int)", "CREATE TABLE t (k int PRIMARY KEY, with int) WITH ID = " + id},
	} {
		if got := ddl.WithID(tc.in, id); got != tc.want {
			t.Errorf("WithID(%q):\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// A table from a caller's own CREATE TABLE gets the fixed id of its scope, keyspace and name.
func TestCreateTableCQL(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	stmt := "CREATE TABLE " + ks + ".events (k int, c int, v text, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC)"
	for range 2 { // the second call finds it
		if err := ddl.CreateTableCQL(ctx, s, "test", ks, "events", stmt, ddl.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if ids := tableIDs(t, s, ks, "events"); len(ids) != 1 || ids[0] != ddl.TableID("test", ks, "events") {
		t.Errorf("system_schema ids of %s.events: %v, want [%s]", ks, ids, ddl.TableID("test", ks, "events"))
	}
}

// firstTimesOut sends the first attempt on the slow session with its answer held for
// longer than the client's timeout (the node applies it, the driver gives up), and every
// later one on s, counting them; it keeps the first's error.
type firstTimesOut struct {
	slow, s *gocql.Session
	proxy   *cassandratest.Proxy
	sends   atomic.Int32
	first   error
}

func (f *firstTimesOut) send(ctx context.Context, stmt string) error {
	if f.sends.Add(1) == 1 {
		f.proxy.Hold(true)
		f.first = f.slow.Query(stmt).WithContext(ctx).Exec()
		f.proxy.Hold(false)
		return f.first
	}
	return f.s.Query(stmt).WithContext(ctx).Exec()
}

func newFirstTimesOut(t *testing.T, s *gocql.Session) *firstTimesOut {
	slow, p := cassandratest.ProxiedSession(t, 2*time.Second)
	return &firstTimesOut{slow: slow, s: s, proxy: p}
}

// tableIDs reads the ids system_schema holds for keyspace.table (one row per table).
func tableIDs(t *testing.T, s *gocql.Session, keyspace, table string) []string {
	t.Helper()
	iter := s.Query(`SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, keyspace, table).Consistency(gocql.One).Iter()
	var ids []string
	var id gocql.UUID
	for iter.Scan(&id) {
		ids = append(ids, id.String())
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// A CREATE TABLE whose answer misses the client's timeout: the call succeeds, and the
// table is there once, with its fixed id.
func TestCreateTableAfterClientTimeout(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	f := newFirstTimesOut(t, s)
	tb := ddl.Table{Scope: "test", Keyspace: ks, Name: "bookkeeping", Columns: "k text PRIMARY KEY, v int", Options: "comment = 'ddl test'"}
	var retried []error
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err := ddl.CreateTableSending(ctx, s, tb, ddl.Options{OnRetry: func(_ int, err error) { retried = append(retried, err) }}, f.send)
	if err != nil {
		t.Fatalf("CreateTable after a client timeout: %v", err)
	}
	if !errors.Is(f.first, gocql.ErrTimeoutNoResponse) {
		t.Fatalf("the first attempt, its answer held past the client timeout, returned %v, not the driver's timeout: the test provoked nothing", f.first)
	}
	if len(retried) != 1 || !errors.Is(retried[0], gocql.ErrTimeoutNoResponse) {
		t.Errorf("OnRetry was told %v, want the one timeout", retried)
	}
	if ids := tableIDs(t, s, ks, tb.Name); len(ids) != 1 || ids[0] != tb.ID() {
		t.Errorf("system_schema ids of %s.%s: %v, want [%s]", ks, tb.Name, ids, tb.ID())
	}
	t.Logf("%d sends", f.sends.Load())
	if err := s.Query(`INSERT INTO ` + ks + `.bookkeeping (k, v) VALUES ('a', 1)`).Exec(); err != nil {
		t.Errorf("the table does not take a write: %v", err)
	}
	// Created: a second call finds it and sends nothing.
	before := f.sends.Load()
	if err := ddl.CreateTableSending(ctx, s, tb, ddl.Options{}, f.send); err != nil || f.sends.Load() != before {
		t.Errorf("a second call: %v after %d more sends, want nil after none", err, f.sends.Load()-before)
	}
}

// An attempt lost before it reached the node (its timeout came first): the check finds no
// table, and the statement is sent again.
func TestCreateTableSendsAgainWhenTheChangeIsNotThere(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	var sends atomic.Int32
	send := func(ctx context.Context, stmt string) error {
		if sends.Add(1) == 1 {
			return fmt.Errorf("lost on the way: %w", gocql.ErrTimeoutNoResponse)
		}
		return s.Query(stmt).WithContext(ctx).Exec()
	}
	tb := ddl.Table{Scope: "test", Keyspace: ks, Name: "lost", Columns: "k text PRIMARY KEY"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := ddl.CreateTableSending(ctx, s, tb, ddl.Options{}, send); err != nil {
		t.Fatal(err)
	}
	if sends.Load() != 2 {
		t.Errorf("%d sends, want 2", sends.Load())
	}
	if ids := tableIDs(t, s, ks, tb.Name); len(ids) != 1 || ids[0] != tb.ID() {
		t.Errorf("ids %v, want [%s]", ids, tb.ID())
	}
}

// Four processes' worth of callers at once, each first send timing out on the client:
// every call succeeds and there is one table, with the fixed id.
func TestCreateTableConcurrentTimeouts(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	tb := ddl.Table{Scope: "test", Keyspace: ks, Name: "shared", Columns: "k text PRIMARY KEY, v int"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	errs := make(chan error, 4)
	for range 4 {
		f := newFirstTimesOut(t, s)
		go func() { errs <- ddl.CreateTableSending(ctx, s, tb, ddl.Options{}, f.send) }()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if ids := tableIDs(t, s, ks, tb.Name); len(ids) != 1 || ids[0] != tb.ID() {
		t.Errorf("ids %v, want [%s]", ids, tb.ID())
	}
}

// A statement the node refuses fails at once, not after the budget.
func TestCreateTableRefusedFailsAtOnce(t *testing.T) {
	s := cassandratest.Session(t)
	tb := ddl.Table{Scope: "test", Keyspace: cassandratest.KeyspaceName("absent"), Name: "t", Columns: "k text PRIMARY KEY"}
	start := time.Now()
	err := ddl.CreateTable(context.Background(), s, tb, ddl.Options{Budget: time.Hour})
	var req gocql.RequestError
	if !errors.As(err, &req) || req.Code() != gocql.ErrCodeInvalid {
		t.Fatalf("a table in a keyspace that does not exist: %v, want the node's invalid-request answer", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("refused after %v", d)
	}
}

// The keyspace variant, as cassandratest creates a test's keyspace.
func TestCreateKeyspaceAfterClientTimeout(t *testing.T) {
	s := cassandratest.Session(t)
	f := newFirstTimesOut(t, s)
	name := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + name).Exec(); err != nil {
			t.Logf("drop %s: %v", name, err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	stmt := "CREATE KEYSPACE IF NOT EXISTS " + name + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
	if err := ddl.CreateKeyspaceSending(ctx, s, name, stmt, ddl.Options{}, f.send); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(f.first, gocql.ErrTimeoutNoResponse) {
		t.Fatalf("the first attempt returned %v, not the driver's timeout", f.first)
	}
	var n string
	if err := s.Query(`SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?`, name).Scan(&n); err != nil {
		t.Fatalf("keyspace %s: %v", name, err)
	}
}

// A column added to a bookkeeping table created by an earlier version: the ALTER whose answer
// misses the client's timeout is found in system_schema.columns, and the call succeeds.
func TestAddColumnAfterClientTimeout(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	if err := s.Query(`CREATE TABLE old (k text PRIMARY KEY)`).Exec(); err != nil {
		t.Fatal(err)
	}
	f := newFirstTimesOut(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := ddl.AddColumnSending(ctx, s, ks, "old", "lock_owner", "uuid", ddl.Options{}, f.send); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(f.first, gocql.ErrTimeoutNoResponse) {
		t.Fatalf("the first attempt returned %v, not the driver's timeout", f.first)
	}
	var kind string
	if err := s.Query(`SELECT type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = 'old' AND column_name = 'lock_owner'`, ks).Scan(&kind); err != nil || kind != "uuid" {
		t.Errorf("column lock_owner: %q, %v", kind, err)
	}
}
