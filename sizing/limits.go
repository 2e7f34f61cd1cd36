package sizing

import (
	"fmt"
	"math"
	"strings"

	"github.com/cqlsize/cqlsize/finding"
	"github.com/cqlsize/cqlsize/severity"
	"github.com/cqlsize/cqlsize/workload"
)

// Target is the database the estimate checks limits for.
type Target string

// The targets. Cassandra 5.0 and 4.1 share the storage format and the rules of thumb; they
// differ in what they log. ScyllaDB records large partitions, rows and cells in
// system.large_partitions / large_rows / large_cells at its own thresholds.
const (
	Cassandra50 Target = "cassandra-5.0"
	Cassandra41 Target = "cassandra-4.1"
	ScyllaDB    Target = "scylladb"
)

// Targets lists every target, the default first.
func Targets() []Target { return []Target{Cassandra50, Cassandra41, ScyllaDB} }

// ParseTarget reads a target name: cassandra-5.0 (or 5.0, cassandra), cassandra-4.1 (4.1),
// scylladb (scylla). The empty string is the default, cassandra-5.0.
func ParseTarget(s string) (Target, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "cassandra-5.0", "cassandra-5", "cassandra5", "5.0", "cassandra", "c5":
		return Cassandra50, nil
	case "cassandra-4.1", "cassandra-4", "4.1", "c4":
		return Cassandra41, nil
	case "scylladb", "scylla":
		return ScyllaDB, nil
	}
	return "", fmt.Errorf("unknown target %q: want cassandra-5.0, cassandra-4.1 or scylladb", s)
}

// Severity says how bad a finding is: the scale every cqlsize analysis shares.
type Severity = severity.Level

// Severities, in increasing order.
const (
	Info = severity.Info
	Warn = severity.Warn
	Fail = severity.Fail
)

// Finding is one verdict or recommendation about a table: the type every cqlsize analysis
// reports in. Table is keyspace.table; Pos the CREATE TABLE, or the workload entry the
// finding is about. Codes are stable (`cqlsize explain CODE` documents each): CI
// configuration and suppressions refer to them.
type Finding = finding.Finding

// Measure is what a limit bounds.
type Measure int

// The measures limits apply to.
const (
	Bytes       Measure = iota // bytes of a partition in Data.db
	Values                     // values a partition stores (Partition.StoredValues: cells written)
	Cells                      // cells per partition (collection elements and tombstones included)
	Rows                       // rows per partition
	KeyBytes                   // bytes of the partition key
	RowBytes                   // bytes of one row
	CellBytes                  // bytes of one value (a whole collection)
	MutationRow                // bytes of one row as a single write (the mutation size limit)
)

// Limit is a threshold a partition should stay under.
type Limit struct {
	Code    string
	Name    string // what the message calls it
	Measure Measure
	Value   float64
	Hard    bool   // a hard limit (Cassandra rejects or cannot read past it): always fail
	Source  string // where the number comes from
}

const (
	mib = 1 << 20
	mb  = 1e6
)

// Limits returns the limits of a target.
func Limits(t Target) []Limit {
	key := Limit{"SZ004", "partition key of 65535 bytes", KeyBytes, 65535, true, "a partition key is written with a 2-byte length; longer keys are rejected"}
	switch t {
	case ScyllaDB:
		return []Limit{
			key,
			{"SZ010", "ScyllaDB large partition threshold of 1000 MB", Bytes, 1000 * mb, false, "compaction_large_partition_warning_threshold_mb: 1000 (system.large_partitions)"},
			{"SZ011", "ScyllaDB large row threshold of 10 MB", RowBytes, 10 * mb, false, "compaction_large_row_warning_threshold_mb: 10 (system.large_rows)"},
			{"SZ012", "ScyllaDB large cell threshold of 1 MB", CellBytes, 1 * mb, false, "compaction_large_cell_warning_threshold_mb: 1 (system.large_cells)"},
			{"SZ013", "ScyllaDB threshold of 100,000 rows", Rows, 100000, false, "compaction_rows_count_warning_threshold: 100000 (system.large_partitions)"},
		}
	}
	return []Limit{
		{"SZ001", "100,000 values per partition", Values, 100000, false, "the data modeling guide's rule of thumb, counted as the cells Cassandra stores (columns left unset write none; the classic Nv = Nr(Nc-Npk-Ns)+Ns is reported beside it)"},
		{"SZ002", "100 MB per partition", Bytes, 100 * mb, false, "the data modeling guide's rule of thumb; 4.1 logs 'Writing large partition' at 100 MiB"},
		{"SZ003", "2 billion cells per partition", Cells, 2e9, true, "the storage engine's hard limit"},
		key,
		{"SZ005", "16 MiB mutation", MutationRow, 16 * mib, true, "max_mutation_size: half of commitlog_segment_size (32 MiB); a larger write is rejected"},
	}
}

// measure returns a partition's value for m.
func (p Partition) measure(m Measure) float64 {
	switch m {
	case Bytes:
		return p.Bytes
	case Values:
		return p.StoredValues
	case Cells:
		return p.Cells
	case Rows:
		return p.Rows
	case KeyBytes:
		return p.KeyBytes
	case RowBytes, MutationRow:
		return p.RowBytes
	case CellBytes:
		return p.LargestCell
	}
	return 0
}

// formatMeasure renders a value of m for a message.
func formatMeasure(m Measure, v float64) string {
	switch m {
	case Bytes, KeyBytes, RowBytes, CellBytes, MutationRow:
		return FormatBytes(v)
	case Values:
		return FormatCount(v) + " values"
	case Cells:
		return FormatCount(v) + " cells"
	case Rows:
		return FormatCount(v) + " rows"
	}
	return workload.FormatNumber(v)
}

// FormatBytes renders a byte count in decimal units (B, kB, MB, GB, TB, PB) with three
// significant digits, as the rules of thumb are stated (100 MB): 999 B, 1 kB, 1.05 kB,
// 123 MB. A value that would round to 1000 of a unit is written in the next one (1 MB,
// not 1000 kB), and a negative value (a difference) keeps its sign. It is the one byte
// formatter of every command: estimate, check, design, evolve and the backfill's summary
// and progress line print sizes through it, so one size reads the same everywhere.
func FormatBytes(v float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for math.Abs(v) >= 999.5 && i < len(units)-1 {
		v /= 1000
		i++
	}
	if i == 0 || math.Abs(v) >= 999.5 {
		return fmt.Sprintf("%.0f %s", v, units[i])
	}
	return fmt.Sprintf("%.3g %s", v, units[i])
}

// FormatCount renders a count with k, M, B suffixes.
func FormatCount(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.3gB", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
