package migrations

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/ddl"
	"github.com/cqlsize/cqlsize/internal/retry"
)

// RecordState is where a migration stands in the bookkeeping table.
type RecordState string

// Record states as stored in the state column.
const (
	Running  RecordState = "running"  // a run is applying it (or died while doing so)
	Applied  RecordState = "applied"  // every statement ran
	Baseline RecordState = "baseline" // marked applied by Baseline without running it
	Failed   RecordState = "failed"   // a statement failed; Applied statements ran
)

// Record is one row of the bookkeeping table: what happened to one migration file.
type Record struct {
	Version          int64
	Name             string // the file name when it was applied
	Checksum         string
	PreviousChecksum string // set by AcceptChecksum: what was recorded before
	State            RecordState
	Statements       int // statements in the file
	Applied          int // statements 1..Applied have run
	Running          int // first statement in flight when the row was last written (0: none)
	// RunningTo is the last statement of the intent that starts at Running: a run records
	// one intent for a run of consecutive idempotent statements (see progress.go). 0, or
	// equal to Running, is one statement; records written before intents covered several
	// statements have no value here and read as 0.
	RunningTo     int
	Done          map[int]time.Time
	StatementSums map[int]string // checksum of each statement that ran
	Error         string
	StartedAt     time.Time
	FinishedAt    time.Time
	AppliedBy     string // host
	PID           int
	ToolVersion   string
	RunID         string
}

// Complete reports whether every statement ran (or the file was baselined).
func (r *Record) Complete() bool { return r.State == Applied || r.State == Baseline }

type store struct {
	s     *gocql.Session
	opt   Options
	table string   // qualified bookkeeping table
	lock  string   // qualified lock table
	live  *tracker // which nodes are down, across the agreement waits of this store (agreement.go)
	// fenceReady: ensure saw (or created) the bookkeeping table with every fence column, so
	// ensureFenceColumns has nothing to add and need not read system_schema again.
	fenceReady bool
}

func newStore(s *gocql.Session, opt Options) *store {
	ks := cql.QuoteName(opt.BookkeepingKeyspace)
	return &store{
		s: s, opt: opt,
		table: ks + "." + cql.QuoteName(opt.Table),
		lock:  ks + "." + cql.QuoteName(opt.Table+"_lock"),
		live:  newTracker(),
	}
}

// q prepares a bookkeeping statement at the configured consistency, with the retry
// policy of retry.go: a replica that has not caught up with a schema change, a node that
// is restarting or a dropped connection costs a retry, not the run.
func (st *store) q(ctx context.Context, stmt string, args ...any) *gocql.Query {
	return withRetry(ctx, st.s.Query(stmt, args...), stmt, retryBudget(st.opt)).Consistency(st.opt.Consistency)
}

// schemaReadBudget bounds the retries of a read of system_schema (a local read on the
// coordinator: only the connection can fail).
const schemaReadBudget = 30 * time.Second

// keyspaceExists reads system_schema on the coordinator.
func keyspaceExists(ctx context.Context, s *gocql.Session, name string) (bool, error) {
	var n string
	const stmt = `SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?`
	err := withRetry(ctx, s.Query(stmt, name), stmt, schemaReadBudget).Consistency(gocql.One).Scan(&n)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read system_schema.keyspaces: %w", err)
	}
	return true, nil
}

func tableExists(ctx context.Context, s *gocql.Session, keyspace, table string) (bool, error) {
	var n string
	const stmt = `SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`
	err := withRetry(ctx, s.Query(stmt, keyspace, table), stmt, schemaReadBudget).Consistency(gocql.One).Scan(&n)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read system_schema.tables: %w", err)
	}
	return true, nil
}

// EnsureKeyspace creates keyspace with the given replication (a CQL map literal) unless it
// exists; with an empty replication a missing keyspace is ErrNoKeyspace. It waits for schema
// agreement (of the nodes that are up) after creating it. Callers that open a session
// bound to the target keyspace call it first on an unbound session. EnsureKeyspaceWith
// takes the agreement rule and the warning hook from Options.
func EnsureKeyspace(ctx context.Context, s *gocql.Session, keyspace, replication string, agreement time.Duration) error {
	return EnsureKeyspaceWith(ctx, s, Options{Keyspace: keyspace, Replication: replication, AgreementTimeout: agreement})
}

// EnsureKeyspaceWith is EnsureKeyspace for opt.Keyspace with opt.Replication, waiting for
// agreement as opt says (AgreementTimeout, RequireAllNodes, a Warning to OnEvent naming
// the nodes that are down).
func EnsureKeyspaceWith(ctx context.Context, s *gocql.Session, opt Options) error {
	keyspace := opt.Keyspace
	if err := checkName(keyspace); err != nil {
		return fmt.Errorf("keyspace %q: %w", keyspace, err)
	}
	o, err := opt.withDefaults()
	if err != nil {
		return err
	}
	return newStore(s, o).ensureKeyspace(ctx, keyspace)
}

