package tombstone_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/tombstone"
)

// A clusterCase writes one delete pattern into its own table, reads it the way the model
// assumes, and compares what Cassandra counted with what the model predicts.
type clusterCase struct {
	name  string
	ddl   string // CREATE TABLE body after the table name
	write func(t *testing.T, w *writer)
	// reads are done at these ages (time since the first write), in order.
	reads []clusterRead
	// in is the model's input, minus what the test measures (rows, write span, age).
	in tombstone.Input
	// rows is how many rows write writes (all in partition p = 1).
	rows int
	// tolerance is how far a scattered pattern may be from the model's expected value
	// (0: the model claims an exact count).
	tolerance float64
	// wantDisk is the sstablepartitions breakdown the model's OnDisk must add up to (the
	// column names of its CSV); nil skips the flush check for the case.
	wantDisk []string
}

type clusterRead struct {
	after time.Duration // age to wait for before reading
	cql   string        // %s is the table
}

// writer runs statements against the case's table, many at a time, and records when the
// first and the last write happened.
type writer struct {
	s           *gocql.Session
	table       string
	first, last time.Time
	mu          sync.Mutex
}

func (w *writer) exec(t *testing.T, stmt string, args ...any) {
	t.Helper()
	w.all(t, stmt, [][]any{args})
}

