package accuracy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/retry"
	"github.com/cqlsize/cqlsize/workload"
)

// Loaded is one table as the loader wrote it: the ground truth of its distribution.
type Loaded struct {
	Table    ProfileTable
	Workload *workload.TableWorkload // what was written (after scaling)
	Rows     []int                   // rows per partition, busiest first
	Total    int                     // rows in all
	TTLRows  int                     // rows written with their own TTL
	Took     time.Duration           // time to write the table
}

// RowsP99 is the loaded rows per partition of the key at the 99th percentile: rank
// ⌈N/100⌉ by rows, the definition the sizing model uses.
func (l Loaded) RowsP99() float64 { return rankQuantile(l.Rows, 0.99) }

// RowsP50 is the median key's rows (rank ⌈N/2⌉).
func (l Loaded) RowsP50() float64 { return rankQuantile(l.Rows, 0.5) }

// rankQuantile returns, from counts sorted busiest first, the count of rank ⌈n(1-q)⌉.
func rankQuantile(desc []int, q float64) float64 {
	if len(desc) == 0 {
		return 0
	}
	r := int(math.Max(1, math.Ceil(float64(len(desc))*(1-q)-1e-6)))
	return float64(desc[r-1])
}

// LoadOptions tune a load.
type LoadOptions struct {
	Scale       float64 // multiplies the count each table's Scales names (default 1)
	Concurrency int     // batches in flight (default 32)
	Seed        uint64  // data seed (default 1)
}

// scaled returns the table's workload with the scale applied to the count it names.
func (t ProfileTable) scaled(scale float64) (*workload.TableWorkload, error) {
	w, err := ParseReferenceWorkload(t.Reference)
	if err != nil {
		return nil, err
	}
	switch t.Scales {
	case "partitions":
		w.Partitions = math.Round(w.Partitions * scale)
	case "rows":
		w.RowsPerPartition = math.Round(w.RowsPerPartition * scale)
	}
	return w, nil
}