// ensureKeyspace creates keyspace with the store's replication unless it exists.
func (st *store) ensureKeyspace(ctx context.Context, keyspace string) error {
	ok, err := keyspaceExists(ctx, st.s, keyspace)
	if err != nil || ok {
		return err
	}
	if st.opt.Replication == "" {
		return fmt.Errorf("keyspace %s: %w; create it, start the first migration with CREATE KEYSPACE %s, or set its replication (Options.Replication \"{'class': 'NetworkTopologyStrategy', 'dc1': 3}\") to have it created", keyspace, ErrNoKeyspace, keyspace)
	}
	stmt := fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s", cql.QuoteName(keyspace), st.opt.Replication)
	if err := ddl.CreateKeyspace(ctx, st.s, keyspace, stmt, st.ddlOptions()); err != nil {
		return err
	}
	return st.agree(ctx, "CREATE KEYSPACE "+keyspace)
}

// ddlOptions bound the bookkeeping's schema changes: a change whose answer misses the
// client's timeout is checked in system_schema and sent again (internal/ddl) for as long
// as a bookkeeping statement is retried.
func (st *store) ddlOptions() ddl.Options {
	return ddl.Options{Budget: retryBudget(st.opt)}
}

// ensure creates the bookkeeping keyspace and tables when they are missing, with as few
// round trips as it can, since every deploy of every service pays them:
//
//   - one read of system_schema.columns says which of the two tables exist and which
//     columns the bookkeeping table has (so the lock need not read them again);
//   - the missing tables are created at once, side by side, and the nodes that are up are
//     awaited once, for both;
//   - when both tables were there and hold this keyspace's history, nothing more: the
//     run that wrote the first record had waited for agreement on them. Otherwise (tables
//     just created, by this process or by another one a moment ago, or found empty) it
//     waits for agreement and until the node answers queries on both: a replica that has
//     not loaded a table another process just created fails reads with INCOMPATIBLE_SCHEMA.
//
// It returns the records when it read them (nil otherwise), so that the caller need not
// read them again.
func (st *store) ensure(ctx context.Context) (map[int64]*Record, error) {
	ks := st.opt.BookkeepingKeyspace
	have, err := st.tableColumns(ctx)
	if err != nil {
		return nil, err
	}
	book, lock := have[st.opt.Table], have[st.opt.Table+"_lock"]
	st.fenceReady = book != nil && hasFenceColumns(book)
	if book != nil && lock != nil {
		recs, err := st.records(ctx)
		if err == nil && len(recs) > 0 {
			return recs, nil
		}
	}
	if book == nil && lock == nil {
		// No table: perhaps no keyspace either.
		if err := st.ensureKeyspace(ctx, ks); err != nil {
			return nil, err
		}
	}
	var missing []ddl.Table
	if book == nil {
		missing = append(missing, ddl.Table{Name: st.opt.Table, Columns: `target text, version bigint,
			name text, checksum text, previous_checksum text, state text,
			statements int, applied int, running int, running_to int,
			statement_done map<int, timestamp>, statement_checksum map<int, text>,
			error text, started_at timestamp, finished_at timestamp,
			applied_by text, pid int, tool_version text, run_id uuid,
			lock_owner uuid static, resolved map<int, text>, in_doubt map<int, text>,
			PRIMARY KEY ((target), version)`,
			Options: `CLUSTERING ORDER BY (version ASC)
			AND comment = 'cqlsize migrate: one row per migration file and target keyspace'`})
		st.fenceReady = true // created with every fence column
	}
	if lock == nil {
		// Lease rows are written with a TTL and deleted at the end; a short gc_grace keeps
		// their tombstones from piling up in the one partition every run reads.
		missing = append(missing, ddl.Table{Name: st.opt.Table + "_lock", Columns: `target text PRIMARY KEY,
			owner uuid, host text, pid int, tool_version text, acquired_at timestamp`,
			Options: `gc_grace_seconds = 3600
			AND comment = 'cqlsize migrate: the cluster-wide migration lease (LWT + TTL)'`})
	}
	// Side by side: the node applies schema changes one at a time, but each one's round
	// trip, and the wait for its answer, overlap the other's.
	errs := make([]error, len(missing))
	var wg sync.WaitGroup
	for i, t := range missing {
		// The fixed id (ddl.TableID) makes every process that creates the table at the same
		// moment create the same one: with random ids, two coordinators creating "the same"
		// table leave the cluster with two ids for one name ("Column family ID mismatch").
		t.Scope, t.Keyspace = "migrations", ks
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ddl.CreateTable(ctx, st.s, t, st.ddlOptions())
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("the migration bookkeeping: %w", err)
	}
	if err := st.agree(ctx, "the bookkeeping tables in "+ks); err != nil {
		return nil, err
	}
	return nil, st.waitUsable(ctx)
}

