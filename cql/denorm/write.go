package denorm

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

func (m *Model[E]) newPlan(wo writeOptions, n int) *Plan {
	return &Plan{Statements: make([]Statement, 0, n), Timestamp: wo.ts, TTL: wo.ttl, Mode: m.opts.Mode}
}

func (m *Model[E]) insertStmt(p *Plan, s *sizer, t *table, r *row) {
	args := r.enc
	q := t.insert
	if p.TTL > 0 {
		q = t.insertTTL
		args = append(args, int32((p.TTL+999_999_999)/1_000_000_000))
	}
	args = append(args, p.Timestamp)
	p.Statements = append(p.Statements, Statement{Table: t.name, Op: OpInsert, CQL: q, Args: args})
	s.add(t, r, OpInsert, p.TTL > 0 || t.defaultTTL)
}

func (m *Model[E]) deleteStmt(p *Plan, s *sizer, t *table, r *row) {
	args := make([]any, 0, 1+len(t.pk)+len(t.ck))
	args = append(args, p.Timestamp)
	for _, i := range t.pk {
		args = append(args, r.enc[i])
	}
	for _, i := range t.ck {
		args = append(args, r.enc[i])
	}
	p.Statements = append(p.Statements, Statement{Table: t.name, Op: OpDelete, CQL: t.delete, Args: args})
	s.add(t, r, OpDelete, false)
}

func countRows(trs []tableRows) int {
	n := 0
	for _, tr := range trs {
		n += len(tr.rows)
	}
	return n
}

// PlanInsert builds and measures the statements that write e to every mapped table,
// without sending anything. It fails, with nothing to send, on a missing key column, a
// value that does not marshal, or a logged batch over Options.FailBytes.
func (m *Model[E]) PlanInsert(e *E, opts ...WriteOption) (*Plan, error) {
	return m.planEach(e, false, opts)
}

// PlanDelete builds the statements that delete every copy of e: one per row its mappings
// produce (every fan-out row included), computed from e's key columns.
func (m *Model[E]) PlanDelete(e *E, opts ...WriteOption) (*Plan, error) {
	return m.planEach(e, true, opts)
}

// planEach builds a plan with one statement per row e's mappings produce, an INSERT or a
// DELETE (from the key columns only), measured as Cassandra measures the batch. It takes a
// flag, not the statement builder as a func value: a method value would allocate on every
// write.
func (m *Model[E]) planEach(e *E, del bool, opts []WriteOption) (*Plan, error) {
	wo, err := m.writeOpts(opts)
	if err != nil {
		return nil, err
	}
	trs, err := m.collect(e, del)
	if err != nil {
		return nil, err
	}
	p := m.newPlan(wo, countRows(trs))
	s := newSizer(m.tables, cap(p.Statements))
	for _, tr := range trs {
		for i := range tr.rows {
			if del {
				m.deleteStmt(p, s, tr.t, &tr.rows[i])
			} else {
				m.insertStmt(p, s, tr.t, &tr.rows[i])
			}
		}
	}
	p.Size = s.size
	return p, m.check(p)
}

// PlanUpdate builds the statements that turn the stored old into new: rows of old whose
// primary key new no longer produces are deleted (a removed hashtag, a post moved to
// another bucket), and every row of new is written. A column new leaves nil keeps its
// stored value (it is sent unset, never as a null).
func (m *Model[E]) PlanUpdate(old, new *E, opts ...WriteOption) (*Plan, error) {
	wo, err := m.writeOpts(opts)
	if err != nil {
		return nil, err
	}
	olds, err := m.collect(old, true)
	if err != nil {
		return nil, fmt.Errorf("old: %w", err)
	}
	news, err := m.collect(new, false)
	if err != nil {
		return nil, fmt.Errorf("new: %w", err)
	}
	p := m.newPlan(wo, countRows(olds)+countRows(news))
	s := newSizer(m.tables, cap(p.Statements))
	for ti := range news {
		keep := make(map[string]bool, len(news[ti].rows))
		for _, r := range news[ti].rows {
			keep[r.key] = true
		}
		for i := range olds[ti].rows {
			if !keep[olds[ti].rows[i].key] {
				m.deleteStmt(p, s, olds[ti].t, &olds[ti].rows[i])
			}
		}
		for i := range news[ti].rows {
			m.insertStmt(p, s, news[ti].t, &news[ti].rows[i])
		}
	}
	p.Size = s.size
	return p, m.check(p)
}

