package migrations

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/ddl"
)

// CreatesKeyspace reports whether the first statement of the first migration (lowest
// version) creates keyspace: a history that starts with its own CREATE KEYSPACE needs no
// Options.Replication, since the file says how the keyspace is replicated.
func CreatesKeyspace(migs []*Migration, keyspace string) bool {
	var first *Migration
	for _, m := range migs {
		if first == nil || m.Version < first.Version {
			first = m
		}
	}
	return first != nil && createsKeyspace(first, keyspace)
}

func createsKeyspace(m *Migration, keyspace string) bool {
	if len(m.Parsed) == 0 || len(m.Statements) == 0 {
		return false
	}
	ck, ok := m.Parsed[0].(*cql.CreateKeyspace)
	return ok && ck.Name.Name == keyspace
}

// bootstrap runs the first file's CREATE KEYSPACE of the target keyspace when the keyspace
// does not exist yet, before anything else: the bookkeeping tables live in that keyspace
// (by default), so nothing can be recorded before it exists. Several processes may do this
// at once; a node's "already exists" answer to one of them is the keyspace being there,
// which is all this step wants. Once the bookkeeping exists, recordBootstrap records the
// statement as done, so it is never sent a second time.
func (m *Migrator) bootstrap(ctx context.Context) error {
	if len(m.migs) == 0 || !createsKeyspace(m.migs[0], m.opt.Keyspace) {
		return nil
	}
	ok, err := keyspaceExists(ctx, m.s, m.opt.Keyspace)
	if err != nil || ok {
		return err
	}
	mg := m.migs[0]
	stmt := mg.Statements[0]
	m.emit(Event{Kind: Warning, Migration: mg, Statement: 1, Total: len(mg.Statements),
		Message: fmt.Sprintf("keyspace %s does not exist and %s creates it: running that statement first, before the bookkeeping tables that live in it", m.opt.Keyspace, stmt.Pos)})
	// A send that times out is checked and sent again (internal/ddl); "already exists", from
	// a second send or another process, is the keyspace being there.
	if err := ddl.CreateKeyspace(ctx, m.s, m.opt.Keyspace, stmt.Text, m.st.ddlOptions()); err != nil {
		return fmt.Errorf("%s: the target keyspace: %w", stmt.Pos, err)
	}
	return m.st.agree(ctx, stmt.Pos.String())
}

// recordBootstrap records statement 1 of the first file as done, without sending it, when
// it creates the target keyspace, that keyspace exists, and the file has no record yet:
// bootstrap (of this process or of another one starting at the same moment) ran it. Sending
// it again could only do nothing (IF NOT EXISTS) or be refused ("already exists"). It runs
// with the lock held, before the plan, so the steps handed to BeforeApply start after it.
func (m *Migrator) recordBootstrap(l *lease, recs map[int64]*Record, run gocql.UUID) (bool, error) {
	if len(m.migs) == 0 || recs[m.migs[0].Version] != nil || !createsKeyspace(m.migs[0], m.opt.Keyspace) {
		return false, nil
	}
	ok, err := keyspaceExists(l.ctx, m.s, m.opt.Keyspace)
	if err != nil || !ok {
		return false, err
	}
	mg := m.migs[0]
	f := m.st.newFileRecorder(l.owner, mg, run, false, 0)
	f.ran(1)
	if err := f.doneNow(l.ctx, 1); err != nil {
		return false, err
	}
	m.bootstrapped = mg.Version
	return true, nil
}