// tableColumns reads the columns of the bookkeeping and lock tables from system_schema, by
// table; a table that does not exist is absent.
func (st *store) tableColumns(ctx context.Context) (map[string]map[string]bool, error) {
	const stmt = `SELECT table_name, column_name FROM system_schema.columns WHERE keyspace_name = ? AND table_name IN ?`
	iter := withRetry(ctx, st.s.Query(stmt, st.opt.BookkeepingKeyspace, []string{st.opt.Table, st.opt.Table + "_lock"}), stmt, schemaReadBudget).
		Consistency(gocql.One).Iter()
	out := map[string]map[string]bool{}
	var table, column string
	for iter.Scan(&table, &column) {
		if out[table] == nil {
			out[table] = map[string]bool{}
		}
		out[table][column] = true
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system_schema.columns: %w", err)
	}
	return out, nil
}

// waitUsable waits until both tables answer queries. A table another process is creating
// at this moment can already be listed in system_schema while the node still answers
// "table ... does not exist" to a query on it (seen on 5.0 with 8 processes starting at once).
func (st *store) waitUsable(ctx context.Context) error {
	wait := retry.Policy{Backoff: retry.Backoff{Min: 100 * time.Millisecond}, Deadline: time.Now().Add(st.opt.AgreementTimeout), Retry: notYetCreated}
	for _, q := range []string{
		`SELECT target FROM ` + st.table + ` WHERE target = ? LIMIT 1`,
		`SELECT target FROM ` + st.lock + ` WHERE target = ?`,
	} {
		_, err := retry.Do(ctx, wait, st.q(ctx, q, st.opt.Keyspace).Exec)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return fmt.Errorf("query the bookkeeping tables: %w", err)
		}
	}
	return nil
}

// notYetCreated reports whether err says a table does not exist (yet). Right after
// another process created a table, a 5.0 node answers for a moment either "table ...
// does not exist" (invalid request) or "java.lang.IllegalArgumentException: Unknown CF
// <id>" (server error): system_schema already lists the table, its store is not open yet.
func notYetCreated(err error) bool {
	var req gocql.RequestError
	if !errors.As(err, &req) {
		return false
	}
	msg := strings.ToLower(req.Message())
	switch req.Code() {
	case gocql.ErrCodeInvalid:
		return strings.Contains(msg, "does not exist") || strings.Contains(msg, "unconfigured table")
	case gocql.ErrCodeServer:
		return strings.Contains(msg, "unknown cf")
	}
	return false
}

// exists reports whether the bookkeeping table exists (read-only commands do not create it).
func (st *store) exists(ctx context.Context) (bool, error) {
	return tableExists(ctx, st.s, st.opt.BookkeepingKeyspace, st.opt.Table)
}

// records reads the history of the target keyspace, by version. A table created by an
// earlier cqlsize may lack running_to until a run adds it under the lock
// (ensureFenceColumns); read-only commands read it without that column.
//
// The phantom row of a partition that holds only the static lock_owner column (written by
// takeOver before any file was recorded) is left out: Cassandra returns such a partition as
// one row with every clustering and regular column null.
func (st *store) records(ctx context.Context) (map[int64]*Record, error) {
	recs, err := st.readRecords(ctx, true)
	if err != nil && undefinedColumn(err, "running_to") {
		recs, err = st.readRecords(ctx, false)
	}
	for v, r := range recs {
		if r.State == "" && r.Name == "" && r.Checksum == "" {
			delete(recs, v)
		}
	}
	return recs, err
}

func (st *store) readRecords(ctx context.Context, runningTo bool) (map[int64]*Record, error) {
	cols := `version, name, checksum, previous_checksum, state, statements, applied, running,
		statement_done, statement_checksum, error, started_at, finished_at, applied_by, pid, tool_version, run_id`
	if runningTo {
		cols += `, running_to`
	}
	iter := st.q(ctx, `SELECT `+cols+` FROM `+st.table+` WHERE target = ?`, st.opt.Keyspace).Iter()
	out := map[int64]*Record{}
	for {
		r := &Record{}
		var state string
		var runID gocql.UUID
		dest := []any{&r.Version, &r.Name, &r.Checksum, &r.PreviousChecksum, &state, &r.Statements, &r.Applied, &r.Running,
			&r.Done, &r.StatementSums, &r.Error, &r.StartedAt, &r.FinishedAt, &r.AppliedBy, &r.PID, &r.ToolVersion, &runID}
		if runningTo {
			dest = append(dest, &r.RunningTo)
		}
		if !iter.Scan(dest...) {
			break
		}
		r.State = RecordState(state)
		if runID != (gocql.UUID{}) {
			r.RunID = runID.String()
		}
		out[r.Version] = r
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read bookkeeping table %s: %w", st.table, err)
	}
	return out, nil
}

