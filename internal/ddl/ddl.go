// Package ddl sends the schema changes cqlsize makes for itself (the migration bookkeeping
// and the columns later versions added to it, the backfill's checkpoint and lease tables)
// and those of a test's setup (its keyspace, and through Apply its tables, types, indexes
// and views) so that a client timeout does not fail them.
//
// A schema change can outlast the client's timeout and still be applied: on a loaded node
// the change is written, and pushed to the other nodes, after the driver has given up
// waiting for the answer. Sending it once and reporting the timeout fails a command whose
// table is in fact there. So a change that times out (or loses its connection) is checked:
// the nodes are given time to agree on the schema, system_schema is asked whether the
// keyspace or table exists, and only when it does not is the statement sent again, until a
// budget ends. Sending again is safe because every statement is CREATE ... IF NOT EXISTS
// and every table is created WITH ID = a fixed id derived from its keyspace and name
// (TableID): two sends, or two processes, cannot leave two tables with different ids for
// one name.
//
// A change counts as done when system_schema shows it and, for a table, when the
// coordinator takes a read of it: a node records a change in system_schema before it serves
// requests with it.
//
// The waits between sends are a small loop of this package's own, bounded by the budget.
package ddl

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/retry"
)

// DefaultBudget is how long a change that times out is checked and sent again when Options
// gives no budget.
const DefaultBudget = 2 * time.Minute

// agreementWait bounds each wait for schema agreement between two sends: a node that is
// down never agrees, and the wait only gives a change in flight time to land.
const agreementWait = 20 * time.Second

// backoff is the pause between checks: 200 ms doubling up to 5 s, drawn from the upper half
// of each step so that processes creating the same table do not check in step.
var backoff = retry.Backoff{Min: 200 * time.Millisecond, Max: 5 * time.Second, Jitter: retry.UpperHalf}

// Options bound the sending of one change.
type Options struct {
	// Budget is how long a change that times out is checked and sent again (DefaultBudget
	// when zero). The caller's context still bounds everything.
	Budget time.Duration
	// OnRetry, when set, is told each attempt that failed with a timeout or a lost
	// connection and is being checked (for a log line).
	OnRetry func(attempt int, err error)
}

// Table is a table cqlsize creates for itself.
type Table struct {
	// Scope says whose table it is ("migrations", "backfill"); it is part of the fixed id.
	Scope    string
	Keyspace string
	Name     string
	// Columns is what goes between the parentheses: the columns and the PRIMARY KEY.
	Columns string
	// Options are the WITH options besides the id (comment = '...', CLUSTERING ORDER BY
	// (...)), joined with AND; empty for none.
	Options string
}

// ID is the table's fixed id: TableID(t.Scope, t.Keyspace, t.Name).
func (t Table) ID() string { return TableID(t.Scope, t.Keyspace, t.Name) }

// Statement is the CREATE TABLE IF NOT EXISTS statement, with the table's fixed id.
func (t Table) Statement() string {
	stmt := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (%s) WITH ID = %s", cql.QuoteName(t.Keyspace), cql.QuoteName(t.Name), t.Columns, t.ID())
	if t.Options != "" {
		stmt += " AND " + t.Options
	}
	return stmt
}

// TableID derives a fixed table id from the scope, keyspace and table name: the first 16
// bytes of SHA-256("cqlsize/<scope>/<keyspace>.<table>") laid out as a version 4 UUID, so
// it parses as an ordinary one. Every process creating the table creates the same one;
// with random ids, two coordinators creating "the same" table at once leave the cluster
// with two ids for one name ("Column family ID mismatch").
func TableID(scope, keyspace, table string) string {
	s := sha256.Sum256([]byte("cqlsize/" + scope + "/" + keyspace + "." + table))
	s[6] = s[6]&0x0f | 0x40
	s[8] = s[8]&0x3f | 0x80
	u, _ := gocql.UUIDFromBytes(s[:16]) // 16 bytes: never an error
	return u.String()
}