// all runs stmt once per argument list, 8 at a time.
func (w *writer) all(t *testing.T, stmt string, argLists [][]any) {
	t.Helper()
	stmt = fmt.Sprintf(stmt, w.table)
	var wg sync.WaitGroup
	errs := make(chan error, len(argLists))
	sem := make(chan struct{}, 8)
	for _, args := range argLists {
		wg.Add(1)
		sem <- struct{}{}
		go func(args []any) {
			defer wg.Done()
			defer func() { <-sem }()
			start := time.Now()
			if err := w.s.Query(stmt, args...).Exec(); err != nil {
				errs <- fmt.Errorf("%s %v: %w", stmt, args, err)
				return
			}
			w.mu.Lock()
			if w.first.IsZero() || start.Before(w.first) {
				w.first = start
			}
			if end := time.Now(); end.After(w.last) {
				w.last = end
			}
			w.mu.Unlock()
		}(args)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func rangeArgs(from, to int, f func(i int) []any) [][]any {
	var out [][]any
	for i := from; i < to; i++ {
		out = append(out, f(i))
	}
	return out
}

const day = 24 * time.Hour

func clusterCases() []clusterCase {
	tbl := func(regular, collections, clustering, gc int) tombstone.Table {
		return tombstone.Table{ClusteringColumns: clustering, RegularColumns: regular, CollectionColumns: collections, GCGraceSeconds: gc}
	}
	return []clusterCase{
		{
			// Every fourth row deleted, read in clustering order with a LIMIT: the model's
			// expected value for scattered deletes, within one gap of the real layout.
			name: "scattered_row_deletes_limit",
			ddl:  "(p int, c int, v text, PRIMARY KEY (p, c))",
			rows: 200,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v) VALUES (1, ?, 'x')", rangeArgs(0, 200, func(i int) []any { return []any{i} }))
				w.all(t, "DELETE FROM %s WHERE p = 1 AND c = ?", rangeArgs(0, 50, func(i int) []any { return []any{4 * i} }))
			},
			in: tombstone.Input{
				Table:   tbl(1, 0, 1, 864000),
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 50}},
				Read:    tombstone.Read{Limit: 40},
			},
			reads:     []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1 LIMIT 40"}},
			tolerance: 1,
			wantDisk:  []string{"rowTombstoneCount"},
		},
		{
			// A queue: the oldest 60 rows consumed and deleted, read oldest first. Every read
			// scans all 60 before its first live row: exact.
			name: "queue_head_deletes",
			ddl:  "(p int, c int, v text, PRIMARY KEY (p, c))",
			rows: 100,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v) VALUES (1, ?, 'job')", rangeArgs(0, 100, func(i int) []any { return []any{i} }))
				w.all(t, "DELETE FROM %s WHERE p = 1 AND c = ?", rangeArgs(0, 60, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:   tbl(1, 0, 1, 864000),
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 60, At: tombstone.Head}},
				Read:    tombstone.Read{Limit: 10, Order: tombstone.OldestFirst},
			},
			reads:    []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1 LIMIT 10"}},
			wantDisk: []string{"rowTombstoneCount"},
		},
		{
			// The same queue read without a LIMIT in pages of 10 rows: each page is a read of
			// its own; the first holds all 60 tombstones, the other three none (exact).
			name: "queue_pages",
			ddl:  "(p int, c int, v text, PRIMARY KEY (p, c))",
			rows: 100,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v) VALUES (1, ?, 'job')", rangeArgs(0, 100, func(i int) []any { return []any{i} }))
				w.all(t, "DELETE FROM %s WHERE p = 1 AND c = ?", rangeArgs(0, 60, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:   tbl(1, 0, 1, 864000),
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 60, At: tombstone.Head}},
				Read:    tombstone.Read{PageSize: 10, Order: tombstone.OldestFirst},
			},
			reads: []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1"}},
		},
		{
			// A newest-first time series whose oldest 60 rows were deleted: a read with a LIMIT
			// never reaches them (exact: 0).
			name: "time_series_tail_deletes",
			ddl:  "(p int, c int, v text, PRIMARY KEY (p, c)) WITH CLUSTERING ORDER BY (c DESC)",
			rows: 100,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v) VALUES (1, ?, 'x')", rangeArgs(0, 100, func(i int) []any { return []any{i} }))
				w.all(t, "DELETE FROM %s WHERE p = 1 AND c = ?", rangeArgs(0, 60, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:   tbl(1, 0, 1, 864000),
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 60, At: tombstone.Tail}},
				Read:    tombstone.Read{Limit: 20, Order: tombstone.NewestFirst},
			},
			reads:    []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1 LIMIT 20"}},
			wantDisk: []string{"rowTombstoneCount"},
		},
		{
			// Three separate range deletions of 10 rows: two markers each, all scanned by a
			// whole-partition read (exact: 6).
			name: "range_deletes",
			ddl:  "(p int, c int, v text, PRIMARY KEY (p, c))",
			rows: 100,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v) VALUES (1, ?, 'x')", rangeArgs(0, 100, func(i int) []any { return []any{i} }))
				w.all(t, "DELETE FROM %s WHERE p = 1 AND c >= ? AND c < ?", [][]any{{10, 20}, {40, 50}, {70, 80}})
			},
			in: tombstone.Input{
				Table:   tbl(1, 0, 1, 864000),
				Deletes: []tombstone.Delete{{Kind: tombstone.RangeDelete, PerDay: 3, Rows: 10}},
			},
			reads:    []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1"}},
			wantDisk: []string{"rangeTombstoneCount"},
		},
		{
			// One of three regular columns bound as null on every insert: one cell tombstone a
			// row, 20 for a LIMIT 20 read (exact).
			name: "null_writes",
			ddl:  "(p int, c int, a text, b text, d text, PRIMARY KEY (p, c))",
			rows: 50,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, a, b, d) VALUES (1, ?, 'x', 'y', ?)", rangeArgs(0, 50, func(i int) []any { return []any{i, nil} }))
			},
			in: tombstone.Input{
				Table:  tbl(3, 0, 1, 864000),
				Writes: tombstone.Writes{NullFraction: 1.0 / 3},
				Read:   tombstone.Read{Limit: 20},
			},
			reads:    []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1 LIMIT 20"}},
			wantDisk: []string{"cellTombstoneCount"},
		},
		{
			// Sets written whole by INSERT then overwritten with SET tags = {...}: a complex
			// deletion per row, which reads do not count (exact: 0) but sstables hold.
			name: "collection_overwrites",
			ddl:  "(p int, c int, v text, tags set<text>, PRIMARY KEY (p, c))",
			rows: 30,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v, tags) VALUES (1, ?, 'x', {'a', 'b'})", rangeArgs(0, 30, func(i int) []any { return []any{i} }))
				w.all(t, "UPDATE %s SET tags = {'c', 'd', 'e'} WHERE p = 1 AND c = ?", rangeArgs(0, 30, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:  tbl(1, 1, 1, 864000),
				Writes: tombstone.Writes{CollectionsWhole: true, ElementsPerCollection: 3},
			},
			reads:    []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1"}},
			wantDisk: []string{"complexTombstoneCount"},
		},
		{
			// Two elements removed from each row's set (tags = tags - {...}): two element
			// tombstones a row (exact: 40), plus the insert's complex deletion on disk.
			name: "element_removals",
			ddl:  "(p int, c int, v text, tags set<text>, PRIMARY KEY (p, c))",
			rows: 20,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, v, tags) VALUES (1, ?, 'x', {'a', 'b', 'c'})", rangeArgs(0, 20, func(i int) []any { return []any{i} }))
				w.all(t, "UPDATE %s SET tags = tags - {'a', 'b'} WHERE p = 1 AND c = ?", rangeArgs(0, 20, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:   tbl(1, 1, 1, 864000),
				Writes:  tombstone.Writes{CollectionsWhole: true, ElementsPerCollection: 1},
				Deletes: []tombstone.Delete{{Kind: tombstone.ElementDelete, PerDay: 20, Cells: 2}},
			},
			reads:    []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1"}},
			wantDisk: []string{"cellTombstoneCount", "complexTombstoneCount"},
		},
		{
			// A table without clustering columns: ten overwrites of one row, each binding one
			// of two columns as null and writing the set whole. A newer write shadows an older
			// tombstone of the same cell, so one null cell remains (exact: 1), and one complex
			// deletion on disk.
			name: "single_row_overwrites",
			ddl:  "(p int PRIMARY KEY, a text, b text, tags set<text>)",
			rows: 10,
			write: func(t *testing.T, w *writer) {
				for i := 0; i < 10; i++ {
					w.exec(t, "INSERT INTO %s (p, a, b, tags) VALUES (1, ?, ?, {'x', 'y'})", fmt.Sprint(i), nil)
				}
			},
			in: tombstone.Input{
				Table:  tbl(2, 1, 0, 864000),
				Writes: tombstone.Writes{NullFraction: 0.5, CollectionsWhole: true, ElementsPerCollection: 2},
			},
			reads:    []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1"}},
			wantDisk: []string{"cellTombstoneCount", "complexTombstoneCount"},
		},
		{
			// 20 rows with a 2 s TTL on a table that keeps tombstones for an hour: once they
			// expire, each of their two cells counts (exact: 40).
			name: "expired_ttl_cells",
			ddl:  "(p int, c int, a text, b text, PRIMARY KEY (p, c)) WITH gc_grace_seconds = 3600",
			rows: 20,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, a, b) VALUES (1, ?, 'x', 'y') USING TTL 2", rangeArgs(0, 20, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:  tbl(2, 0, 1, 3600),
				Writes: tombstone.Writes{TTLSeconds: 2},
			},
			reads:    []clusterRead{{after: 3500 * time.Millisecond, cql: "SELECT * FROM %s WHERE p = 1"}},
			wantDisk: []string{"rowTtlExpired"},
		},
		{
			// TTL 3 s, gc_grace_seconds 6: expired cells count from 3 s to 6 s after the write
			// (dated from the write); from 6 s to 9 s the cells are purgeable but the expired
			// row marker is not (dated from the expiry), so each row counts once; after 9 s
			// nothing does. Reads at 4.5 s and 7.5 s: exact 2 a row, then 1 a row.
			name: "expiry_and_gc_grace",
			ddl:  "(p int, c int, a text, b text, PRIMARY KEY (p, c)) WITH gc_grace_seconds = 6",
			rows: 15,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, a, b) VALUES (1, ?, 'x', 'y') USING TTL 3", rangeArgs(0, 15, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:  tbl(2, 0, 1, 6),
				Writes: tombstone.Writes{TTLSeconds: 3},
			},
			reads: []clusterRead{
				{after: 4500 * time.Millisecond, cql: "SELECT * FROM %s WHERE p = 1"},
				{after: 7500 * time.Millisecond, cql: "SELECT * FROM %s WHERE p = 1"},
			},
		},
		{
			// TTL 4 s over gc_grace_seconds 2: an expired cell is purgeable at once (dated from
			// its write, 4 s ago), but the row marker is dated from the expiry and counts until
			// gc_grace after it. Read at 5 s: exact 1 a row.
			name: "ttl_over_gc_grace",
			ddl:  "(p int, c int, a text, b text, PRIMARY KEY (p, c)) WITH gc_grace_seconds = 2",
			rows: 12,
			write: func(t *testing.T, w *writer) {
				w.all(t, "INSERT INTO %s (p, c, a, b) VALUES (1, ?, 'x', 'y') USING TTL 4", rangeArgs(0, 12, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:  tbl(2, 0, 1, 2),
				Writes: tombstone.Writes{TTLSeconds: 4},
			},
			reads: []clusterRead{{after: 5 * time.Second, cql: "SELECT * FROM %s WHERE p = 1"}},
		},
		{
			// Rows written by UPDATE ... USING TTL 2 that set one of four regular columns (the
			// other three unset: they write no cell). Read at 3.5 s: each row has one expired
			// cell and no row marker, so one tombstone a row (exact: 16), not four. Counting
			// unset columns as live cells predicted 64.
			name: "update_ttl_unset_columns",
			ddl:  "(p int, c int, a text, b text, d text, e text, PRIMARY KEY (p, c)) WITH gc_grace_seconds = 3600",
			rows: 16,
			write: func(t *testing.T, w *writer) {
				w.all(t, "UPDATE %s USING TTL 2 SET a = 'x' WHERE p = 1 AND c = ?", rangeArgs(0, 16, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:  tbl(4, 0, 1, 3600),
				Writes: tombstone.Writes{TTLSeconds: 2, ByUpdate: true, UnsetFraction: 0.75},
			},
			reads:    []clusterRead{{after: 3500 * time.Millisecond, cql: "SELECT * FROM %s WHERE p = 1"}},
			wantDisk: []string{"cellTtlExpired"},
		},
		{
			// 1001 row tombstones: over tombstone_warn_threshold (1000), so Cassandra warns.
			name: "over_warn_threshold",
			ddl:  "(p int, c int, v text, PRIMARY KEY (p, c))",
			rows: 0,
			write: func(t *testing.T, w *writer) {
				w.all(t, "DELETE FROM %s WHERE p = 1 AND c = ?", rangeArgs(0, 1001, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:   tbl(1, 0, 1, 864000),
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 1001}},
			},
			reads: []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1"}},
		},
		{
			// 1000 row tombstones: at the threshold, not over it: no warning.
			name: "at_warn_threshold",
			ddl:  "(p int, c int, v text, PRIMARY KEY (p, c))",
			rows: 0,
			write: func(t *testing.T, w *writer) {
				w.all(t, "DELETE FROM %s WHERE p = 1 AND c = ?", rangeArgs(0, 1000, func(i int) []any { return []any{i} }))
			},
			in: tombstone.Input{
				Table:   tbl(1, 0, 1, 864000),
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 1000}},
			},
			reads: []clusterRead{{cql: "SELECT * FROM %s WHERE p = 1"}},
		},
	}
}

