package disk_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/figures"
	"github.com/cqlsize/cqlsize/sizing/disk"
)

// The bounds are internal/figures' (bounds.json): per compressor for compressed Data.db
// ("disk-data-lz4" and the others), and "disk-live" and "disk-live-fifth" for every table's
// Space used (live), each the measured worst over the recorded runs plus a stated margin
// (the rows' timestamps and TTLs differ from run to run, and so does what the compressors
// find to match). Beside them, every LZ4 chunk (fast and high) must be the node's byte for
// byte.

// nodeShape is a table design and the rows to write into it.
type nodeShape struct {
	name    string
	columns string // CREATE TABLE body
	insert  string // INSERT with the table name as %s
	ttl     bool
	rows    func(r *rand.Rand, emit func(args ...any))
}

var vocabulary = strings.Fields(`the quick brown fox jumps over lazy dog order shipped payment pending
	user account session login logout item cart price total customer address city street`)

func sentence(r *rand.Rand, words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = vocabulary[r.Intn(len(vocabulary))]
	}
	return strings.Join(w, " ")
}

func randomText(r *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.Intn(len(alphabet))]
	}
	return string(b)
}

var nodeShapes = []nodeShape{
	{
		name:    "random_text",
		columns: "k int PRIMARY KEY, v text, n bigint",
		insert:  "INSERT INTO %s (k, v, n) VALUES (?, ?, ?)",
		rows: func(r *rand.Rand, emit func(...any)) {
			for i := 0; i < 2000; i++ {
				emit(i, randomText(r, 80+r.Intn(40)), r.Int63())
			}
		},
	},
	{
		name:    "repetitive_text",
		columns: "k text PRIMARY KEY, v text, n bigint",
		insert:  "INSERT INTO %s (k, v, n) VALUES (?, ?, ?)",
		rows: func(r *rand.Rand, emit func(...any)) {
			for i := 0; i < 2000; i++ {
				emit(fmt.Sprintf("user-%06d", i), sentence(r, 10+r.Intn(20)), int64(i))
			}
		},
	},
	{
		name:    "wide_numbers",
		columns: "k int, c int, a int, b double, t timestamp, n bigint, PRIMARY KEY (k, c)",
		insert:  "INSERT INTO %s (k, c, a, b, t, n) VALUES (?, ?, ?, ?, ?, ?)",
		rows: func(r *rand.Rand, emit func(...any)) {
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for k := 0; k < 5; k++ {
				for c := 0; c < 1800; c++ {
					emit(k, c, r.Intn(1000), float64(r.Intn(100000))/100, base.Add(time.Duration(c)*time.Minute), int64(k*1000+c))
				}
			}
		},
	},
	{
		name:    "collections",
		columns: "k int PRIMARY KEY, tags set<text>, attrs map<text, int>, l list<int>, n bigint",
		insert:  "INSERT INTO %s (k, tags, attrs, l, n) VALUES (?, ?, ?, ?, ?)",
		rows: func(r *rand.Rand, emit func(...any)) {
			for i := 0; i < 1500; i++ {
				var tags []string
				for j := r.Intn(5); j > 0; j-- {
					tags = append(tags, vocabulary[r.Intn(len(vocabulary))])
				}
				attrs := map[string]int{}
				for j := 1 + r.Intn(4); j > 0; j-- {
					attrs[vocabulary[r.Intn(len(vocabulary))]] = r.Intn(100)
				}
				var l []int
				for j := r.Intn(7); j > 0; j-- {
					l = append(l, r.Intn(1<<20))
				}
				var tagsArg, lArg any = tags, l
				if len(tags) == 0 {
					tagsArg = nil
				}
				if len(l) == 0 {
					lArg = nil
				}
				emit(i, tagsArg, attrs, lArg, int64(i))
			}
		},
	},
	{
		name:    "sparse_ttl",
		columns: "k int, c int, v1 text, v2 text, n bigint, PRIMARY KEY (k, c)",
		insert:  "INSERT INTO %s (k, c, v1, v2, n) VALUES (?, ?, ?, ?, ?) USING TTL 86400",
		ttl:     true,
		rows: func(r *rand.Rand, emit func(...any)) {
			for k := 0; k < 100; k++ {
				for c := 0; c < 20; c++ {
					var v2 any
					if r.Intn(2) == 0 {
						v2 = sentence(r, 3)
					}
					emit(k, c, fmt.Sprintf("status-%d", r.Intn(8)), v2, int64(k*100+c))
				}
			}
		},
	},
}

