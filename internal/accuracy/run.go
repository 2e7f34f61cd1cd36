package accuracy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/internal/retry"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// Options tune a run.
type Options struct {
	Scale       float64 // multiplies every reference's rows per partition (default 1)
	Concurrency int     // concurrent writes (default 32)
	Seed        uint64  // data seed (default 1)
}

// Result compares one reference workload's partitions as Cassandra wrote them with the model
// and the classic formula.
type Result struct {
	Ref      Reference
	Keys     int // partitions written (live ones are compared)
	Estimate *sizing.Estimate

	// The typical partition is the key of rank ⌈N/2⌉ by activity, the largest the busiest
	// key's (see measure).
	Actual, Model, Classic Sizes

	// Deleted partitions (a partition delete shadowing all their data): their sizes as
	// Cassandra wrote them, and the model's.
	DeletedActual []float64
	DeletedModel  float64

	ActualMax float64 // the largest partition sstablepartitions measured

	// WriteSpread, for a counter table, is how long its writes took: the spread of the
	// cells' timestamps, which the model was given in place of the workload's.
	WriteSpread time.Duration
}

// Sizes are a workload's typical and largest partitions.
type Sizes struct {
	Typical, Largest       float64 // bytes
	TypicalRows, LargeRows float64
	LargestCells           float64
	LargestTombstones      float64
}

// ModelError is the model's relative error on the typical and the largest partition.
func (r Result) ModelError() (typical, largest float64) {
	return rel(r.Model.Typical, r.Actual.Typical), rel(r.Model.Largest, r.Actual.Largest)
}

// ClassicError is the classic formula's relative error.
func (r Result) ClassicError() (typical, largest float64) {
	return rel(r.Classic.Typical, r.Actual.Typical), rel(r.Classic.Largest, r.Actual.Largest)
}

func rel(got, want float64) float64 {
	if want == 0 {
		return math.Inf(1)
	}
	return got/want - 1
}