// check applies the batch thresholds to a logged plan the way Cassandra does: only a batch
// over more than one mutation is checked.
func (m *Model[E]) check(p *Plan) error {
	if p.Mode != Logged || p.Size.Mutations <= 1 {
		return nil
	}
	if m.opts.FailBytes > 0 && p.Size.Bytes > m.opts.FailBytes {
		return &BatchTooLargeError{Size: p.Size, Limit: m.opts.FailBytes, Advice: advice(p, m.tables)}
	}
	if m.opts.WarnBytes > 0 && p.Size.Bytes > m.opts.WarnBytes && m.opts.Logger != nil {
		m.opts.Logger.Warn("logged batch over batch_size_warn_threshold",
			"bytes", p.Size.Bytes, "threshold", m.opts.WarnBytes, "tables", p.Size.Tables,
			"advice", advice(p, m.tables))
	}
	return nil
}

// Insert writes e to every mapped table. The returned plan says what was sent: its
// timestamp (pass it to At to retry), rows per table and the batch size.
func (m *Model[E]) Insert(ctx context.Context, e *E, opts ...WriteOption) (*Plan, error) {
	p, err := m.PlanInsert(e, opts...)
	if err != nil {
		return nil, fmt.Errorf("insert: %w", err)
	}
	if err := m.Exec(ctx, p); err != nil {
		return p, fmt.Errorf("insert: %w", err)
	}
	return p, nil
}

// Delete removes every copy of e (the caller's copy, or one read with Load).
func (m *Model[E]) Delete(ctx context.Context, e *E, opts ...WriteOption) (*Plan, error) {
	p, err := m.PlanDelete(e, opts...)
	if err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	if err := m.Exec(ctx, p); err != nil {
		return p, fmt.Errorf("delete: %w", err)
	}
	return p, nil
}

// Update moves and overwrites rows so that what is stored for old becomes new.
func (m *Model[E]) Update(ctx context.Context, old, new *E, opts ...WriteOption) (*Plan, error) {
	p, err := m.PlanUpdate(old, new, opts...)
	if err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	if err := m.Exec(ctx, p); err != nil {
		return p, fmt.Errorf("update: %w", err)
	}
	return p, nil
}

// Exec sends a plan: one LOGGED batch, or in Concurrent mode one statement per row with
// at most Options.Concurrency in flight. Every statement carries the plan's timestamp, so
// the driver's retries (see ConfigureCluster) and the caller's (Exec again, or the write
// again with At(p.Timestamp)) write the same cells. Statements are marked idempotent, so
// the driver retries them, unless they set a whole non-frozen list (see Idempotent).
//
// A LOGGED batch that fails may still be applied: once its coordinator has written the
// batchlog, the batch is replayed by another node even if that coordinator dies. Retrying
// it with the same timestamp is what makes that harmless.
func (m *Model[E]) Exec(ctx context.Context, p *Plan) error {
	if m.session == nil {
		return errors.New("no session: this model only plans")
	}
	if len(p.Statements) == 0 {
		return nil
	}
	if p.Mode == Concurrent {
		return m.execConcurrent(ctx, p)
	}
	b := m.session.NewBatch(gocql.LoggedBatch).WithContext(ctx)
	b.SetConsistency(m.opts.Consistency)
	b.Entries = make([]gocql.BatchEntry, len(p.Statements))
	for i := range p.Statements {
		s := &p.Statements[i]
		b.Entries[i] = gocql.BatchEntry{Stmt: s.CQL, Args: s.Args, Idempotent: m.stmtIdempotent(s)}
	}
	return batchErr(m.session.ExecuteBatch(b), len(p.Statements))
}

// batchErr names the consistency a logged batch was refused at. The node's Unavailable
// says which level it could not reach (and, for EACH_QUORUM, in which DC) but not that
// nothing was written: the coordinator refuses before it writes the batchlog, so no
// statement of the batch is applied and sending it again once the replicas return is safe.
func batchErr(err error, statements int) error {
	var un *gocql.RequestErrUnavailable
	if !errors.As(err, &un) {
		return err
	}
	return fmt.Errorf("logged batch of %d statements refused at %s (%d replicas alive, %d required), nothing applied: %w",
		statements, un.Consistency, un.Alive, un.Required, err)
}