var nodeCompressors = []struct{ name, options string }{
	{"lz4", "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}"},
	{"lz4high", "{'class': 'LZ4Compressor', 'lz4_compressor_type': 'high'}"},
	{"zstd", "{'class': 'ZstdCompressor'}"},
	{"snappy", "{'class': 'SnappyCompressor'}"},
	{"deflate", "{'class': 'DeflateCompressor'}"},
	{"none", "{'enabled': 'false'}"},
}

// nodeResult is one table's prediction beside what the node wrote.
type nodeResult struct {
	table, shape, compressor string
	pred                     *disk.Prediction
	uncompressed             int64         // sum of sstablepartitions sizes
	data                     int64         // Data.db bytes
	files                    int64         // every component file
	live                     int64         // tablestats Space used (live)
	statistics               int64         // Statistics.db bytes
	index, filter            int64         // Index.db, Filter.db bytes
	fromPart                 disk.Estimate // scaled from the first fifth of the partitions, as a token-range walk samples
	chunks                   chunkStats    // every compressed chunk beside the model's
}

// TestPredictMatchesNode writes each data shape into a table per compressor, flushes and
// compacts them, and compares Predict (fed the rows read back through the driver, in the
// node's order) with the node's Data.db, its component files and tablestats' "Space used
// (live)", and every compressed chunk of Data.db with the chunk compressed again as Predict
// compresses it (compareChunks). Run with -v for the tables.
func TestPredictMatchesNode(t *testing.T) {
	if testing.Short() {
		t.Skip("writes data into Cassandra; skipped with -short")
	}
	s, ks := cassandratest.Keyspace(t)
	files := cassandratest.LocalNode(t, s)
	started := time.Now()
	maxLiveError, maxFifthError := figures.Bound(t, "disk-live"), figures.Bound(t, "disk-live-fifth")
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()

	schema := cql.NewSchema()
	if err := schema.ApplyFile("keyspace.cql", []byte("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};")); err != nil {
		t.Fatal(err)
	}
	type tableRef struct {
		name   string
		shape  *nodeShape
		compr  string
		schema *cql.Table
	}
	var tables []tableRef
	for i := range nodeShapes {
		sh := &nodeShapes[i]
		for _, c := range nodeCompressors {
			name := sh.name + "_" + c.name
			ddl := fmt.Sprintf("CREATE TABLE %s.%s (%s) WITH compression = %s", ks, name, sh.columns, c.options)
			cassandratest.DDL(t, s, ks, strings.Replace(ddl, "CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1))
			if err := schema.ApplyFile(name+".cql", []byte(ddl+";")); err != nil {
				t.Fatalf("parse %s: %v", ddl, err)
			}
			tables = append(tables, tableRef{name: name, shape: sh, compr: c.name, schema: schema.Table(ks, name)})
		}
	}
	// Write each shape's rows into each of its tables, 16 at a time.
	for i := range nodeShapes {
		sh := &nodeShapes[i]
		var args [][]any
		sh.rows(rand.New(rand.NewSource(int64(i+1))), func(a ...any) { args = append(args, a) })
		for _, c := range nodeCompressors {
			if err := writeAll(ctx, s, fmt.Sprintf(sh.insert, ks+"."+sh.name+"_"+c.name), args); err != nil {
				t.Fatal(err)
			}
		}
	}
	// No background compaction may start once the major one is done: the files are read while
	// the node runs, and a compaction started behind the test rewrites what it reads.
	for _, cmd := range []string{"disableautocompaction", "flush", "compact"} {
		if _, err := nodetool(ctx, files, cmd, ks); err != nil {
			t.Fatal(err)
		}
	}
	if err := awaitSettled(ctx, files, ks); err != nil {
		t.Fatal(err)
	}

	var results []nodeResult
	var dirs []string
	for _, tr := range tables {
		var opts map[string]string
		if err := s.Query(`SELECT compression FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, ks, tr.name).
			WithContext(ctx).Scan(&opts); err != nil {
			t.Fatal(err)
		}
		comp, err := disk.CompressionFromOptions(opts)
		if err != nil {
			t.Fatalf("%s: %v", tr.name, err)
		}
		sample, err := readBack(ctx, s, tr.schema)
		if err != nil {
			t.Fatalf("%s: %v", tr.name, err)
		}
		pred, err := disk.Predict(tr.schema, sample, comp)
		if err != nil {
			t.Fatalf("%s: %v", tr.name, err)
		}
		part, err := disk.Predict(tr.schema, sample[:max(1, len(sample)/5)], comp)
		if err != nil {
			t.Fatalf("%s: %v", tr.name, err)
		}
		dir := files.TableDir(t, s, ks, tr.name)
		dirs = append(dirs, dir)
		r := nodeResult{table: tr.name, shape: tr.shape.name, compressor: tr.compr, pred: pred, fromPart: part.Scale(float64(len(sample)))}
		if r.data, r.files, r.statistics, r.index, r.filter, err = componentSizes(dir); err != nil {
			t.Fatal(err)
		}
		if comp.Enabled {
			if r.chunks, err = compareChunks(dir, comp); err != nil {
				t.Errorf("%s: %v", tr.name, err)
			}
		}
		results = append(results, r)
	}
	// One JVM for every table: each start of a Cassandra tool costs seconds.
	unc, err := partitionBytes(ctx, files, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	live, err := spaceUsedLive(ctx, files, ks)
	if err != nil {
		t.Fatal(err)
	}
	for i := range results {
		results[i].uncompressed = unc[results[i].table]
		results[i].live = live[results[i].table]
	}
	t.Logf("\n%s", nodeTable(results))
	checkChunks(t, results)
	held := map[string]float64{}
	for _, r := range results {
		data := rel(r.pred.Compressed, float64(r.data))
		live := rel(r.pred.Components.Total(), float64(r.live))
		fifth := rel(r.fromPart.Total, float64(r.live))
		held["disk-data/"+r.compressor+"/"+r.shape] = data
		held["disk-live/"+r.compressor+"/"+r.shape] = live
		held["disk-live-fifth/"+r.compressor+"/"+r.shape] = fifth
		if r.uncompressed != int64(r.pred.Uncompressed) {
			t.Errorf("%s: uncompressed Data.db %d bytes, predicted %.0f (%+.2f%%)", r.table, r.uncompressed, r.pred.Uncompressed, pct(r.pred.Uncompressed, float64(r.uncompressed)))
		}
		if bound := figures.Bound(t, "disk-data-"+r.compressor); math.Abs(data) > bound {
			t.Errorf("%s: Data.db %d bytes, predicted %.0f: %+.1f%%, over %.1f%%", r.table, r.data, r.pred.Compressed, 100*data, 100*bound)
		}
		if math.Abs(live) > maxLiveError {
			t.Errorf("%s: Space used (live) %d bytes, predicted %.0f: %+.1f%%, over %.1f%%", r.table, r.live, r.pred.Components.Total(), 100*live, 100*maxLiveError)
		}
		if math.Abs(fifth) > maxFifthError {
			t.Errorf("%s: Space used (live) %d bytes, predicted from a fifth of the partitions %.0f: %+.1f%%, over %.1f%%", r.table, r.live, r.fromPart.Total, 100*fifth, 100*maxFifthError)
		}
	}
	figures.Record(t, started, held, nil, nil)
}

func pct(pred, actual float64) float64 { return 100 * rel(pred, actual) }

// rel is the relative error of pred against actual.
func rel(pred, actual float64) float64 { return (pred - actual) / actual }

func nodeTable(rs []nodeResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| shape | compressor | partitions | uncompressed node / model | Data.db node | Data.db model | error | Space used (live) | model total | error | Index.db node / model | Filter.db node / model | Statistics.db node / model | from a fifth | error |\n")
	fmt.Fprintf(&b, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		c := r.pred.Components
		fmt.Fprintf(&b, "| %s | %s | %d | %d / %.0f | %d | %.0f | %+.1f%% | %d | %.0f | %+.1f%% | %d / %.0f | %d / %.0f | %d / %.0f | %.0f | %+.1f%% |\n",
			r.shape, r.compressor, r.pred.Partitions, r.uncompressed, r.pred.Uncompressed, r.data, r.pred.Compressed,
			pct(r.pred.Compressed, float64(r.data)), r.live, c.Total(), pct(c.Total(), float64(r.live)),
			r.index, c.Index, r.filter, c.Filter, r.statistics, c.Other, r.fromPart.Total, pct(r.fromPart.Total, float64(r.live)))
	}
	return b.String()
}

// writeAll runs one prepared statement per argument list, 16 at a time.
func writeAll(ctx context.Context, s *gocql.Session, stmt string, args [][]any) error {
	work := make(chan []any)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range work {
				if err := execAgain(ctx, s, stmt, a...); err != nil {
					errs <- fmt.Errorf("%s: %w", stmt, err)
					return
				}
			}
		}()
	}
	var err error
feed:
	for _, a := range args {
		select {
		case work <- a:
		case err = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	return err
}

// execAgain runs a statement that is safe to repeat (an INSERT of the same values), again
// when a busy node misses the client's timeout (it may well have applied it), for up to ten
// tries a few seconds apart: a busy node can miss several timeouts in a row. (The tables'
// CREATE goes through cassandratest.DDL.)
func execAgain(ctx context.Context, s *gocql.Session, stmt string, args ...any) error {
	var err error
	for attempt := 0; attempt < 10; attempt++ {
		err = s.Query(stmt, args...).WithContext(ctx).Exec()
		var wt *gocql.RequestErrWriteTimeout
		if err == nil || !(errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.As(err, &wt)) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(3 * time.Second):
		}
	}
	return err
}

// raw keeps a column's bytes exactly as the native protocol carries them.
type raw struct {
	b    []byte
	null bool
}

func (r *raw) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	r.b, r.null = append([]byte(nil), data...), data == nil
	return nil
}

// readBack reads a table whole, in the node's order, as Predict's sample: every value as
// raw bytes, the write time and TTL of column n for every cell of the row (each row was
// written by one INSERT).
func readBack(ctx context.Context, s *gocql.Session, t *cql.Table) ([]disk.Partition, error) {
	var keys, cols []string
	for _, c := range t.PartitionKey {
		keys = append(keys, c.Name)
	}
	for _, c := range t.Clustering {
		keys = append(keys, c.Name)
	}
	for _, c := range t.Columns {
		if c.Kind == cql.Regular || c.Kind == cql.Static {
			cols = append(cols, c.Name)
		}
	}
	q := fmt.Sprintf("SELECT %s, %s, WRITETIME(n), TTL(n) FROM %s", strings.Join(keys, ", "), strings.Join(cols, ", "), t.QualifiedName())
	iter := s.Query(q).WithContext(ctx).PageSize(2000).Iter()
	var out []disk.Partition
	var lastKey string
	for {
		vals := make([]raw, len(keys)+len(cols))
		var wt int64
		var ttl *int
		dest := make([]any, 0, len(vals)+2)
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		dest = append(dest, &wt, &ttl)
		if !iter.Scan(dest...) {
			break
		}
		np := len(t.PartitionKey)
		var key [][]byte
		for _, v := range vals[:np] {
			key = append(key, v.b)
		}
		if k := fmt.Sprintf("%q", key); len(out) == 0 || k != lastKey {
			out = append(out, disk.Partition{Key: key})
			lastKey = k
		}
		row := disk.Row{Cells: map[string]disk.Cell{}}
		for _, v := range vals[np:len(keys)] {
			row.Clustering = append(row.Clustering, v.b)
		}
		var ttlSet int32
		if ttl != nil {
			ttlSet = 86400 // what the INSERT set; TTL() returns what remains
		}
		for i, name := range cols {
			v := vals[len(keys)+i]
			row.Cells[name] = disk.Cell{Value: v.b, Null: v.null, Timestamp: wt, TTL: ttlSet}
			if v.null {
				c := row.Cells[name]
				c.TTL = 0
				row.Cells[name] = c
			}
		}
		p := &out[len(out)-1]
		p.Rows = append(p.Rows, row)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read back %s: %w", t.QualifiedName(), err)
	}
	return out, nil
}

// componentSizes sums the live sstable's files in a table directory.
func componentSizes(dir string) (data, all, stats, index, filter int64, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, 0, 0, 0, err
	}
	gens := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return 0, 0, 0, 0, 0, err
		}
		name := e.Name()
		if i := strings.LastIndex(name, "-"); i > 0 {
			gens[name[:i]] = true
		}
		all += info.Size()
		switch {
		case strings.HasSuffix(name, "-Data.db"):
			data += info.Size()
		case strings.HasSuffix(name, "-Statistics.db"):
			stats += info.Size()
		case strings.HasSuffix(name, "-Index.db"):
			index += info.Size()
		case strings.HasSuffix(name, "-Filter.db"):
			filter += info.Size()
		}
	}
	if len(gens) != 1 {
		keys := make([]string, 0, len(gens))
		for g := range gens {
			keys = append(keys, filepath.Base(g))
		}
		sort.Strings(keys)
		return 0, 0, 0, 0, 0, fmt.Errorf("%s holds %d sstables (%s), want one after compaction", dir, len(gens), strings.Join(keys, ", "))
	}
	return data, all, stats, index, filter, nil
}

var (
	tableRE = regexp.MustCompile(`(?m)^\s*Table: (\S+)`)
	liveRE  = regexp.MustCompile(`Space used \(live\): (\d+)`)
)

// spaceUsedLive reads "Space used (live)" of every table of a keyspace from one nodetool
// tablestats.
func spaceUsedLive(ctx context.Context, files *cassandratest.NodeFiles, ks string) (map[string]int64, error) {
	out, err := nodetool(ctx, files, "tablestats", ks)
	if err != nil {
		return nil, err
	}
	got := map[string]int64{}
	sections := tableRE.FindAllSubmatchIndex(out, -1)
	for i, m := range sections {
		end := len(out)
		if i+1 < len(sections) {
			end = sections[i+1][0]
		}
		name := string(out[m[2]:m[3]])
		lm := liveRE.FindSubmatch(out[m[1]:end])
		if lm == nil {
			return nil, fmt.Errorf("tablestats %s: no Space used (live) for %s", ks, name)
		}
		n, err := strconv.ParseInt(string(lm[1]), 10, 64)
		if err != nil {
			return nil, err
		}
		got[name] = n
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("tablestats %s: no tables in %q", ks, out)
	}
	return got, nil
}

// awaitSettled waits until the node runs no compaction of keyspace ks and none of its tables'
// directories holds a transaction log (an sstable being written or replaced): a nodetool
// compact whose client gave up and was sent again may have left the first one running in
// the node.
func awaitSettled(ctx context.Context, files *cassandratest.NodeFiles, ks string) error {
	var why string
	for {
		out, err := nodetool(ctx, files, "compactionstats")
		if err != nil {
			return err
		}
		why = ""
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 3 && slices.Contains(f, ks) {
				why = "compaction running: " + strings.TrimSpace(line)
			}
		}
		if why == "" {
			for _, d := range files.DataDirs {
				if logs, _ := filepath.Glob(filepath.Join(d, ks, "*", "*_txn_*.log")); len(logs) > 0 {
					why = "transaction logs: " + strings.Join(logs, ", ")
				}
			}
		}
		if why == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the node did not settle after the compaction of %s (%s): %w", ks, why, ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
}

// nodetool runs nodetool on the node, again when a busy shared node says for a moment that it
// is not ready.
func nodetool(ctx context.Context, files *cassandratest.NodeFiles, args ...string) ([]byte, error) {
	var out []byte
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if out, err = files.Run(ctx, append([]string{"nodetool"}, args...)...); err == nil {
			return out, nil
		}
		time.Sleep(3 * time.Second)
	}
	return nil, err
}

// partitionBytes sums, per table, the uncompressed partition sizes sstablepartitions reports
// for table directories: the Data.db bytes before compression.
func partitionBytes(ctx context.Context, files *cassandratest.NodeFiles, dirs ...string) (map[string]int64, error) {
	out, err := files.Run(ctx, append([]string{"sstablepartitions", "--csv", "--min-size", "0"}, dirs...)...)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(out))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("sstablepartitions: %w", err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("sstablepartitions: no output")
	}
	sizeCol, tableCol := -1, -1
	for i, h := range recs[0] {
		switch h {
		case "size":
			sizeCol = i
		case "table":
			tableCol = i
		}
	}
	if sizeCol < 0 || tableCol < 0 {
		return nil, fmt.Errorf("sstablepartitions: no size and table columns in %q", recs[0])
	}
	sum := map[string]int64{}
	for _, rec := range recs[1:] {
		if len(rec) != len(recs[0]) {
			continue
		}
		n, err := strconv.ParseInt(rec[sizeCol], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("sstablepartitions: size %q: %w", rec[sizeCol], err)
		}
		sum[rec[tableCol]] += n
	}
	return sum, nil
}
