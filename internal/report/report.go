package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Version is the version of the JSON contract (docs/estimate-json.md). It changes only when
// a field is removed or changes meaning; new fields may appear within a version.
const Version = 1

// Report is the whole estimate. Its JSON form is the documented contract.
type Report struct {
	Version    int        `json:"version"`
	Tool       string     `json:"tool"`
	Target     string     `json:"target"`
	Schema     string     `json:"schema,omitempty"`
	Workload   string     `json:"workload,omitempty"`
	Limits     Limits     `json:"limits"`
	Summary    Summary    `json:"summary"`
	Tables     []Table    `json:"tables"`
	Statements []Finding  `json:"statements"` // tombstones the application's statements write (TS1xx)
	Batches    []Batch    `json:"batches"`    // fan-out writes, measured as batch_size_warn_threshold measures them
	Live       *LiveInfo  `json:"live,omitempty"`
	Notes      []string   `json:"notes"` // what the estimate could not cover
	FailOn     string     `json:"-"`
	Options    Assumption `json:"-"`
}

// Limits are the numbers the verdicts compare against, for the target.
type Limits struct {
	PartitionBytes  Num `json:"partition_bytes"`            // the soft partition size limit (100 MB; 1000 MB on ScyllaDB)
	PartitionValues Num `json:"partition_values,omitempty"` // the soft values limit (100,000; absent on ScyllaDB)
	PartitionRows   Num `json:"partition_rows,omitempty"`   // ScyllaDB's rows threshold (100,000)
	TombstoneWarn   int `json:"tombstone_warn"`             // tombstones a read may count before a warning
	TombstoneFail   int `json:"tombstone_fail,omitempty"`   // ... before the read fails (0: it never does)
}

// Summary counts findings by severity over tables and statements.
type Summary struct {
	Tables int    `json:"tables"`
	Info   int    `json:"info"`
	Warn   int    `json:"warn"`
	Fail   int    `json:"fail"`
	Worst  string `json:"worst"` // "ok", "info", "warn" or "fail"
}

// Table is the estimate of one table.
type Table struct {
	Name        string    `json:"name"`
	Position    string    `json:"position,omitempty"` // file:line:col of its CREATE TABLE
	Partitions  Num       `json:"partitions"`         // partitions the table holds (the key x shard x bucket slots a row reaches)
	Bucket      string    `json:"bucket,omitempty"`   // the time bucket bounding a partition
	LifeSeconds Num       `json:"life_seconds"`       // how long a partition receives writes
	TTLSeconds  Num       `json:"ttl_seconds"`
	GCGrace     Num       `json:"gc_grace_seconds"`
	Compaction  string    `json:"compaction"`
	TotalBytes  Num       `json:"total_bytes"`          // all partitions on one replica
	DiskBytes   Num       `json:"disk_bytes,omitempty"` // TotalBytes compressed, by the workload's compression_ratio (from cqlsize profile)
	Typical     Size      `json:"typical"`
	P99         Size      `json:"p99"`
	Largest     Size      `json:"largest"`
	Growth      []Point   `json:"growth"`
	Crossings   []Cross   `json:"crossings"`
	Tombstones  Tombs     `json:"tombstones"`
	Verdict     string    `json:"verdict"`
	Findings    []Finding `json:"findings"`
	Assumptions []string  `json:"assumptions"`
	Live        *Live     `json:"live,omitempty"`
	// Replicas is TotalBytes across the cluster by the keyspace's replication: per data
	// center, per node when the node count is known, and for the whole cluster; absent when
	// no replication is known (then every figure is one replica's).
	Replicas *Replicas `json:"replicas,omitempty"`
	// Reads is the read cost of each named query that reads the table (--queries), when
	// the workload gives a write rate to spread over the buckets.
	Reads        []Read `json:"reads,omitempty"`
	valuesPerRow float64
	staticValues float64
}

// Replicas is one table's bytes on every copy the keyspace's replication keeps.
type Replicas struct {
	Replication string `json:"replication"` // the map, as CQL writes it
	Class       string `json:"class"`       // SimpleStrategy or NetworkTopologyStrategy
	// Source is where the replication was read: "schema" (the files' CREATE KEYSPACE),
	// "cluster" (system_schema) or "flag" (--replication).
	Source string `json:"source"`
	// DataCenters has one entry per DC NetworkTopologyStrategy names, or for SimpleStrategy
	// one entry with no name: the whole cluster.
	DataCenters []DCReplicas `json:"data_centers"`
	// ClusterBytes is every copy in the cluster; 0 with cluster_known false when the
	// copies depend on DCs not known (a 'replication_factor' default).
	ClusterBytes Num  `json:"cluster_bytes"`
	ClusterKnown bool `json:"cluster_known"`
	text         string
}