// Idempotent reports whether sending p twice stores what sending it once does, so that the
// driver may retry it and a caller may send it again after a failure. Every statement
// carries the plan's timestamp, which makes inserts and deletes of regular cells, frozen
// collections, sets, maps and user types idempotent. A whole non-frozen list is not: its
// elements are keyed by time UUIDs the coordinator generates, so a replay appends a second
// copy of every element (only a Model built with AllowCollectionTombstones writes one).
// Counter updates and list appends, the other non-idempotent writes, are never planned.
func (m *Model[E]) Idempotent(p *Plan) bool {
	for i := range p.Statements {
		if !m.stmtIdempotent(&p.Statements[i]) {
			return false
		}
	}
	return true
}

func (m *Model[E]) stmtIdempotent(s *Statement) bool {
	if s.Op != OpInsert {
		return true
	}
	t := m.table(s.Table)
	if t == nil {
		return false // not a statement this model planned: nothing is known about it
	}
	for i := range t.cols {
		c := &t.cols[i]
		if c.complex && c.typ.Kind == cql.List && i < len(s.Args) && s.Args[i] != gocql.UnsetValue {
			return false
		}
	}
	return true
}

// table returns the mapped table named name (as Tables names it), or nil.
func (m *Model[E]) table(name string) *table {
	for _, t := range m.tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

// keyOf renders the primary key of a planned statement's row, "col=value, ..." in key
// order, for error messages. It is empty for a statement that does not match its table.
func (m *Model[E]) keyOf(s *Statement) string {
	t := m.table(s.Table)
	if t == nil {
		return ""
	}
	keyCols := append(append(make([]int, 0, len(t.pk)+len(t.ck)), t.pk...), t.ck...)
	var b strings.Builder
	for j, ci := range keyCols {
		at := ci // an INSERT's arguments are the columns in table order
		if s.Op == OpDelete {
			at = 1 + j // a DELETE's are the timestamp, then the key columns in key order
		}
		if at >= len(s.Args) {
			return ""
		}
		if j > 0 {
			b.WriteString(", ")
		}
		c := &t.cols[ci]
		b.WriteString(c.name)
		b.WriteByte('=')
		b.WriteString(formatKey(c, s.Args[at]))
	}
	return b.String()
}

// formatKey renders a key value as CQL would print it: text quoted, a marshalled value
// decoded first.
func formatKey(c *column, v any) string {
	if r, ok := v.(raw); ok {
		dst := c.info.New()
		if err := gocql.Unmarshal(c.info, r, dst); err != nil {
			return fmt.Sprintf("0x%x", []byte(r))
		}
		v = reflect.ValueOf(dst).Elem().Interface()
	}
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []byte:
		return fmt.Sprintf("0x%x", x)
	}
	return fmt.Sprint(v)
}