// Run writes every reference workload into its own table of keyspace, flushes and compacts
// them, measures every partition with sstablepartitions and estimates each table with the
// model. The keyspace must exist and be the caller's (cassandratest.Keyspace makes one).
func Run(ctx context.Context, s *gocql.Session, keyspace string, node *Node, refs []Reference, opt Options) ([]Result, error) {
	if opt.Scale <= 0 {
		opt.Scale = 1
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = 32
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	workloads := make([]*workload.TableWorkload, len(refs))
	for i, ref := range refs {
		w, err := ParseReferenceWorkload(ref)
		if err != nil {
			return nil, err
		}
		if w.RowsPerPartition > 1 {
			w.RowsPerPartition = math.Round(w.RowsPerPartition * opt.Scale)
		} else {
			w.Partitions = math.Round(w.Partitions * opt.Scale) // one row a key: more keys instead
		}
		for j := range w.Deletes {
			if w.Deletes[j].Kind != workload.DeletePartition { // a fraction of partitions, not a count
				w.Deletes[j].PerPartition = math.Round(w.Deletes[j].PerPartition * opt.Scale)
			}
		}
		workloads[i] = w
	}
	ddl := make([]tableDDL, len(refs))
	for i, ref := range refs {
		ddl[i] = tableDDL{ref.Name, ref.Schema}
	}
	schema, err := createTables(ctx, s, keyspace, ddl)
	if err != nil {
		return nil, err
	}

	// Writes end now, so TTLs are counted from when they were written.
	base := time.Now()
	results := make([]Result, len(refs))
	tables := make([]*cql.Table, len(refs))
	for i, ref := range refs {
		tbl := schema.Table(keyspace, ref.Name)
		if tbl == nil {
			return nil, fmt.Errorf("table %s.%s is not in the live schema", keyspace, ref.Name)
		}
		tables[i] = tbl
		data, err := Generate(tbl, schema, workloads[i], base, opt.Seed+uint64(i))
		if err != nil {
			return nil, err
		}
		began := time.Now()
		if err := data.Write(ctx, s, opt.Concurrency); err != nil {
			return nil, err
		}
		results[i] = Result{Ref: ref, Keys: len(data.Partitions)}
		if isCounterTable(tbl) {
			// A counter update takes no client timestamp: its cells carry the times the
			// node applied them, spread over however long the writes took, and each cell
			// stores its time as a varint delta from the sstable's earliest (a byte more
			// once the spread passes 2^21 µs, about 2.1 s). The model is given the spread
			// the writes really had, not the one the workload asked for.
			workloads[i].WriteSpread = time.Since(began)
			results[i].WriteSpread = workloads[i].WriteSpread
		}
	}
	if err := node.FlushAndCompact(ctx, keyspace); err != nil {
		return nil, err
	}
	dirs := make([]string, len(refs))
	for i, ref := range refs {
		if dirs[i], err = node.TableDir(ctx, s, keyspace, ref.Name); err != nil {
			return nil, err
		}
	}
	parts, err := node.SSTablePartitions(ctx, dirs...)
	if err != nil {
		return nil, err
	}
	byTable := map[string][]PartitionStats{}
	for _, p := range parts {
		byTable[p.Table] = append(byTable[p.Table], p)
	}
	for i, ref := range refs {
		est, err := sizing.EstimateTable(tables[i], workloads[i], sizing.Options{Schema: schema})
		if err != nil {
			return nil, fmt.Errorf("estimate %s: %w", ref.Name, err)
		}
		r := &results[i]
		r.Estimate = est
		if err := r.measure(byTable[ref.Name]); err != nil {
			return nil, err
		}
		r.Model = Sizes{
			Typical: est.Typical.Bytes, Largest: est.Largest.Bytes,
			TypicalRows: est.Typical.Rows + est.Typical.Tombstones.Rows, LargeRows: est.Largest.Rows + est.Largest.Tombstones.Rows,
			LargestCells: est.Largest.Cells, LargestTombstones: est.Largest.Tombstones.Total(),
		}
		r.Classic = Sizes{Typical: est.Typical.ClassicBytes, Largest: est.Largest.ClassicBytes}
		r.DeletedModel = est.DeletedPartitionBytes
	}
	return results, nil
}

// measure fills Actual from the live partitions sstablepartitions reported.
func (r *Result) measure(parts []PartitionStats) error {
	var live []PartitionStats
	for _, p := range parts {
		if p.Live {
			live = append(live, p)
		} else {
			r.DeletedActual = append(r.DeletedActual, float64(p.Size))
		}
	}
	if len(live) == 0 {
		return fmt.Errorf("%s: sstablepartitions reported no live partition (%d in all)", r.Ref.Name, len(parts))
	}
	// Two fragments of one partition would mean compaction did not merge them.
	seen := map[string]bool{}
	for _, p := range live {
		if seen[p.Key] {
			return fmt.Errorf("%s: partition %s is in more than one sstable after compaction", r.Ref.Name, p.Key)
		}
		seen[p.Key] = true
	}
	// Rank keys by activity (rows written, deleted rows included), as the model does: the
	// largest partition is the busiest key's, the typical one the key of rank ⌈N/2⌉. Keys
	// equally busy are one group, measured by their mean size: value sizes vary around their
	// average, which the model does not try to predict for a single key.
	sort.SliceStable(live, func(i, j int) bool { return live[i].Rows > live[j].Rows })
	group := func(i int) PartitionStats {
		var n, size, cells, tombs int64
		for _, p := range live {
			if p.Rows == live[i].Rows {
				n++
				size += p.Size
				cells += p.Cells
				tombs += p.Tombstones
			}
		}
		return PartitionStats{Rows: live[i].Rows, Size: size / n, Cells: cells / n, Tombstones: tombs / n}
	}
	for _, p := range live {
		r.ActualMax = math.Max(r.ActualMax, float64(p.Size))
	}
	typ := group(int(math.Max(1, math.Ceil(float64(len(live))/2))) - 1)
	top := group(0)
	r.Actual = Sizes{
		Typical: float64(typ.Size), Largest: float64(top.Size),
		TypicalRows: float64(typ.Rows), LargeRows: float64(top.Rows),
		LargestCells: float64(top.Cells), LargestTombstones: float64(top.Tombstones),
	}
	return nil
}

// ParseReferenceWorkload reads a reference's workload entry.
func ParseReferenceWorkload(ref Reference) (*workload.TableWorkload, error) {
	var b strings.Builder
	b.WriteString("tables:\n  " + ref.Name + ":\n")
	for _, line := range strings.Split(strings.Trim(ref.Workload, "\n"), "\n") {
		b.WriteString("    " + line + "\n")
	}
	w, err := workload.Parse("reference "+ref.Name, []byte(b.String()))
	if err != nil {
		return nil, err
	}
	return w.Tables[0], nil
}

// splitCQL splits the reference's schema at semicolons (it holds no strings with one).
// tableDDL is a table's name and the CQL that creates it.
type tableDDL struct{ name, cql string }

// createTables runs each table's CQL, waits for schema agreement and reads the keyspace's
// schema back from the node, so sizes are computed on what the node holds.
func createTables(ctx context.Context, s *gocql.Session, keyspace string, tables []tableDDL) (*cql.Schema, error) {
	for _, t := range tables {
		for _, st := range splitCQL(t.cql) {
			if err := execDDL(ctx, s, st); err != nil {
				return nil, fmt.Errorf("create %s: %w", t.name, err)
			}
		}
	}
	if err := s.AwaitSchemaAgreement(ctx); err != nil {
		return nil, fmt.Errorf("await schema agreement: %w", err)
	}
	return liveschema.Read(ctx, s, keyspace)
}

// execDDL sends a schema statement, and again (up to three times) when a busy node did not
// answer it (retryable, as for the loaders' writes): a loaded node can apply a schema change
// and still miss the client's timeout. A statement sent again that finds its table or type
// already there was applied by the send before (the keyspace is the test's own).
func execDDL(ctx context.Context, s *gocql.Session, st string) error {
	attempt := 0
	_, err := retry.Do(ctx, retry.Policy{Attempts: 3, Retry: retryable}, func() error {
		attempt++
		err := s.Query(st).WithContext(ctx).Exec()
		if exists := (*gocql.RequestErrAlreadyExists)(nil); attempt > 1 && errors.As(err, &exists) {
			return nil
		}
		return err
	})
	return err
}

func splitCQL(src string) []string {
	var out []string
	for _, st := range strings.Split(src, ";") {
		if st = strings.TrimSpace(st); st != "" {
			out = append(out, st)
		}
	}
	return out
}