// CreateTable creates t unless it exists. A send that times out is followed by a check, and
// by another send only when the table is not there, until the budget ends. It does not
// wait for the nodes to agree once the table is there: callers that need every node to
// know it wait as their rules say.
func CreateTable(ctx context.Context, s *gocql.Session, t Table, opt Options) error {
	return createTable(ctx, s, t, opt, sessionSend(s))
}

func createTable(ctx context.Context, s *gocql.Session, t Table, opt Options, send sendFunc) error {
	return createTableStmt(ctx, s, t.Keyspace, t.Name, t.Statement(), opt, send)
}

func createTableStmt(ctx context.Context, s *gocql.Session, keyspace, table, stmt string, opt Options, send sendFunc) error {
	exists := func(ctx context.Context) (bool, error) {
		return tableThere(ctx, s, tableRow, keyspace, table)
	}
	if err := ensure(ctx, s, stmt, exists, opt, send); err != nil {
		return fmt.Errorf("create table %s.%s: %w", keyspace, table, err)
	}
	return nil
}

// CreateTableCQL creates keyspace.table with stmt, a CREATE TABLE its caller wrote (a
// test's schema, with its own columns and options), as CreateTable does: stmt gets the
// fixed id TableID(scope, keyspace, table) (WithID), so a second send after a lost answer
// cannot leave two ids for one name. A node's answer that the table exists counts as done.
func CreateTableCQL(ctx context.Context, s *gocql.Session, scope, keyspace, table, stmt string, opt Options) error {
	return createTableStmt(ctx, s, keyspace, table, WithID(stmt, TableID(scope, keyspace, table)), opt, sessionSend(s))
}

// WithID adds ID = id to the options of stmt, a CREATE TABLE: after its WITH options when
// it has some, else as its only one. The options are what follows the parenthesized
// column list; a trailing semicolon is dropped.
func WithID(stmt, id string) string {
	stmt = strings.TrimRight(strings.TrimSpace(stmt), "; \t\n")
	open := strings.IndexByte(stmt, '(')
	if open < 0 {
		return stmt + " WITH ID = " + id
	}
	depth, end := 0, len(stmt)
	for i := open; i < len(stmt); i++ {
		switch stmt[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				end = i + 1
				i = len(stmt)
			}
		}
	}
	for _, f := range strings.Fields(stmt[end:]) {
		if strings.EqualFold(f, "WITH") {
			return stmt + " AND ID = " + id
		}
	}
	return stmt + " WITH ID = " + id
}

// CreateKeyspace runs stmt, a CREATE KEYSPACE of keyspace, unless the keyspace exists, as
// CreateTable does. A statement without IF NOT EXISTS answered "already exists" (by a
// second send, or because another process created it) counts as done.
func CreateKeyspace(ctx context.Context, s *gocql.Session, keyspace, stmt string, opt Options) error {
	return createKeyspace(ctx, s, keyspace, stmt, opt, sessionSend(s))
}

func createKeyspace(ctx context.Context, s *gocql.Session, keyspace, stmt string, opt Options, send sendFunc) error {
	exists := func(ctx context.Context) (bool, error) {
		return found(ctx, s, keyspaceRow, keyspace)
	}
	if err := ensure(ctx, s, stmt, exists, opt, send); err != nil {
		return fmt.Errorf("create keyspace %s: %w", keyspace, err)
	}
	return nil
}

// AddColumn adds column (with its type, def: "int", "uuid static") to keyspace.table
// unless the table has it, as CreateTable does: a send that times out is checked in
// system_schema.columns and sent again only when the column is missing. A node's answer
// that the column exists (another process added it between the check and the send) is
// returned as the node gave it.
func AddColumn(ctx context.Context, s *gocql.Session, keyspace, table, column, def string, opt Options) error {
	return addColumn(ctx, s, keyspace, table, column, def, opt, sessionSend(s))
}

func addColumn(ctx context.Context, s *gocql.Session, keyspace, table, column, def string, opt Options, send sendFunc) error {
	exists := func(ctx context.Context) (bool, error) {
		return found(ctx, s, columnRow, keyspace, table, column)
	}
	stmt := fmt.Sprintf("ALTER TABLE %s.%s ADD %s %s", cql.QuoteName(keyspace), cql.QuoteName(table), cql.QuoteName(column), def)
	if err := ensure(ctx, s, stmt, exists, opt, send); err != nil {
		return fmt.Errorf("add column %s to %s.%s: %w", column, keyspace, table, err)
	}
	return nil
}