func (m *Model[E]) execConcurrent(ctx context.Context, p *Plan) error {
	workers := min(m.opts.Concurrency, len(p.Statements))
	errs := make([]error, len(p.Statements))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s := &p.Statements[i]
				q := m.session.Query(s.CQL, s.Args...).WithContext(ctx).Consistency(m.opts.Consistency).Idempotent(m.stmtIdempotent(s))
				errs[i] = q.Exec()
				q.Release()
			}
		}()
	}
	for i := range p.Statements {
		if ctx.Err() != nil {
			errs[i] = ctx.Err()
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
	pe := PartialWriteError{Timestamp: p.Timestamp, Idempotent: true}
	for i, err := range errs {
		s := &p.Statements[i]
		if err != nil {
			pe.Failed = append(pe.Failed, WriteError{Statement: i, Table: s.Table, Op: s.Op, Key: m.keyOf(s), Err: err})
			pe.Idempotent = pe.Idempotent && m.stmtIdempotent(s)
		} else {
			pe.Succeeded++
		}
	}
	if len(pe.Failed) == 0 {
		return nil
	}
	return &pe
}

// Load reads an entity back from the Source table by its primary key (partition key then
// clustering columns, in order). It returns ErrNotFound when there is no such row.
func (m *Model[E]) Load(ctx context.Context, key ...any) (*E, error) {
	src, err := m.readSource()
	if err != nil {
		return nil, err
	}
	if m.session == nil {
		return nil, errors.New("load: no session: this model only plans")
	}
	t := m.tables[src]
	if len(key) != len(t.pk)+len(t.ck) {
		return nil, fmt.Errorf("load from %s: %d key values, want %d (partition key, then clustering)", t.name, len(key), len(t.pk)+len(t.ck))
	}
	stmt, vals := t.selectKey, Values{}
	var e *E
	var dest []any
	sc := m.maps[src].scan
	if sc != nil { // MapStruct's AsSource: the driver unmarshals into the fields themselves
		e = new(E)
		stmt, dest = sc.stmt, sc.dest(reflect.ValueOf(e).Elem())
	}
	// A read is idempotent: the driver may retry it on another replica, and send it a
	// second time when Options.SpeculativeReadAfter passes without an answer.
	var found bool
	for resent := 0; ; resent++ {
		iter, q := readIter(func() *gocql.Query {
			return m.session.Query(stmt, key...).WithContext(ctx).Consistency(m.opts.Consistency).Idempotent(true)
		}, m.opts.SpeculativeReadAfter)
		if sc != nil {
			found = iter.Scan(dest...)
		} else {
			found = iter.MapScan(vals)
		}
		err = iter.Close()
		q.Release()
		if !driverCancelled(ctx, err) || resent == maxResends {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("load from %s: %w", t.name, err)
	}
	if !found {
		return nil, fmt.Errorf("load from %s: %w", t.name, ErrNotFound)
	}
	if sc != nil {
		return e, nil
	}
	e, err = m.maps[src].source(vals)
	if err != nil {
		return nil, fmt.Errorf("load from %s: %w", t.name, err)
	}
	return e, nil
}

// readSource is the index of the Source mapping Load reads: the only one, or of a
// transition's two the one its stage reads.
func (m *Model[E]) readSource() (int, error) {
	if len(m.sources) == 0 {
		return 0, errors.New("load: no mapping is marked as Source")
	}
	for _, i := range m.sources {
		if m.reads(m.tables[i]) {
			return i, nil
		}
	}
	t := m.tables[m.sources[0]]
	return 0, fmt.Errorf("load: the Source %s is not read before its transition's %s stage", t.name, ReadNew)
}

// DeleteByKey loads the stored entity from the Source table and deletes every copy of it,
// so the fan-out rows are found from what was written, not from a caller's possibly stale
// copy. A concurrent update between the read and the delete can leave rows behind; a
// service that allows both should serialize them per entity.
func (m *Model[E]) DeleteByKey(ctx context.Context, key []any, opts ...WriteOption) (*Plan, error) {
	e, err := m.Load(ctx, key...)
	if err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	return m.Delete(ctx, e, opts...)
}

// UpdateStored reads the stored entity with new's key from the Source table and updates it
// to new (Update), so the rows to move are found from what was written, not from a caller's
// possibly stale copy: a hashtag removed since is deleted from its partition. With nothing
// stored under that key, it inserts new. A concurrent write between the read and the
// update can leave rows behind, as with DeleteByKey.
func (m *Model[E]) UpdateStored(ctx context.Context, new *E, opts ...WriteOption) (*Plan, error) {
	key, err := m.sourceKey(new)
	if err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	old, err := m.Load(ctx, key...)
	if errors.Is(err, ErrNotFound) {
		return m.Insert(ctx, new, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	return m.Update(ctx, old, new, opts...)
}

// sourceKey is the primary key e has in the Source table, in Load's order: partition key,
// then clustering columns.
func (m *Model[E]) sourceKey(e *E) ([]any, error) {
	src, err := m.readSource()
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, errors.New("nil entity")
	}
	t := m.tables[src]
	rs := Rows{t: t}
	if err := m.maps[src].rows(e, &rs); err != nil {
		return nil, fmt.Errorf("map %s: %w", t.name, err)
	}
	if rs.err != nil {
		return nil, rs.err
	}
	rows, err := t.build(rs.vals, true)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 {
		return nil, fmt.Errorf("the Source %s has %d rows for the entity, want one", t.name, len(rows))
	}
	key := make([]any, 0, len(t.pk)+len(t.ck))
	for _, i := range append(append([]int(nil), t.pk...), t.ck...) {
		key = append(key, rows[0].enc[i])
	}
	return key, nil
}
