package accuracy

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/retry"
)

// modulePath identifies this repository's go.mod when looking for the module root.
const modulePath = "github.com/cqlsize/cqlsize"

// ErrNoLocalNode is returned when the node's data directory is not on this machine (a remote
// cluster or a container), so its sstables cannot be read.
var ErrNoLocalNode = errors.New("the node's data directory is not on this machine")

// Node runs the repository's scripts/cassandra against the local node and finds its sstables.
type Node struct {
	Script  string   // path to scripts/cassandra
	DataDir []string // the node's data_file_directories
}

// FindModuleRoot walks up from dir to the directory holding this module's go.mod.
func FindModuleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module "+modulePath+"\n")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("find module root: no go.mod of %s above %s", modulePath, dir)
		}
		d = parent
	}
}

// OpenNode finds scripts/cassandra from the module root above the working directory, and
// asks the node (over s) where it keeps its data. It returns ErrNoLocalNode (wrapped) when
// that directory is not here.
func OpenNode(ctx context.Context, s *gocql.Session) (*Node, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("open node: %w", err)
	}
	root, err := FindModuleRoot(wd)
	if err != nil {
		return nil, fmt.Errorf("open node: %w", err)
	}
	n := &Node{Script: filepath.Join(root, "scripts", "cassandra")}
	if _, err := os.Stat(n.Script); err != nil {
		return nil, fmt.Errorf("open node: %w", err)
	}
	var dirs string
	if err := s.Query(`SELECT value FROM system_views.settings WHERE name = 'data_file_directories'`).
		WithContext(ctx).Scan(&dirs); err != nil {
		return nil, fmt.Errorf("open node: read data_file_directories from system_views.settings: %w", err)
	}
	for _, d := range strings.Split(strings.Trim(dirs, "[]"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			n.DataDir = append(n.DataDir, d)
		}
	}
	if len(n.DataDir) == 0 {
		return nil, fmt.Errorf("open node: data_file_directories is empty (%q)", dirs)
	}
	for _, d := range n.DataDir {
		if _, err := os.Stat(d); err != nil {
			return nil, fmt.Errorf("open node: %w: %s (run the accuracy check against the node scripts/cassandra starts)", ErrNoLocalNode, d)
		}
	}
	return n, nil
}

// run runs scripts/cassandra with args and returns its standard output. nodetool is retried
// (up to three times, 2 s apart) when JMX is not ready, refuses or times out: on a busy shared
// node it sometimes does for a moment, and flush, compact and tablehistograms can be repeated.
func (n *Node) run(ctx context.Context, args ...string) ([]byte, error) {
	var out []byte
	_, err := retry.Do(ctx, retry.Policy{Backoff: retry.Backoff{Min: 2 * time.Second}, Attempts: 4,
		Retry: func(err error) bool { return args[0] == "nodetool" && transient(err) }}, func() error {
		var err error
		out, err = n.runOnce(ctx, args...)
		return err
	})
	return out, err
}

func (n *Node) runOnce(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, n.Script, args...)
	cmd.Env = append(os.Environ(), "CQLSIZE_NODES=1") // the development node, even from a ring test's environment
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("scripts/cassandra %s: %w: %s", strings.Join(args, " "), err, cause(stderr.String()+stdout.String()))
	}
	return stdout.Bytes(), nil
}

// cause picks the lines of a JVM tool's output that say what went wrong (the exception and
// "error:" lines), leaving out the stack frames.
func cause(out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "...") {
			continue
		}
		if strings.Contains(t, "Exception") || strings.Contains(strings.ToLower(t), "error") || len(lines) == 0 {
			lines = append(lines, t)
		}
	}
	msg := strings.Join(lines, "; ")
	if len(msg) > 1500 {
		msg = msg[:1500] + "..."
	}
	return msg
}