// Line is the replicas in one line: "NetworkTopologyStrategy from the schema's CREATE
// KEYSPACE: dc1 3 copies 5.82 TB, dc2 3 copies 5.82 TB; whole cluster 11.6 TB".
func (r *Replicas) Line() string {
	from := map[string]string{"schema": "the schema's CREATE KEYSPACE", "cluster": "the cluster's system_schema", "flag": "--replication"}[r.Source]
	if from == "" {
		from = r.Source
	}
	return fmt.Sprintf("%s from %s: %s", r.Class, from, r.text)
}

// DCReplicas is one data center's copies of a table.
type DCReplicas struct {
	Name              string `json:"name,omitempty"`
	ReplicationFactor int    `json:"replication_factor"`
	Bytes             Num    `json:"bytes"`                // total_bytes × replication_factor
	Nodes             int    `json:"nodes,omitempty"`      // the DC's nodes, when known or given (--nodes)
	NodeBytes         Num    `json:"node_bytes,omitempty"` // one node's share of bytes
}

// Read is what one read of a named query costs on the table (sizing/readcost): the
// partitions it visits, the rows it passes and the empty partitions among them, for the
// typical (p50), the p99 and the busiest (max) key.
type Read struct {
	Query                   string   `json:"query"`
	Position                string   `json:"position,omitempty"`
	PartitionsPerRead       ReadKeys `json:"partitions_per_read"`
	RowsPerRead             ReadKeys `json:"rows_per_read"`
	EmptyPartitionsPerRead  ReadKeys `json:"empty_partitions_per_read"`
	PartitionReadsPerSecond Num      `json:"partition_reads_per_second"` // the query's rate × the p50 read's partitions
}

// ReadKeys is one figure for the typical, the p99 and the busiest key.
type ReadKeys struct {
	P50 Num `json:"p50"`
	P99 Num `json:"p99"`
	Max Num `json:"max"`
}

// Size is one partition at the end of its life.
type Size struct {
	Rows          Num `json:"rows"`
	StoredValues  Num `json:"stored_values"`  // what SZ001 counts: cells written (sizing.Partition.StoredValues)
	ClassicValues Num `json:"classic_values"` // the classic formula's Nv, for reference
	Values        Num `json:"values"`         // the same as classic_values, kept for version 1 readers
	Cells         Num `json:"cells"`
	Bytes         Num `json:"bytes"`         // the byte model: what Cassandra 5.0 writes to Data.db
	ClassicBytes  Num `json:"classic_bytes"` // the classic formula's St
	// TombstonesOnDisk is the tombstone model's count for this partition at the end of its
	// bucket (steady state when unbucketed), the figure tombstones.on_disk gives for the
	// typical one.
	TombstonesOnDisk Num `json:"tombstones_on_disk"`
}

// Point is the size of the typical and the largest partition at an age.
type Point struct {
	AgeSeconds    Num `json:"age_seconds"`
	Rows          Num `json:"rows"`
	Values        Num `json:"values"` // classic
	StoredValues  Num `json:"stored_values"`
	Bytes         Num `json:"bytes"`
	LargestRows   Num `json:"largest_rows"`
	LargestValues Num `json:"largest_values"` // classic
	// LargestStoredValues is the largest partition's stored values.
	LargestStoredValues Num `json:"largest_stored_values"`
	LargestBytes        Num `json:"largest_bytes"`
}

// Cross is when an unbucketed partition crosses a limit.
type Cross struct {
	Code           string `json:"code"`
	Limit          string `json:"limit"`
	TypicalSeconds Num    `json:"typical_seconds,omitempty"`
	LargestSeconds Num    `json:"largest_seconds,omitempty"`
	TypicalNever   bool   `json:"typical_never"`
	LargestNever   bool   `json:"largest_never"`
}

// Tombs is the tombstone estimate of one table.
type Tombs struct {
	Read           string   `json:"read"`             // the read it is about: "LIMIT 20, newest-first"
	Query          string   `json:"query,omitempty"`  // the named query it comes from
	PerRead        Num      `json:"per_read"`         // the typical partition's typical read, at the end of its bucket
	LargestPerRead Num      `json:"largest_per_read"` // the same read of the largest partition
	PeakPerRead    Num      `json:"peak_per_read"`    // the worst read over the typical partition's life
	PeakAgeSeconds Num      `json:"peak_age_seconds"` // when that is
	PerPartition   Num      `json:"per_partition"`    // tombstones a read could count in the typical partition
	OnDisk         Num      `json:"on_disk"`          // tombstones in its sstables (sstablepartitions' count), at least
	Sources        []Source `json:"sources"`
}

// Source is one source of tombstones in the typical partition.
type Source struct {
	Source       string `json:"source"`
	Counted      bool   `json:"counted"` // whether reads count it toward the thresholds
	PerRead      Num    `json:"per_read"`
	PerPartition Num    `json:"per_partition"`
	OnDisk       Num    `json:"on_disk"`
}