// LoadProfileTables creates the tables in keyspace (which must exist and be the caller's),
// writes each one's data (UNLOGGED batches of one partition's rows, many in flight), then
// flushes and compacts the keyspace so each partition sits in one sstable.
func LoadProfileTables(ctx context.Context, s *gocql.Session, keyspace string, node *Node, tables []ProfileTable, opt LoadOptions) ([]Loaded, error) {
	if opt.Scale <= 0 {
		opt.Scale = 1
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = 32
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	ddl := make([]tableDDL, len(tables))
	for i, t := range tables {
		ddl[i] = tableDDL{t.Name, t.Schema}
	}
	schema, err := createTables(ctx, s, keyspace, ddl)
	if err != nil {
		return nil, err
	}
	base := time.Now()
	out := make([]Loaded, len(tables))
	for i, t := range tables {
		w, err := t.scaled(opt.Scale)
		if err != nil {
			return nil, err
		}
		tbl := schema.Table(keyspace, t.Name)
		if tbl == nil {
			return nil, fmt.Errorf("table %s.%s is not in the live schema", keyspace, t.Name)
		}
		start := time.Now()
		data, err := Generate(tbl, schema, w, base, opt.Seed+uint64(i))
		if err != nil {
			return nil, err
		}
		l := Loaded{Table: t, Workload: w}
		batches, err := partitionBatches(t.Name, data)
		if err != nil {
			return nil, err
		}
		if t.TTLFraction > 0 {
			l.TTLRows = withTTL(batches, t.TTLFraction, t.TTLSeconds, opt.Seed+uint64(i))
		}
		if err := writeBatches(ctx, s, t.Name, batches, opt.Concurrency); err != nil {
			return nil, err
		}
		l.Took = time.Since(start)
		for _, p := range data.Partitions {
			if p.Rows > 0 {
				l.Rows = append(l.Rows, p.Rows)
				l.Total += p.Rows
			}
		}
		sort.Sort(sort.Reverse(sort.IntSlice(l.Rows)))
		out[i] = l
	}
	if err := node.FlushAndCompact(ctx, keyspace); err != nil {
		return nil, err
	}
	return out, nil
}

// maxBatchBytes keeps every batch under Cassandra's batch_size_warn_threshold (5 KiB), so
// the load leaves no warning in the node's log.
const maxBatchBytes = 4 << 10

// partitionBatches cuts the generated statements into batches of one partition's rows.
// Generate writes each partition's rows one after another, so the partition of each
// statement follows from the row counts; a workload with deletes would break that, and is
// refused.
func partitionBatches(table string, d *Data) ([][]stmt, error) {
	want := 0
	for _, p := range d.Partitions {
		want += p.Rows
	}
	if want != len(d.stmts) {
		return nil, fmt.Errorf("load %s: %d statements for %d rows (the profile tables declare no deletes)", table, len(d.stmts), want)
	}
	var out [][]stmt
	j := 0
	for _, p := range d.Partitions {
		var cur []stmt
		size := 0
		for k := 0; k < p.Rows; k++ {
			st := d.stmts[j]
			j++
			n := argBytes(st.args)
			if len(cur) > 0 && size+n > maxBatchBytes {
				out = append(out, cur)
				cur, size = nil, 0
			}
			cur, size = append(cur, st), size+n
		}
		if len(cur) > 0 {
			out = append(out, cur)
		}
	}
	return out, nil
}

// argBytes approximates a statement's mutation size from its bound values.
func argBytes(args []any) int {
	n := 0
	for _, a := range args {
		switch v := a.(type) {
		case string:
			n += len(v)
		case []byte:
			n += len(v)
		case []any:
			n += 16 * len(v)
		case map[any]any:
			n += 32 * len(v)
		default:
			n += 8
		}
		n += 4
	}
	return n
}

// withTTL gives a fraction of the rows their own TTL: "USING TIMESTAMP ?" becomes "USING
// TIMESTAMP ? AND TTL ?", the TTL bound last (after the timestamp, which the generator binds
// last). It returns how many rows it changed.
func withTTL(batches [][]stmt, fraction float64, ttl int, seed uint64) int {
	rng := rand.New(rand.NewPCG(seed, 0x7e57))
	n := 0
	for _, b := range batches {
		for i := range b {
			if rng.Float64() >= fraction || !strings.HasSuffix(b[i].cql, "USING TIMESTAMP ?") {
				continue
			}
			b[i].cql += " AND TTL ?"
			b[i].args = append(append([]any(nil), b[i].args...), ttl)
			n++
		}
	}
	return n
}

// writeAttempts bounds the tries of one batch: a busy shared node times writes out now and
// then, and every row carries its own timestamp (USING TIMESTAMP), so writing it again
// writes the same cells (docs: faults.md, Retries).
const writeAttempts = 5

// writeBackoff is the pause between them: 500 ms doubling to 2 s.
var writeBackoff = retry.Backoff{Min: 500 * time.Millisecond, Max: 2 * time.Second}

// writeBatch writes one batch (a lone statement as itself), again after a timeout or an
// overloaded node, with a growing pause (writeBackoff).
func writeBatch(ctx context.Context, s *gocql.Session, b []stmt) error {
	n, err := retry.Do(ctx, retry.Policy{Backoff: writeBackoff, Attempts: writeAttempts, Retry: retryable}, func() error {
		if len(b) == 1 {
			return s.Query(b[0].cql, b[0].args...).WithContext(ctx).Exec()
		}
		batch := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
		for _, st := range b {
			batch.Query(st.cql, st.args...)
		}
		return s.ExecuteBatch(batch)
	})
	if err != nil && n == writeAttempts && retryable(err) {
		return fmt.Errorf("%d attempts: %w", writeAttempts, err)
	}
	return err
}

// retryable reports a write error that writing again can cure: a timeout or an overloaded
// or unavailable node (not a refusal of the statement).
func retryable(err error) bool {
	var wt *gocql.RequestErrWriteTimeout
	var un *gocql.RequestErrUnavailable
	if errors.As(err, &wt) || errors.As(err, &un) || errors.Is(err, gocql.ErrTimeoutNoResponse) {
		return true
	}
	var re gocql.RequestError
	return errors.As(err, &re) && re.Code() == gocql.ErrCodeOverloaded
}

// writeBatches executes the batches, concurrency at a time; a batch of one statement is sent
// as that statement.
func writeBatches(ctx context.Context, s *gocql.Session, table string, batches [][]stmt, concurrency int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan []stmt)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for i := 0; i < concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range ch {
				err := writeBatch(ctx, s, b)
				if err != nil {
					once.Do(func() {
						first = fmt.Errorf("load %s: batch of %d rows (%s): %w", table, len(b), b[0].cql, err)
						cancel()
					})
				}
			}
		}()
	}
feed:
	for _, b := range batches {
		select {
		case ch <- b:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