// modelInput turns a case's per-partition counts into rates over the measured write span:
// every count in a case is "over the whole write", so a rate per day of n means n rows
// (or deletes) spread over the span the writes took.
func modelInput(c clusterCase, span time.Duration) tombstone.Input {
	in := c.in
	if span <= 0 {
		span = time.Millisecond
	}
	perSpan := day.Seconds() / span.Seconds()
	in.Writes.Bucket = span
	in.Writes.RowsPerDay = float64(c.rows) * perSpan
	in.Deletes = append([]tombstone.Delete(nil), c.in.Deletes...)
	for i := range in.Deletes {
		in.Deletes[i].PerDay *= perSpan
	}
	return in
}

// TestModelAgainstCassandra is the evidence for the model: each delete pattern is written
// to a real Cassandra 5.0 node and read as the model assumes; the tombstones Cassandra
// counted for that read (the trace's "Read N live rows and M tombstone cells", the same
// counter tombstone_warn_threshold is checked against) must equal the prediction, or be
// within one gap for scattered deletes. system_views.tombstones_per_read must agree after
// Cassandra's histogram rounding, the client must get Cassandra's warning exactly when the
// model is over 1000, and after a flush sstablepartitions must count on disk what the model
// says is on disk.
func TestModelAgainstCassandra(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	single := len(cassandratest.Hosts(t)) == 1
	cases := clusterCases()
	type outcome struct {
		table string
		want  float64 // model's on-disk tombstones at flush time
		cols  []string
	}
	var mu sync.Mutex
	var disk []outcome
	t.Run("reads", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				cassandratest.DDL(t, s, ks, fmt.Sprintf("CREATE TABLE %s.%s %s", ks, c.name, c.ddl))
				w := &writer{s: s, table: ks + "." + c.name}
				c.write(t, w)
				in := modelInput(c, w.last.Sub(w.first))
				maxModel := 0.0
				for _, r := range c.reads {
					if d := time.Until(w.first.Add(r.after)); d > 0 {
						time.Sleep(d)
					}
					got := measureRead(t, s, fmt.Sprintf(r.cql, ks+"."+c.name), c.in.Read.PageSize)
					age := got.done.Sub(w.first)
					snap, err := tombstone.At(in, age)
					if err != nil {
						t.Fatal(err)
					}
					want := snap.PerRead
					maxModel = math.Max(maxModel, want)
					tol := c.tolerance + 1e-6
					if math.Abs(float64(got.tombstones)-want) > tol {
						t.Errorf("at %v: Cassandra counted %d tombstones (%d live rows), model %.2f (%v, tolerance %.0f)",
							age.Round(time.Millisecond), got.tombstones, got.live, want, snap.Sources, c.tolerance)
					}
					if math.Abs(float64(got.live)-snap.ReadRows) > tol {
						t.Errorf("at %v: read returned %d live rows, model %.2f", age.Round(time.Millisecond), got.live, snap.ReadRows)
					}
					if got.pages != snap.Pages {
						t.Errorf("at %v: the read took %d pages, model %d", age.Round(time.Millisecond), got.pages, snap.Pages)
					}
					over := want > float64(tombstone.DefaultThresholds.Warn)+1e-6
					warned := false
					for _, msg := range got.warnings {
						if strings.Contains(msg, "tombstone") {
							warned = true
						}
					}
					if over != warned {
						t.Errorf("model %.0f tombstones (over 1000: %v), Cassandra's client warning: %v %q", want, over, warned, got.warnings)
					}
					t.Logf("at %v: Cassandra %d tombstones (worst of %d pages), %d live rows; model %.2f, %.2f, %d pages; warnings %d",
						age.Round(time.Millisecond), got.tombstones, got.pages, got.live, want, snap.ReadRows, snap.Pages, len(got.warnings))
				}
				if single {
					var count int64
					var max float64
					if err := s.Query("SELECT count, max FROM system_views.tombstones_per_read WHERE keyspace_name = ? AND table_name = ?",
						ks, c.name).Scan(&count, &max); err != nil {
						t.Fatalf("read system_views.tombstones_per_read: %v", err)
					}
					// The measured reads, plus the trace-less warm-up none: count is at least ours.
					if want := histogramBucket(maxModel); int64(max) != want {
						t.Errorf("system_views.tombstones_per_read max = %v, model max %.2f rounds to Cassandra's bucket %d", max, maxModel, want)
					}
				}
				if c.wantDisk != nil {
					snap, err := tombstone.At(in, time.Since(w.first))
					if err != nil {
						t.Fatal(err)
					}
					mu.Lock()
					disk = append(disk, outcome{c.name, snap.OnDisk, c.wantDisk})
					mu.Unlock()
				}
			})
		}
	})
	if t.Failed() || len(disk) == 0 {
		return
	}
	t.Run("sstablepartitions", func(t *testing.T) {
		stats := flushAndCount(t, s, ks)
		for _, d := range disk {
			st, ok := stats[d.table]
			if !ok {
				t.Errorf("%s: sstablepartitions listed no partition", d.table)
				continue
			}
			if float64(st["tombstoneCount"]) != math.Round(d.want) {
				t.Errorf("%s: sstablepartitions tombstoneCount %d %v, model on disk %.2f", d.table, st["tombstoneCount"], st, d.want)
			}
			sum := 0
			for _, col := range d.cols {
				sum += st[col]
			}
			if sum != st["tombstoneCount"] {
				t.Errorf("%s: tombstones are not all of the expected kinds %v: %v", d.table, d.cols, st)
			}
			t.Logf("%s: sstablepartitions %v; model %.0f", d.table, st, d.want)
		}
	})
}