// sendFunc sends one attempt of a statement.
type sendFunc func(ctx context.Context, stmt string) error

func sessionSend(s *gocql.Session) sendFunc {
	return func(ctx context.Context, stmt string) error {
		return s.Query(stmt).WithContext(ctx).Idempotent(true).Exec()
	}
}

// found runs a read of system_schema on the coordinator and reports whether it found a row.
func found(ctx context.Context, s *gocql.Session, stmt string, args ...any) (bool, error) {
	var n string
	err := s.Query(stmt, args...).WithContext(ctx).Consistency(gocql.One).Scan(&n)
	if errors.Is(err, gocql.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read system_schema: %w", err)
	}
	return true, nil
}

// tableThere reports whether the table or view keyspace.name is in system_schema (schemaRow
// reads its row) and the coordinator takes a read of it. A node writes a schema change to
// system_schema before it loads the change into the schema it serves requests from, so
// after an answer was lost the row can be there while a statement on the table is still
// refused as naming a table that does not exist. Only that refusal counts as not there
// yet: any other error of the read (a replica down) leaves the answer to system_schema.
func tableThere(ctx context.Context, s *gocql.Session, schemaRow, keyspace, name string) (bool, error) {
	ok, err := found(ctx, s, schemaRow, keyspace, name)
	if err != nil || !ok {
		return ok, err
	}
	err = s.Query("SELECT * FROM " + cql.QuoteName(keyspace) + "." + cql.QuoteName(name) + " LIMIT 1").WithContext(ctx).Consistency(gocql.One).Exec()
	var req gocql.RequestError
	if errors.As(err, &req) && req.Code() == gocql.ErrCodeInvalid {
		return false, nil
	}
	return true, nil
}

// ensure sends stmt unless exists says the change is done; after a send that fails with a
// timeout or a lost connection it lets the nodes agree, asks exists again, and sends again
// only when the change is still not done, until the budget ends. A send the node refuses
// ends it, as a success when exists then says the change is done.
func ensure(ctx context.Context, s *gocql.Session, stmt string, exists func(context.Context) (bool, error), opt Options, send sendFunc) error {
	budget := opt.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	deadline := time.Now().Add(budget)
	var last error // the last transient error, for the message when the budget ends
	for attempt := 1; ; attempt++ {
		ok, err := exists(ctx)
		switch {
		case err == nil && ok:
			return nil
		case err != nil && !connect.Transient(err):
			return err
		case err != nil:
			last = err
		default:
			err = send(ctx, stmt)
			var already *gocql.RequestErrAlreadyExists
			if err == nil || errors.As(err, &already) {
				return nil
			}
			if ctx.Err() != nil {
				return err
			}
			if !connect.Transient(err) {
				// A refusal of a change whose effect is there came after an earlier send of
				// it (its answer lost) or another process's: a DROP TABLE refused because
				// the table is gone is done.
				if ok, cerr := exists(ctx); cerr == nil && ok {
					return nil
				}
				return err
			}
			last = err
			if opt.OnRetry != nil {
				opt.OnRetry(attempt, err)
			}
			// The change may be applied, or on its way to the other nodes: give them time
			// to agree before asking whether it is there. A node that is down never
			// agrees, so a failed wait only ends the wait.
			actx, cancel := context.WithTimeout(ctx, min(agreementWait, time.Until(deadline)))
			_ = s.AwaitSchemaAgreement(actx)
			cancel()
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w (after %v)", ctx.Err(), last)
		}
		pause := backoff.Pause(attempt)
		if time.Now().Add(pause).After(deadline) {
			// One last look: the change may have landed during the agreement wait.
			if ok, err := exists(ctx); err == nil && ok {
				return nil
			}
			return fmt.Errorf("not there after %v of checks and sends: %w", budget.Round(time.Second), last)
		}
		if err := retry.Sleep(ctx, pause); err != nil {
			return fmt.Errorf("%w (after %v)", err, last)
		}
	}
}
