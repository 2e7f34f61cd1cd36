package report

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/sizing/readcost"
	"github.com/cqlsize/cqlsize/tombstone"
	"github.com/cqlsize/cqlsize/workload"
)

// Options say how to build a report beyond what the schema and the workload give.
type Options struct {
	Target       sizing.Target
	Tool         string // "cqlsize v0.3.0"
	SchemaPath   string
	WorkloadPath string
	// Read is the typical read of a table no query names. Its Order is used only when
	// OrderSet; otherwise each table's clustering order decides (a time-typed first
	// clustering column read in its declared order).
	Read     tombstone.Read
	OrderSet bool
	// Queries are the application's SELECTs (a queries file): each table's typical read is
	// the worst of the queries that read it, by tombstones counted.
	Queries []NamedQuery
	// Statements are the application's writes, classified for the tombstones they write.
	Statements []cql.Statement
	// DeletesAt is where the workload's deleted rows lie relative to where reads start.
	DeletesAt tombstone.Placement
	// Replication, when known, is every table's replication (--replication), over what
	// the schema's keyspaces say; ReplicationSource says where the schema's replication
	// comes from: "schema" (the files) or "cluster" (system_schema).
	Replication       *cql.Replication
	ReplicationSource string
	// Nodes is the node count of each data center (or of the whole cluster, key ""), when
	// known or given: it spreads each DC's bytes over its nodes.
	Nodes map[string]int
	// FanOut lists entity writes to size as batches: each the tables one entity is written
	// to (BEGIN BATCH blocks of Statements are sized too).
	FanOut [][]string
}

// NamedQuery is a SELECT with the name a queries file gives it.
type NamedQuery struct {
	Name string
	// Rate, P99 and Range are what the query's header declares (rate=1000/s p99=20ms
	// range=7d), zero when it does not: the read cost's partition reads a second and the
	// width a range read covers.
	Rate  float64
	P99   time.Duration
	Range time.Duration
	Stmt  *cql.Select
}