type readResult struct {
	live, tombstones int // tombstones: the worst page's, what the thresholds see
	pages            int
	warnings         []string
	done             time.Time // when the client had the last page: the read's time for the model
}

// traceIDs records the tracing session of every request a traced query sends.
type traceIDs struct {
	mu  sync.Mutex
	ids [][]byte
}

func (tr *traceIDs) Trace(id []byte) {
	tr.mu.Lock()
	tr.ids = append(tr.ids, append([]byte(nil), id...))
	tr.mu.Unlock()
}

var readLine = regexp.MustCompile(`Read (\d+) live rows and (\d+) tombstone cells`)

// measureRead runs stmt traced, page by page, and returns what the replica's ReadCommand
// counted for it: the live rows of all pages and the tombstones of the worst page (each
// page is a separate ReadCommand, and the thresholds apply per page).
func measureRead(t *testing.T, s *gocql.Session, stmt string, pageSize int) readResult {
	t.Helper()
	res, _ := tracedRead(t, s, stmt, pageSize)
	return res
}

// tracedRead is measureRead that also returns every trace session the driver was given.
// Not every one is a page: the driver traces a PREPARE it sends for the query, and an
// EXECUTE the node answers with UNPREPARED (its prepared-statement cache evicted the
// statement) has a session of its own that read nothing. Only the sessions of executed
// queries count as pages, and each of them must log its read.
func tracedRead(t *testing.T, s *gocql.Session, stmt string, pageSize int) (readResult, [][]byte) {
	t.Helper()
	if pageSize == 0 {
		pageSize = tombstone.DefaultPageSize
	}
	tr := &traceIDs{}
	iter := s.Query(stmt).PageSize(pageSize).Trace(tr).Iter()
	rows := 0
	for iter.MapScan(map[string]any{}) {
		rows++
	}
	res := readResult{warnings: iter.Warnings()}
	if err := iter.Close(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	res.done = time.Now()
	tr.mu.Lock()
	ids := tr.ids
	tr.mu.Unlock()
	if len(ids) == 0 {
		t.Fatalf("%s: no trace session", stmt)
	}
	for _, id := range ids {
		live, ts, read := traceCounts(t, s, stmt, id)
		if !read {
			continue
		}
		res.pages++
		res.live += live
		res.tombstones = max(res.tombstones, ts)
	}
	if res.pages == 0 {
		t.Fatalf("%s: none of %d trace sessions executed the query", stmt, len(ids))
	}
	if res.live != rows {
		t.Errorf("%s: traces say %d live rows, the client got %d", stmt, res.live, rows)
	}
	return res, ids
}

// traceCounts reads "Read N live rows and M tombstone cells" from one trace session, and
// says whether the session executed a query at all (see tracedRead).
func traceCounts(t *testing.T, s *gocql.Session, stmt string, id []byte) (live, tombstones int, read bool) {
	t.Helper()
	sid, err := gocql.UUIDFromBytes(id)
	if err != nil {
		t.Fatal(err)
	}
	// The node writes trace events in the background, after it has answered the read, one
	// at a time and in order: the session's duration, written when it stops, comes after
	// its events. On a busy node that can take longer than 20 s; the wait guards against a
	// trace that never comes, not against a slow node: two minutes, as a test session
	// waits for a request.
	const traceWait = 2 * time.Minute
	deadline := time.Now().Add(traceWait)
	var request string
	for {
		var dur int
		var req *string
		err := s.Query("SELECT duration, request FROM system_traces.sessions WHERE session_id = ?", sid).Scan(&dur, &req)
		if err != nil && err != gocql.ErrNotFound {
			t.Fatalf("read trace session: %v", err)
		}
		if err == nil && dur > 0 {
			if req != nil {
				request = *req
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: trace session %v not complete after %v", stmt, sid, traceWait)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// "Execute CQL3 query" or "Execute CQL3 prepared query"; a PREPARE is "Preparing CQL3
	// query", and an EXECUTE refused as UNPREPARED stops before naming its request.
	if !strings.HasPrefix(request, "Execute CQL3") {
		return 0, 0, false
	}
	for {
		var activity string
		it := s.Query("SELECT activity FROM system_traces.events WHERE session_id = ?", sid).Iter()
		for it.Scan(&activity) {
			if m := readLine.FindStringSubmatch(activity); m != nil {
				live, _ = strconv.Atoi(m[1])
				tombstones, _ = strconv.Atoi(m[2])
				_ = it.Close()
				return live, tombstones, true
			}
		}
		if err := it.Close(); err != nil {
			t.Fatalf("read trace events: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the trace of an executed query has no \"Read N live rows and M tombstone cells\" event after %v", stmt, traceWait)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTracedReadSkipsSessionsThatReadNothing makes the node forget a prepared statement
// the driver still holds (a column added to its table invalidates it, as a full
// prepared-statement cache evicts it), so the traced read's first EXECUTE is answered
// UNPREPARED and the driver prepares and executes again, tracing all three. The read must
// still count its pages and rows from the sessions that executed it, and not wait for a
// read event the refused EXECUTE never logs.
func TestTracedReadSkipsSessionsThatReadNothing(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks, fmt.Sprintf("CREATE TABLE %s.forgotten (p int, c int, v text, PRIMARY KEY (p, c))", ks))
	w := &writer{s: s, table: ks + ".forgotten"}
	w.all(t, "INSERT INTO %s (p, c, v) VALUES (1, ?, 'x')", rangeArgs(0, 10, func(i int) []any { return []any{i} }))
	stmt := fmt.Sprintf("SELECT * FROM %s.forgotten WHERE p = 1", ks)
	if err := s.Query(stmt).Exec(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	cassandratest.DDL(t, s, ks, fmt.Sprintf("ALTER TABLE %s.forgotten ADD extra int", ks))
	got, ids := tracedRead(t, s, stmt, 4)
	if len(ids) <= got.pages {
		t.Fatalf("the driver was given %d trace sessions for %d pages: the node did not refuse the forgotten statement, so this test proves nothing", len(ids), got.pages)
	}
	if got.pages != 3 || got.live != 10 || got.tombstones != 0 {
		t.Errorf("read of 10 rows in pages of 4: %d pages, %d live rows, %d tombstones; want 3, 10, 0", got.pages, got.live, got.tombstones)
	}
	t.Logf("%d trace sessions, %d of them pages", len(ids), got.pages)
}

// histogramBucket is the value Cassandra's decaying histogram reports for v: the upper bound
// of the bucket holding it. Bounds start at 1 and grow by 20% (rounded, at least by one):
// 1, 2, ..., 8, 10, 12, 14, 17, 20, 24, ..., 924, 1109, ...
func histogramBucket(v float64) int64 {
	n := int64(math.Round(v))
	b := int64(1)
	for b < n {
		next := int64(math.Round(float64(b) * 1.2))
		if next == b {
			next++
		}
		b = next
	}
	return b
}

func TestHistogramBucket(t *testing.T) {
	for v, want := range map[float64]int64{0: 1, 1: 1, 5: 5, 9: 10, 20: 20, 1000: 1109, 1001: 1109, 924: 924} {
		if got := histogramBucket(v); got != want {
			t.Errorf("histogramBucket(%v) = %d, want %d", v, got, want)
		}
	}
}

// flushAndCount flushes the keyspace on the local node and sums sstablepartitions' counts
// per table (and per "table/key" for each partition key). It reads the node's data files, so
// it follows cassandratest.LocalNode's policy: on a remote cluster it skips saying why.
func flushAndCount(t *testing.T, s *gocql.Session, ks string) map[string]map[string]int {
	t.Helper()
	node := cassandratest.LocalNode(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := node.Run(ctx, "nodetool", "flush", ks); err != nil {
		t.Fatalf("nodetool flush %s: %v\n%s", ks, err, out)
	}
	dir := node.KeyspaceDir(t, s, ks)
	out, err := node.Run(ctx, "sstablepartitions", "-m", "-w", "0", "-r", dir)
	if err != nil {
		t.Fatalf("sstablepartitions %s: %v", dir, err)
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("parse sstablepartitions CSV: %v\n%s", err, out)
	}
	stats := map[string]map[string]int{}
	var header []string
	for _, rec := range recs {
		if len(rec) > 0 && rec[0] == "key" {
			header = rec
			continue
		}
		if header == nil || len(rec) != len(header) {
			continue
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = rec[i]
		}
		for _, name := range []string{row["table"], row["table"] + "/" + row["key"]} {
			if stats[name] == nil {
				stats[name] = map[string]int{}
			}
			if row["live"] == "false" {
				stats[name]["deadPartitions"]++
			}
			for _, col := range []string{"tombstoneCount", "rowTombstoneCount", "rangeTombstoneCount", "complexTombstoneCount",
				"cellTombstoneCount", "rowTtlExpired", "cellTtlExpired", "rowCount", "cellCount"} {
				n, err := strconv.Atoi(row[col])
				if err != nil {
					t.Fatalf("sstablepartitions column %s = %q: %v", col, row[col], err)
				}
				stats[name][col] += n
			}
		}
	}
	if len(stats) == 0 {
		t.Fatalf("sstablepartitions printed no partition for %s:\n%s", dir, out)
	}
	return stats
}

// TestStatementEffectsOnCassandra runs each classified statement once against a partition
// of its own, flushes, and checks that sstablepartitions finds exactly the tombstones the
// classification names: a row tombstone for a row deletion, two range markers for a range
// deletion, cell tombstones for nulls and removed elements, complex deletions for whole
// collections, and a partition deletion that is not counted as a tombstone at all.
func TestStatementEffectsOnCassandra(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks, fmt.Sprintf("CREATE TABLE %s.inbox %s", ks, inboxDDL))
	// In each statement %[1]s is the table and %[2]d the case's own partition key.
	json := `'{"user_id": %[2]d, "msg_id": 1, "subject": "x"}'`
	cases := []struct {
		name     string
		stmt     string
		effects  []tombstone.EffectKind
		disk     map[string]int // sstablepartitions counters; every other tombstone counter is 0
		deadPart bool           // the partition carries a partition deletion
	}{
		{"literal null", "INSERT INTO %[1]s (user_id, msg_id, subject, body) VALUES (%[2]d, 1, 'hi', NULL)",
			[]tombstone.EffectKind{tombstone.NullWrite}, map[string]int{"cellTombstoneCount": 1}, false},
		{"collection insert", "INSERT INTO %[1]s (user_id, msg_id, labels) VALUES (%[2]d, 1, {'a'})",
			[]tombstone.EffectKind{tombstone.CollectionWrite}, map[string]int{"complexTombstoneCount": 1}, false},
		{"element removal", "UPDATE %[1]s SET labels = labels - {'a', 'b'} WHERE user_id = %[2]d AND msg_id = 1",
			[]tombstone.EffectKind{tombstone.ElementRemoval}, map[string]int{"cellTombstoneCount": 2}, false},
		{"map element null", "UPDATE %[1]s SET flags['seen'] = null WHERE user_id = %[2]d AND msg_id = 1",
			[]tombstone.EffectKind{tombstone.ElementRemoval}, map[string]int{"cellTombstoneCount": 1}, false},
		{"partition delete", "DELETE FROM %[1]s WHERE user_id = %[2]d",
			[]tombstone.EffectKind{tombstone.PartitionDeletion}, map[string]int{}, true},
		{"row delete", "DELETE FROM %[1]s WHERE user_id = %[2]d AND msg_id = 1",
			[]tombstone.EffectKind{tombstone.RowDeletion}, map[string]int{"rowTombstoneCount": 1}, false},
		{"range delete", "DELETE FROM %[1]s WHERE user_id = %[2]d AND msg_id > 5",
			[]tombstone.EffectKind{tombstone.RangeDeletion}, map[string]int{"rangeTombstoneCount": 2}, false},
		{"column delete", "DELETE body, labels FROM %[1]s WHERE user_id = %[2]d AND msg_id = 1",
			[]tombstone.EffectKind{tombstone.CellDeletion, tombstone.CollectionDeletion}, map[string]int{"cellTombstoneCount": 1, "complexTombstoneCount": 1}, false},
		{"set null", "UPDATE %[1]s SET body = null, labels = null WHERE user_id = %[2]d AND msg_id = 1",
			[]tombstone.EffectKind{tombstone.NullWrite, tombstone.CollectionDeletion}, map[string]int{"cellTombstoneCount": 1, "complexTombstoneCount": 1}, false},
		{"json nulls", "INSERT INTO %[1]s JSON " + json,
			[]tombstone.EffectKind{tombstone.JSONNulls, tombstone.CollectionDeletion}, map[string]int{"cellTombstoneCount": 1, "complexTombstoneCount": 2}, false},
		{"json unset", "INSERT INTO %[1]s JSON " + json + " DEFAULT UNSET",
			nil, map[string]int{}, false},
		{"batch", "BEGIN BATCH INSERT INTO %[1]s (user_id, msg_id, body) VALUES (%[2]d, 1, NULL); DELETE FROM %[1]s WHERE user_id = %[2]d AND msg_id = 2; APPLY BATCH",
			[]tombstone.EffectKind{tombstone.NullWrite, tombstone.RowDeletion}, map[string]int{"cellTombstoneCount": 1, "rowTombstoneCount": 1}, false},
	}
	schema := testSchemaIn(ks)
	for i, c := range cases {
		key := i + 1
		parsed, err := cqlParse(fmt.Sprintf(c.stmt, "inbox", key))
		if err != nil {
			t.Fatalf("%s: parse: %v", c.name, err)
		}
		var got []tombstone.EffectKind
		for _, e := range tombstone.Effects(schema, []cqlStatement{useKeyspace(ks), parsed}) {
			got = append(got, e.Kind)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.effects) {
			t.Errorf("%s: effects %v, want %v", c.name, got, c.effects)
		}
		if err := s.Query(fmt.Sprintf(c.stmt, ks+".inbox", key)).Exec(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	stats := flushAndCount(t, s, ks)
	for i, c := range cases {
		st := stats[fmt.Sprintf("inbox/%d", i+1)]
		if st == nil {
			t.Errorf("%s: sstablepartitions listed no partition %d", c.name, i+1)
			continue
		}
		for _, col := range []string{"rowTombstoneCount", "rangeTombstoneCount", "complexTombstoneCount", "cellTombstoneCount", "rowTtlExpired", "cellTtlExpired"} {
			if st[col] != c.disk[col] {
				t.Errorf("%s: sstablepartitions %s = %d, want %d (%v)", c.name, col, st[col], c.disk[col], st)
			}
		}
		if dead := st["deadPartitions"] > 0; dead != c.deadPart {
			t.Errorf("%s: partition deletion on disk: %v, want %v", c.name, dead, c.deadPart)
		}
	}
}

type cqlStatement = cql.Statement

func cqlParse(stmt string) (cql.Statement, error) { return cql.Parse("test.cql", []byte(stmt)) }

func useKeyspace(ks string) cql.Statement {
	return &cql.Use{Keyspace: cql.Ident{Name: ks}}
}