// transient reports whether a nodetool failure is one a busy node recovers from: JMX not
// ready, refusing or timing out a connection.
func transient(err error) bool {
	for _, s := range []string{"not initialized", "Failed to connect", "ConnectException", "Connection refused", "SocketTimeoutException", "timed out"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}

// Nodetool runs nodetool on node 1: Nodetool(ctx, "flush", ks).
func (n *Node) Nodetool(ctx context.Context, args ...string) error {
	_, err := n.run(ctx, append([]string{"nodetool"}, args...)...)
	return err
}

// FlushAndCompact flushes every memtable of a keyspace to sstables and compacts each table
// into one sstable, so each partition has exactly one fragment to measure.
func (n *Node) FlushAndCompact(ctx context.Context, keyspace string) error {
	if err := n.Nodetool(ctx, "flush", keyspace); err != nil {
		return err
	}
	return n.Nodetool(ctx, "compact", keyspace)
}

// TableDir returns the data directory of a table: <data>/<keyspace>/<table>-<id without dashes>.
func (n *Node) TableDir(ctx context.Context, s *gocql.Session, keyspace, table string) (string, error) {
	var id gocql.UUID
	if err := s.Query(`SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, keyspace, table).
		WithContext(ctx).Scan(&id); err != nil {
		return "", fmt.Errorf("find the id of %s.%s: %w", keyspace, table, err)
	}
	name := table + "-" + strings.ReplaceAll(id.String(), "-", "")
	for _, d := range n.DataDir {
		p := filepath.Join(d, keyspace, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no data directory %s for %s.%s under %s", name, keyspace, table, strings.Join(n.DataDir, ", "))
}

// PartitionStats is one partition of one sstable as sstablepartitions reports it.
type PartitionStats struct {
	Key        string // as sstablepartitions prints it
	Table      string // the table directory's table name
	Live       bool   // no partition-level deletion
	Offset     int64  // where the partition starts in Data.db, uncompressed
	Size       int64  // bytes in Data.db, uncompressed, from the partition's first byte to the next partition's
	Rows       int64  // rows, deleted rows included; range markers and the static row excluded
	Cells      int64  // cells of those rows, tombstones included
	Tombstones int64
	RowTombs   int64
	RangeTombs int64
	Complex    int64 // collection (complex) deletions
	CellTombs  int64
	Data       string // the Data.db file
}

// SSTablePartitions runs sstablepartitions over table directories (one JVM for all) and
// returns every partition of every sstable in them.
func (n *Node) SSTablePartitions(ctx context.Context, dirs ...string) ([]PartitionStats, error) {
	out, err := n.run(ctx, append([]string{"sstablepartitions", "--csv", "--min-size", "0"}, dirs...)...)
	if err != nil {
		return nil, err
	}
	return ParseSSTablePartitionsCSV(bytes.NewReader(out))
}

// ParseSSTablePartitionsCSV reads the --csv output of sstablepartitions (Cassandra 5.0).
func ParseSSTablePartitionsCSV(r io.Reader) ([]PartitionStats, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read sstablepartitions output: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, want := range []string{"key", "live", "offset", "size", "rowCount", "cellCount", "tombstoneCount", "rowTombstoneCount",
		"rangeTombstoneCount", "complexTombstoneCount", "cellTombstoneCount", "directory", "table"} {
		if _, ok := col[want]; !ok {
			return nil, fmt.Errorf("read sstablepartitions output: no %q column in header %q", want, strings.Join(header, ","))
		}
	}
	var out []PartitionStats
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read sstablepartitions output line %d: %w", line, err)
		}
		if len(rec) < len(header) {
			continue // a progress or summary line
		}
		num := func(name string) int64 {
			if err != nil {
				return 0
			}
			var v int64
			v, err = strconv.ParseInt(rec[col[name]], 10, 64)
			return v
		}
		p := PartitionStats{
			Key: rec[col["key"]], Table: rec[col["table"]], Live: rec[col["live"]] == "true", Data: rec[col["directory"]],
			Offset: num("offset"), Size: num("size"), Rows: num("rowCount"), Cells: num("cellCount"), Tombstones: num("tombstoneCount"),
			RowTombs: num("rowTombstoneCount"), RangeTombs: num("rangeTombstoneCount"), Complex: num("complexTombstoneCount"),
			CellTombs: num("cellTombstoneCount"),
		}
		if err != nil {
			return nil, fmt.Errorf("read sstablepartitions output line %d: %w", line, err)
		}
		out = append(out, p)
	}
}

// TableHistogramMax runs nodetool tablehistograms and returns the Max row of its Partition
// Size column: the partition size Cassandra's own metrics report, rounded up to an
// EstimatedHistogram bucket.
func (n *Node) TableHistogramMax(ctx context.Context, keyspace, table string) (int64, error) {
	out, err := n.run(ctx, "nodetool", "tablehistograms", keyspace, table)
	if err != nil {
		return 0, err
	}
	return parseHistogramMax(string(out))
}

// parseHistogramMax reads the Partition Size column of the Max line of tablehistograms.
func parseHistogramMax(out string) (int64, error) {
	col := -1
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "Percentile" {
			// Percentile, Read Latency, Write Latency, SSTables, Partition Size, Cell Count
			col = 4
			continue
		}
		if f[0] == "Max" && col > 0 && len(f) > col {
			v, err := strconv.ParseFloat(f[col], 64)
			if err != nil {
				return 0, fmt.Errorf("tablehistograms: partition size %q: %w", f[col], err)
			}
			return int64(v), nil
		}
	}
	return 0, fmt.Errorf("tablehistograms: no Max line with a partition size in %q", out)
}