// undefinedColumn reports whether the node refused a query for naming a column the table
// does not have.
func undefinedColumn(err error, column string) bool {
	var req gocql.RequestError
	if !errors.As(err, &req) || req.Code() != gocql.ErrCodeInvalid {
		return false
	}
	msg := strings.ToLower(req.Message())
	return strings.Contains(msg, "undefined column") && strings.Contains(msg, column)
}

// The write functions below, and those of progress.go, are fenced (see fence.go): each is
// an UPDATE ... IF lock_owner = owner, refused with ErrLockLost once another run has taken
// the migration over.

// markInDoubt records that statement i is in doubt: state in_doubt, the reason in
// in_doubt[i]. running stays i, so every later run stops there too until a person
// resolves it.
func (st *store) markInDoubt(ctx context.Context, owner gocql.UUID, m *Migration, i int, why string) error {
	return st.fenced(ctx, owner, fmt.Sprintf("record statement %d of %s as in doubt", i, m.File),
		`UPDATE `+st.table+` SET state = ?, error = ?, in_doubt[?] = ? WHERE target = ? AND version = ?`,
		string(InDoubt), why, i, why, st.opt.Keyspace, m.Version)
}

// resolve records a person's decision about in-doubt statement i: applied (it ran: count
// it done) or rerun (it did not: the next run sends it). Either way running is cleared and
// the decision is kept in resolved[i].
func (st *store) resolve(ctx context.Context, owner gocql.UUID, m *Migration, i int, applied bool, note string) error {
	what := fmt.Sprintf("record the decision about statement %d of %s", i, m.File)
	if applied {
		return st.fenced(ctx, owner, what, `UPDATE `+st.table+` SET state = ?, error = null, applied = ?, running = 0, running_to = 0,
			statement_done[?] = ?, statement_checksum[?] = ?, resolved[?] = ? WHERE target = ? AND version = ?`,
			string(Running), i, i, time.Now(), i, m.Statements[i-1].Checksum, i, note, st.opt.Keyspace, m.Version)
	}
	return st.fenced(ctx, owner, what, `UPDATE `+st.table+` SET state = ?, error = null, running = 0, running_to = 0, resolved[?] = ?
		WHERE target = ? AND version = ?`, string(Running), i, note, st.opt.Keyspace, m.Version)
}

func (st *store) baseline(ctx context.Context, owner gocql.UUID, m *Migration, run gocql.UUID) error {
	now := time.Now()
	done := map[int]time.Time{}
	sums := map[int]string{}
	for i, s := range m.Statements {
		done[i+1] = now
		sums[i+1] = s.Checksum
	}
	return st.fenced(ctx, owner, fmt.Sprintf("record %s as baseline", m.File),
		`UPDATE `+st.table+` SET name = ?, checksum = ?, state = ?, statements = ?, applied = ?, running = 0, running_to = 0,
		statement_done = ?, statement_checksum = ?, started_at = ?, finished_at = ?, applied_by = ?, pid = ?, tool_version = ?, run_id = ?
		WHERE target = ? AND version = ?`,
		fileBase(m.File), m.Checksum, string(Baseline), len(m.Statements), len(m.Statements),
		done, sums, now, now, st.opt.Host, st.opt.PID, st.opt.ToolVersion, run, st.opt.Keyspace, m.Version)
}

// accept records the file's current checksum (and its statements') as the applied one.
func (st *store) accept(ctx context.Context, owner gocql.UUID, m *Migration, r *Record) error {
	applied := r.Applied
	if r.Complete() {
		applied = len(m.Statements) // the file as it is now counts as run
	}
	sums := map[int]string{}
	for i := 1; i <= applied && i <= len(m.Statements); i++ {
		sums[i] = m.Statements[i-1].Checksum
	}
	return st.fenced(ctx, owner, fmt.Sprintf("record the new checksum of %s", m.File),
		`UPDATE `+st.table+` SET previous_checksum = ?, checksum = ?, name = ?, statements = ?, applied = ?,
		statement_checksum = ? WHERE target = ? AND version = ?`,
		r.Checksum, m.Checksum, fileBase(m.File), len(m.Statements), applied, sums, st.opt.Keyspace, m.Version)
}

func sortedVersions(recs map[int64]*Record) []int64 {
	vs := make([]int64, 0, len(recs))
	for v := range recs {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	return vs
}