// Finding is one verdict, recommendation or notice: a finding.Finding (the type every
// analysis reports in) as the JSON contract writes it, with its severity as a word and its
// position as file:line:col.
type Finding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"` // "info", "warn" or "fail"
	Table    string `json:"table,omitempty"`
	Position string `json:"position,omitempty"` // file:line:col when it is about a place in a file
	Message  string `json:"message"`
	Fix      string `json:"fix,omitempty"`
}

// Batch is one logged batch that writes an entity to several tables (a denormalized
// model's fan-out), measured the way Cassandra checks batch_size_warn_threshold.
type Batch struct {
	Tables    []string       `json:"tables"`             // keyspace.table of each statement, in order
	Position  string         `json:"position,omitempty"` // the BEGIN BATCH in the statements file
	Bytes     Num            `json:"bytes"`              // the data size Cassandra compares with the thresholds
	Mutations int            `json:"mutations"`          // distinct partitions written
	Checked   bool           `json:"checked"`            // Cassandra checks only batches of more than one mutation
	PerTable  map[string]Num `json:"per_table"`
	Findings  []Finding      `json:"findings"`
}

// Live is what the cluster reports for a table.
type Live struct {
	MaxPartitionBytes  Num `json:"max_partition_bytes"`  // system_views.max_partition_size (MiB, rounded up)
	MeanPartitionBytes Num `json:"mean_partition_bytes"` // system.size_estimates, summed over ranges
	PartitionsEstimate Num `json:"partitions_estimate"`  // system.size_estimates
	// SizeEstimatesRanges is how many token ranges system.size_estimates holds for the table:
	// 0 when the node has not computed them yet (it does every few minutes, over flushed data),
	// and then PartitionsEstimate and MeanPartitionBytes mean "not computed", not zero.
	SizeEstimatesRanges  int   `json:"size_estimates_ranges"`
	TombstonesReads      int64 `json:"tombstones_reads"` // system_views.tombstones_per_read count
	TombstonesPerReadP99 Num   `json:"tombstones_per_read_p99"`
	TombstonesPerReadMax Num   `json:"tombstones_per_read_max"`
}

// LiveInfo says which cluster the live figures come from.
type LiveInfo struct {
	Hosts        string   `json:"hosts"`
	SchemaSource string   `json:"schema_source"` // "cluster" or the schema path compared with it
	SchemaDiff   []string `json:"schema_diff"`
}

// Assumption records the read options the report was built with (for the text header).
type Assumption struct {
	Read string
}

// rank orders severities: ok < info < warn < fail.
func rank(sev string) int {
	switch sev {
	case "info":
		return 1
	case "warn":
		return 2
	case "fail":
		return 3
	}
	return 0
}

// AtLeast reports whether any finding is at least as severe as sev ("warn" or "fail").
func (r *Report) AtLeast(sev string) bool { return rank(r.Summary.Worst) >= rank(sev) && rank(sev) > 0 }

// summarize counts the findings and sets each table's verdict.
func (r *Report) summarize() {
	s := Summary{Tables: len(r.Tables), Worst: "ok"}
	count := func(f Finding) {
		switch f.Severity {
		case "info":
			s.Info++
		case "warn":
			s.Warn++
		case "fail":
			s.Fail++
		}
		if rank(f.Severity) > rank(s.Worst) {
			s.Worst = f.Severity
		}
	}
	for i := range r.Tables {
		t := &r.Tables[i]
		t.Verdict = "ok"
		for _, f := range t.Findings {
			count(f)
			if rank(f.Severity) > rank(t.Verdict) {
				t.Verdict = f.Severity
			}
		}
	}
	for _, f := range r.Statements {
		count(f)
	}
	for _, b := range r.Batches {
		for _, f := range b.Findings {
			count(f)
		}
	}
	r.Summary = s
}

// Formats lists the output formats.
var Formats = []string{"text", "json", "markdown", "html"}

// WriterFor returns the renderer of a format: text, json, markdown (md) or html.
func WriterFor(format string) (func(w io.Writer, r *Report) error, error) {
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "", "text":
		return WriteText, nil
	case "json":
		return WriteJSON, nil
	case "markdown", "md":
		return WriteMarkdown, nil
	case "html":
		return WriteHTML, nil
	}
	return nil, fmt.Errorf("format %q: want %s", format, strings.Join(Formats, ", "))
}

// Num is a number of the report. In JSON it keeps six significant digits (whole numbers
// from a million up), so the output does not change with the last bits of a float.
type Num float64

// MarshalJSON writes n rounded as the type says.
func (n Num) MarshalJSON() ([]byte, error) {
	v := float64(n)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return []byte(formatNum(v)), nil
}

func formatNum(v float64) string {
	if v == 0 {
		return "0"
	}
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}