// InputError is a workload value the tombstone analysis cannot use, at its place in the
// workload file.
type InputError struct {
	Pos   cql.Pos
	Table string
	Err   error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%s: table %s: %v", e.Pos, e.Table, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// Build estimates every table of the workload against the schema and assembles the report.
// Errors are the workload's own (workload.ErrorList with file:line:col) or an *InputError.
func Build(schema *cql.Schema, w *workload.Workload, opt Options) (*Report, error) {
	if opt.Target == "" {
		opt.Target = sizing.Cassandra50
	}
	ests, err := sizing.EstimateAll(schema, w, sizing.Options{Target: opt.Target, Schema: schema, GrowthPoints: 25})
	if err != nil {
		return nil, err
	}
	r := &Report{
		Version: Version, Tool: opt.Tool, Target: string(opt.Target),
		Schema: opt.SchemaPath, Workload: opt.WorkloadPath,
		Limits:     limitsFor(opt.Target),
		Tables:     []Table{},
		Statements: []Finding{},
		Batches:    []Batch{},
		Notes:      []string{},
	}
	th := thresholdsFor(opt.Target)
	for i, est := range ests {
		tw := w.Tables[i]
		tbl, err := tw.Resolve(schema)
		if err != nil {
			return nil, err
		}
		t, err := buildTable(tbl, est, tw, opt, th)
		if err != nil {
			return nil, err
		}
		if t.Replicas, err = replicasOf(schema, tbl.Keyspace, est.TotalBytes, opt); err != nil {
			return nil, err
		}
		r.Tables = append(r.Tables, t)
	}
	for _, f := range tombstone.StatementFindings(schema, opt.Statements) {
		r.Statements = append(r.Statements, fromFinding(f))
	}
	batches, err := batchesOf(schema, w, opt)
	if err != nil {
		return nil, err
	}
	if batches != nil {
		r.Batches = batches
	}
	r.summarize()
	return r, nil
}

// batchesOf sizes the fan-out writes: the --batch table lists, then each BEGIN BATCH of the
// statements, every statement its own partition (the tables of a denormalized model are
// keyed differently).
func batchesOf(schema *cql.Schema, w *workload.Workload, opt Options) ([]Batch, error) {
	var out []Batch
	size := func(writes []sizing.BatchWrite, pos cql.Pos) error {
		est, err := sizing.EstimateBatch(writes, sizing.Options{Target: opt.Target, Schema: schema})
		if err != nil {
			if pos.IsValid() {
				return fmt.Errorf("%s: %w", pos, err)
			}
			return err
		}
		b := Batch{Bytes: Num(est.Bytes), Mutations: est.Mutations, Checked: est.Checked, PerTable: map[string]Num{}, Findings: []Finding{}}
		if pos.IsValid() {
			b.Position = pos.String()
		}
		for _, bw := range writes {
			b.Tables = append(b.Tables, bw.Table.QualifiedName())
		}
		for k, v := range est.PerTable {
			b.PerTable[k] = Num(v)
		}
		for _, f := range est.Findings {
			g := fromFinding(f)
			g.Position = b.Position
			b.Findings = append(b.Findings, g)
		}
		out = append(out, b)
		return nil
	}
	for _, tables := range opt.FanOut {
		writes, err := sizing.BatchFromWorkloads(schema, w, tables...)
		if err != nil {
			return nil, fmt.Errorf("fan-out batch %s: %w", strings.Join(tables, ","), err)
		}
		if err := size(writes, cql.Pos{}); err != nil {
			return nil, err
		}
	}
	keyspace := ""
	for _, st := range opt.Statements {
		switch s := st.(type) {
		case *cql.Use:
			keyspace = s.Keyspace.Name
		case *cql.Batch:
			if s.Type == cql.CounterBatch {
				continue
			}
			var writes []sizing.BatchWrite
			for _, inner := range s.Statements {
				var q cql.QualifiedName
				switch x := inner.(type) {
				case *cql.Insert:
					q = x.Table
				case *cql.Update:
					q = x.Table
				case *cql.Delete:
					q = x.Table
				}
				tbl := lookup(schema, keyspace, q)
				if tbl == nil {
					return nil, fmt.Errorf("%s: batch writes %s, which is not in the schema", inner.Info().Pos, q)
				}
				writes = append(writes, sizing.BatchWrite{Table: tbl, Workload: w.Table(tbl.QualifiedName()), Rows: 1})
			}
			if len(writes) > 0 {
				if err := size(writes, s.Pos); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

func lookup(schema *cql.Schema, keyspace string, q cql.QualifiedName) *cql.Table {
	ks := q.Keyspace.Name
	if ks == "" {
		ks = keyspace
	}
	if ks != "" {
		return schema.Table(ks, q.Name.Name)
	}
	t, _ := schema.FindTable(q.Name.Name)
	return t
}

func limitsFor(t sizing.Target) Limits {
	var l Limits
	for _, lim := range sizing.Limits(t) {
		switch lim.Measure {
		case sizing.Bytes:
			l.PartitionBytes = Num(lim.Value)
		case sizing.Values:
			l.PartitionValues = Num(lim.Value)
		case sizing.Rows:
			l.PartitionRows = Num(lim.Value)
		}
	}
	th := thresholdsFor(t)
	l.TombstoneWarn, l.TombstoneFail = th.Warn, th.Fail
	return l
}

// thresholdsFor returns the per-read tombstone thresholds of a target. ScyllaDB has no
// failure threshold: it ends a page after query_tombstone_page_limit tombstones.
func thresholdsFor(t sizing.Target) tombstone.Thresholds {
	if t == sizing.ScyllaDB {
		return tombstone.ScyllaThresholds
	}
	return tombstone.DefaultThresholds
}

func buildTable(tbl *cql.Table, est *sizing.Estimate, tw *workload.TableWorkload, opt Options, th tombstone.Thresholds) (Table, error) {
	t := Table{
		Name:        est.Table,
		Partitions:  Num(est.Partitions),
		Bucket:      est.Bucket.Name,
		LifeSeconds: Num(est.Life.Seconds()),
		TTLSeconds:  Num(est.TTL.Seconds()),
		GCGrace:     Num(est.GCGrace.Seconds()),
		Compaction:  tbl.Options.CompactionClass(),
		TotalBytes:  Num(est.TotalBytes),
		Typical:     size(est.Typical),
		P99:         size(est.P99),
		Largest:     size(est.Largest),
		Growth:      []Point{},
		Crossings:   []Cross{},
		Findings:    []Finding{},
		Assumptions: append([]string{}, est.Assumptions...),
	}
	if tw != nil && tw.CompressionRatio > 0 { // measured by cqlsize profile (profile.Disk)
		t.DiskBytes = Num(est.TotalBytes * tw.CompressionRatio)
	}
	if est.Pos.IsValid() {
		t.Position = est.Pos.String()
	}
	t.addGrowth(tbl, est)
	tr, err := tombstoneReads(tbl, est, tw, opt, th)
	if err != nil {
		return Table{}, err
	}
	if tw.WriteRate.IsZero() && len(tw.Deletes) > 0 {
		t.Assumptions = append(t.Assumptions, "tombstones: rows_per_partition gives no time, so every delete is taken as younger than gc_grace_seconds (the worst case); give write_rate and per-day delete rates for a timeline")
	}
	t.addTombstones(tr)
	t.addFindings(est, tr)
	if err := t.addReads(tbl, est, tw, opt); err != nil {
		return Table{}, err
	}
	return t, nil
}

// addReads adds the read cost of each named query on the table, and its findings. A
// workload without a write rate (rows_per_partition) says nothing of how the rows spread
// over time, so it has none.
func (t *Table) addReads(tbl *cql.Table, est *sizing.Estimate, tw *workload.TableWorkload, opt Options) error {
	if tw.WriteRate.IsZero() {
		return nil
	}
	life := tw.Horizon
	if est.TTL > 0 {
		life = est.TTL
	}
	if life <= 0 {
		life = est.Life
	}
	for _, q := range opt.Queries {
		if q.Stmt == nil || !sameTable(tbl, q.Stmt.Table) {
			continue
		}
		rd := tombstone.ReadOf(tbl, q.Stmt, opt.Read)
		p := readcost.Pattern{Keys: est.Keys, Rate: tw.WriteRate.PerSecond() * est.Keys, Skew: tw.Skew, Retention: life,
			Bucket: est.Bucket.Avg, Shards: tw.Shards, Limit: rd.Limit, Range: q.Range, ReadRate: q.Rate}
		if rd.Slice == tombstone.Point {
			p.Limit = 1 // one row by its primary key
		}
		if tw.Partitions < 1 {
			p.Skew = workload.Skew{MaxRate: tw.Skew.MaxRate}
		}
		if p.Range == 0 && p.Limit == 0 && p.Bucket > 0 && namesBucket(tbl, q.Stmt) {
			// The query names its bucket (day = ?) and reads all of it: one bucket a read.
			// With a LIMIT it is the first step of a walk back until the rows are enough.
			p.Range = p.Bucket
		}
		c, err := readcost.Of(p)
		if err != nil {
			return &InputError{Pos: tw.Pos, Table: tw.Name, Err: fmt.Errorf("query %s: %w", q.Name, err)}
		}
		keys := func(f func(readcost.Key) float64) ReadKeys {
			return ReadKeys{Num(f(c.Typical)), Num(f(c.P99)), Num(f(c.Busiest))}
		}
		r := Read{Query: q.Name, Position: q.Stmt.Pos.String(),
			PartitionsPerRead:       keys(func(k readcost.Key) float64 { return k.Partitions }),
			RowsPerRead:             keys(func(k readcost.Key) float64 { return k.Rows }),
			EmptyPartitionsPerRead:  keys(func(k readcost.Key) float64 { return k.Empty }),
			PartitionReadsPerSecond: Num(c.PartitionReads)}
		t.Reads = append(t.Reads, r)
		for _, f := range c.Findings(est.Table, q.Name, q.P99) {
			f.Pos = q.Stmt.Pos
			t.Findings = append(t.Findings, fromFinding(f))
		}
	}
	return nil
}

// addGrowth adds the growth timeline and the limit crossings, with the classic formula's
// values beside the stored ones.
func (t *Table) addGrowth(tbl *cql.Table, est *sizing.Estimate) {
	t.staticValues = float64(len(tbl.ColumnsOf(cql.Static)))
	t.valuesPerRow = float64(len(tbl.ColumnsOf(cql.Regular)))
	if est.Typical.Rows > 0 {
		t.valuesPerRow = (est.Typical.ClassicValues - t.staticValues) / est.Typical.Rows
	}
	values := func(rows float64) float64 {
		if rows <= 0 {
			return 0
		}
		return rows*t.valuesPerRow + t.staticValues
	}
	for _, g := range est.Growth {
		t.Growth = append(t.Growth, Point{
			AgeSeconds: Num(g.Age.Seconds()), Rows: Num(g.Rows), Values: Num(values(g.Rows)), StoredValues: Num(g.Values), Bytes: Num(g.Bytes),
			LargestRows: Num(g.LargestRows), LargestValues: Num(values(g.LargestRows)), LargestStoredValues: Num(g.LargestValues),
			LargestBytes: Num(g.LargestBytes),
		})
	}
	for _, c := range est.Crossings {
		x := Cross{Code: c.Limit.Code, Limit: c.Limit.Name, TypicalNever: c.TypicalNever, LargestNever: c.LargestNever}
		if !c.TypicalNever {
			x.TypicalSeconds = Num(c.Typical.Seconds())
		}
		if !c.LargestNever {
			x.LargestSeconds = Num(c.Largest.Seconds())
		}
		t.Crossings = append(t.Crossings, x)
	}
}

// tombReads is the tombstone model over the table's reads: the typical partition's worst
// read, and the same read on the p99 and the largest partition.
type tombReads struct {
	best, p99, largest tombstone.Result
	read               namedRead
}

// tombstoneReads runs the tombstone model on every read of the table for the typical
// partition, and on the worst of them for the p99 and the largest.
func tombstoneReads(tbl *cql.Table, est *sizing.Estimate, tw *workload.TableWorkload, opt Options, th tombstone.Thresholds) (tombReads, error) {
	var tr tombReads
	for i, rd := range readsFor(tbl, opt) {
		in, err := tombstoneInput(tbl, est, tw, est.Typical.Activity, rd.read, opt.DeletesAt, th)
		if err != nil {
			return tr, err
		}
		res, err := tombstone.Estimate(in)
		if err != nil {
			return tr, workloadError(tw, err)
		}
		if i == 0 || res.BucketEnd.PerRead > tr.best.BucketEnd.PerRead {
			tr.best, tr.read = res, rd
		}
	}
	in, _ := tombstoneInput(tbl, est, tw, est.Largest.Activity, tr.read.read, opt.DeletesAt, th)
	var err error
	if tr.largest, err = tombstone.Estimate(in); err != nil {
		return tr, workloadError(tw, err)
	}
	in, _ = tombstoneInput(tbl, est, tw, est.P99.Activity, tr.read.read, opt.DeletesAt, th)
	if tr.p99, err = tombstone.Estimate(in); err != nil {
		return tr, workloadError(tw, err)
	}
	return tr, nil
}

// addTombstones adds the tombstone figures of the typical partition's worst read.
func (t *Table) addTombstones(tr tombReads) {
	best, bestRead := tr.best, tr.read
	// One tombstones-on-disk figure per partition: the tombstone model's, which purges what
	// gc_grace_seconds and compaction let go (the sizing model's count, sizing.Tombstones,
	// is what the byte figure carries, and keeps null and collection tombstones for the
	// partition's whole life). typical.tombstones_on_disk is tombstones.on_disk.
	t.Typical.TombstonesOnDisk = Num(best.BucketEnd.OnDisk)
	t.P99.TombstonesOnDisk = Num(tr.p99.BucketEnd.OnDisk)
	t.Largest.TombstonesOnDisk = Num(tr.largest.BucketEnd.OnDisk)
	t.Tombstones = Tombs{
		Read:           readText(bestRead.read),
		Query:          bestRead.query,
		PerRead:        Num(best.BucketEnd.PerRead),
		LargestPerRead: Num(tr.largest.BucketEnd.PerRead),
		PeakPerRead:    Num(best.Peak.PerRead),
		PeakAgeSeconds: Num(best.Peak.Age.Seconds()),
		PerPartition:   Num(best.BucketEnd.Readable),
		OnDisk:         Num(best.BucketEnd.OnDisk),
		Sources:        []Source{},
	}
	for _, c := range best.BucketEnd.Sources {
		t.Tombstones.Sources = append(t.Tombstones.Sources, Source{
			Source: c.Source.String(), Counted: c.Source.Counted(),
			PerRead: Num(c.PerRead), PerPartition: Num(c.Readable), OnDisk: Num(c.OnDisk),
		})
	}
}

// addFindings adds sizing's verdicts and recommendations, then the tombstone findings they
// do not already cover. The largest partition's read decides when it is worse.
func (t *Table) addFindings(est *sizing.Estimate, tr tombReads) {
	best, largest, bestRead := tr.best, tr.largest, tr.read
	have := map[string]bool{}
	for _, f := range est.Findings {
		have[f.Code] = true
		t.Findings = append(t.Findings, fromFinding(f))
	}
	tombFindings := best.Findings
	if largest.Verdict() > best.Verdict() {
		tombFindings = largest.Findings
		for i := range tombFindings {
			if tombFindings[i].Code == tombstone.CodeReadWarn || tombFindings[i].Code == tombstone.CodeReadFail {
				tombFindings[i].Message = "in the largest partition, " + tombFindings[i].Message
			}
		}
	}
	covered := map[string]string{tombstone.CodeTTLNotTWCS: sizing.CodeTWCS, tombstone.CodeDeleteByAge: sizing.CodeTTL, tombstone.CodeNullWrites: sizing.CodeUnset}
	for _, f := range tombFindings {
		if by, ok := covered[f.Code]; ok && have[by] && f.Severity <= tombstone.Info {
			continue
		}
		g := fromFinding(f)
		if bestRead.query != "" && (f.Code == tombstone.CodeReadWarn || f.Code == tombstone.CodeReadFail || f.Code == tombstone.CodePeakRead) {
			g.Message = "query " + bestRead.query + ": " + g.Message
			g.Position = bestRead.pos.String()
		}
		t.Findings = append(t.Findings, g)
	}
}

// namesBucket reports whether q restricts the table's bucket column by equality (WHERE
// sensor_id = ? AND day = ?): it reads one bucket, not a walk back through them.
func namesBucket(tbl *cql.Table, q *cql.Select) bool {
	_, col, ok := sizing.TableBucket(tbl)
	if !ok || col == "" {
		return false
	}
	for _, r := range q.Where {
		if r.Kind == cql.RelColumn && r.Column().Name == col && r.Op == cql.OpEq {
			return true
		}
	}
	return false
}

func workloadError(tw *workload.TableWorkload, err error) error {
	var fe *tombstone.FieldError
	if errors.As(err, &fe) {
		path := ""
		switch {
		case strings.HasPrefix(fe.Field, "Deletes["):
			path = "deletes[" + strings.TrimPrefix(strings.SplitN(fe.Field, "]", 2)[0], "Deletes[") + "]"
		case strings.HasPrefix(fe.Field, "Writes.NullFraction"):
			path = "nulls"
		}
		return &InputError{Pos: tw.FieldPos(path), Table: tw.Name, Err: err}
	}
	return &InputError{Pos: tw.Pos, Table: tw.Name, Err: err}
}

func size(p sizing.Partition) Size {
	return Size{Rows: Num(p.Rows), StoredValues: Num(p.StoredValues), ClassicValues: Num(p.ClassicValues), Values: Num(p.ClassicValues),
		Cells: Num(p.Cells), Bytes: Num(p.Bytes), ClassicBytes: Num(p.ClassicBytes)}
}

// namedRead is a typical read and the query it comes from ("" for the default read).
type namedRead struct {
	read  tombstone.Read
	query string
	pos   cql.Pos
}

// readsFor lists the reads of a table: the queries that read it, or the default read.
func readsFor(tbl *cql.Table, opt Options) []namedRead {
	var out []namedRead
	for _, q := range opt.Queries {
		if q.Stmt == nil || !sameTable(tbl, q.Stmt.Table) {
			continue
		}
		out = append(out, namedRead{read: tombstone.ReadOf(tbl, q.Stmt, opt.Read), query: q.Name, pos: q.Stmt.Pos})
	}
	if len(out) > 0 {
		return out
	}
	rd := opt.Read
	if !opt.OrderSet {
		rd = tombstone.ReadOf(tbl, nil, opt.Read)
	}
	return []namedRead{{read: rd}}
}

func sameTable(tbl *cql.Table, q cql.QualifiedName) bool {
	if q.Name.Name != tbl.Name {
		return false
	}
	return q.Keyspace.Name == "" || q.Keyspace.Name == tbl.Keyspace
}

func readText(r tombstone.Read) string {
	var parts []string
	if r.Limit > 0 {
		parts = append(parts, fmt.Sprintf("LIMIT %d", r.Limit))
	} else {
		parts = append(parts, "whole partition")
	}
	if r.Fraction > 0 && r.Fraction < 1 {
		parts = append(parts, fmt.Sprintf("%.0f%% of the rows", r.Fraction*100))
	}
	if r.Order != tombstone.Unordered {
		parts = append(parts, r.Order.String())
	}
	switch r.Slice {
	case tombstone.Point:
		parts = []string{"one row by its primary key"}
	case tombstone.AfterCursor:
		parts = append(parts, "after a cursor")
	}
	return strings.Join(parts, ", ")
}

const day = 24 * time.Hour

// tombstoneInput describes one partition of the table to the tombstone model: the
// workload's rates scaled by the key's activity, its TTL, nulls and collections, and its
// deletes placed where opt says.
func tombstoneInput(tbl *cql.Table, est *sizing.Estimate, w *workload.TableWorkload, activity float64, read tombstone.Read,
	at tombstone.Placement, th tombstone.Thresholds) (tombstone.Input, error) {
	if activity <= 0 {
		activity = 1
	}
	tt := tombstone.TableOf(tbl)
	tt.Name = est.Table
	tt.GCGraceSeconds = int(est.GCGrace.Seconds())
	tt.DefaultTTLSeconds = 0 // the effective TTL is the workload's, below
	in := tombstone.Input{Table: tt, Read: read, Thresholds: th}
	life := est.Life
	if life <= 0 {
		life = day
	}
	if w.WriteRate.IsZero() {
		// A count of rows, not a rate, says nothing of time: take the worst case, every row
		// and every delete younger than gc_grace_seconds (written within a day).
		life = day
	}
	lifeDays := life.Hours() / 24
	if !w.WriteRate.IsZero() {
		in.Writes.RowsPerDay = w.WriteRate.PerSecond() * 86400 * activity
		if !est.Bucket.IsZero() {
			in.Writes.Bucket = est.Bucket.Avg
		}
	} else {
		in.Writes.RowsPerDay = w.RowsPerPartition * activity / lifeDays
		in.Writes.Bucket = life
	}
	in.Writes.TTLSeconds = int(math.Round(est.TTL.Seconds()))
	in.Writes.ByUpdate = w.Writes == workload.Update
	// The missing values: nulls are cell tombstones; unset columns write no cell, so they
	// neither count as tombstones nor expire as cells with a TTL.
	var sum float64
	var n int
	for _, c := range tbl.ColumnsOf(cql.Regular) {
		if c.Type.MultiCell() {
			continue
		}
		f, ok := w.Nulls[c.Name]
		if !ok {
			f = w.Nulls["*"]
		}
		sum += f
		n++
	}
	if n > 0 {
		if w.NullsAs == workload.NullTombstone {
			in.Writes.NullFraction = sum / float64(n)
		} else {
			in.Writes.UnsetFraction = sum / float64(n)
		}
	}
	var elems float64
	var multi, whole int
	for _, c := range tbl.ColumnsOf(cql.Regular) {
		if c.Type.MultiCell() {
			multi++
			elems += w.Items[c.Name].Count
			if w.ElementWrites[c.Name] < 1 {
				whole++ // an INSERT writes it whole; one written element by element it leaves alone
			}
		}
	}
	if multi > 0 {
		in.Writes.ElementsPerCollection = elems / float64(multi)
		in.Writes.CollectionsWhole = w.Writes == workload.Insert && whole > 0 || len(w.Overwrites) > 0
	}
	for _, d := range w.Deletes {
		var perDay float64
		if !d.Rate.IsZero() {
			perDay = d.Rate.PerSecond() * 86400 * activity
		} else if d.Kind == workload.DeletePartition {
			perDay = d.PerPartition / lifeDays
		} else {
			perDay = d.PerPartition * activity / lifeDays
		}
		kind := map[workload.DeleteKind]tombstone.Kind{
			workload.DeletePartition: tombstone.PartitionDelete, workload.DeleteRow: tombstone.RowDelete,
			workload.DeleteRange: tombstone.RangeDelete, workload.DeleteCell: tombstone.CellDelete,
			workload.DeleteElement: tombstone.ElementDelete,
		}[d.Kind]
		where := at
		if d.At != "" {
			p, err := tombstone.ParsePlacement(d.At)
			if err != nil {
				return in, err
			}
			where = p
		}
		in.Deletes = append(in.Deletes, tombstone.Delete{Kind: kind, PerDay: perDay, Rows: d.Rows, At: where})
	}
	return in, nil
}

// replicasOf spreads one replica's bytes of a table in keyspace ks by the replication
// --replication gives, else by the keyspace's own; nil when neither is known.
func replicasOf(schema *cql.Schema, ks string, oneReplica float64, opt Options) (*Replicas, error) {
	var r cql.Replication
	source := "flag"
	if opt.Replication != nil {
		r = *opt.Replication
	} else if k := schema.Keyspaces[ks]; k != nil && len(k.Replication) > 0 {
		var err error
		if r, err = cql.ReplicationOf(k.Replication); err != nil {
			where := "keyspace " + ks
			if k.Pos.IsValid() {
				where = k.Pos.String() + ": " + where
			}
			return nil, fmt.Errorf("%s: %w (or give it with --replication)", where, err)
		}
		source = opt.ReplicationSource
		if source == "" {
			source = "schema"
		}
	}
	if !r.Known() {
		return nil, nil
	}
	sr := sizing.Replicate(oneReplica, r, opt.Nodes)
	out := &Replicas{Replication: r.String(), Class: r.Class, Source: source, DataCenters: []DCReplicas{},
		ClusterBytes: Num(sr.Cluster), ClusterKnown: sr.ClusterKnown, text: sr.Text()}
	for _, d := range sr.DCs {
		out.DataCenters = append(out.DataCenters, DCReplicas{Name: d.DC, ReplicationFactor: d.RF, Bytes: Num(d.Bytes), Nodes: d.Nodes, NodeBytes: Num(d.NodeBytes)})
	}
	return out, nil
}
