package profile

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing/disk"
)

// Options say what to profile and how gently.
type Options struct {
	Keyspace string
	Tables   []string // empty: every table of the keyspace
	// Sample is how many partitions to read per table (default DefaultSample); each is read
	// whole, so its rows are exact.
	Sample int
	// Rate caps the rows read per second, a token bucket over the whole run (0 = no cap).
	Rate float64
	// Consistency of the reads (default LOCAL_ONE: a profile needs no quorum).
	Consistency gocql.Consistency
	// Full reads every partition instead of a sample.
	Full     bool
	PageSize int // rows per page (default 500, and never more than Rate)
	// Timeout bounds Run's side queries (size_estimates, traces; default 30s). Page reads
	// time out by the session's own timeout (connect.Config.Timeout: the CLI's --timeout).
	Timeout time.Duration
	// Progress is called after each partition with the partitions read and the target (the
	// sample size, or 0 when a full scan does not know the total); nil: none.
	Progress func(table string, done, total int)
	Now      func() time.Time // for tests; default time.Now
	// Seed picks the random start tokens (0: from the clock), so a test can repeat a walk.
	Seed uint64
	// PerHost opens a session to one node, to read system.size_estimates from every node
	// (each records only its own ranges); nil: only the node that answers is read.
	PerHost HostOpener
	// NoTrace turns off tracing the first pages of a few slices (system_traces is written
	// on the node for each traced request).
	NoTrace bool
	// LocalDC is the one data center the session routes reads to (connect.Config.LocalDC)
	// at a LOCAL consistency, when the profile samples one DC; the result says so.
	LocalDC string

	typesOf *cql.Keyspace // the keyspace's user types, set by Run
}

// DefaultSample is the partitions read per table when Options.Sample is 0.
const DefaultSample = 1000

// Result is a profile of one keyspace's tables.
type Result struct {
	Keyspace string   `json:"keyspace"`
	Tables   []*Table `json:"tables"`
	// Partial is true when some table, or part of one, could not be read; Problems says what
	// was not covered and why.
	Partial  bool      `json:"partial"`
	Problems []string  `json:"problems"`
	Started  time.Time `json:"started"`
	Elapsed  Seconds   `json:"elapsed_seconds"`
	Rows     int64     `json:"rows_read"`
	// RateSet and RateAchieved are the --rate asked for and the rows per second achieved
	// over the whole run (waits included).
	RateSet      float64 `json:"rate_set,omitempty"`
	RateAchieved float64 `json:"rate_achieved"`
	Consistency  string  `json:"consistency"`
	// LocalDC is the one data center sampled (--local-dc); "" when reads went to any.
	LocalDC string `json:"local_dc,omitempty"`
	// Skipped are the tables left out of a profile of every table: cqlsize migrate's own
	// bookkeeping (see Bookkeeping); Problems carries the note saying so.
	Skipped []string `json:"-"`
}

// Seconds is a duration shown in seconds in JSON.
type Seconds float64

// Table is what the sample found in one table.
type Table struct {
	Keyspace string     `json:"keyspace"`
	Name     string     `json:"name"`
	Schema   *cql.Table `json:"-"`

	// Partitions and rows read; whole partitions, so RowsPerPartition is exact for them.
	PartitionsSeen   int   `json:"partitions_seen"`
	RowsSeen         int64 `json:"rows_seen"`
	RowsPerPartition Dist  `json:"rows_per_partition"`
	// PartitionBytes is the sum of the value bytes of each sampled partition (what the
	// driver received: keys, clustering and cells, without Cassandra's per-row overhead).
	PartitionBytes Dist `json:"partition_value_bytes"`
	// RowBytes is the value bytes of a row (clustering and regular columns).
	RowBytes Dist `json:"row_value_bytes"`

	Columns []*Column `json:"columns"`

	// Partitions is how many partitions the table holds, and PartitionsSource where that
	// comes from: "every partition read", "system.size_estimates" or "extrapolated from the
	// X% of the token ring walked". Both other figures are kept for comparison.
	Partitions         float64 `json:"partitions"`
	PartitionsSource   string  `json:"partitions_source"`
	SizeEstimates      float64 `json:"size_estimates_partitions"`
	SizeEstimatesNodes int     `json:"size_estimates_nodes"`
	Extrapolated       float64 `json:"extrapolated_partitions"`
	RingFraction       float64 `json:"ring_fraction"` // of the token ring walked, 0..1

	// BucketsSeen is how many distinct values the partition key's time bucket column took
	// (a table TableBucket finds a bucket in): the workload's partitions are per bucket.
	BucketsSeen int `json:"buckets_seen,omitempty"`
	// Keys is the fit over keys of a bucketed table (nil for others): Skew and MeanRows then
	// describe keys, and the workload's partitions are PartitionsPerBucket.
	Keys *KeyFit `json:"keys,omitempty"`

	Skew SkewFit `json:"skew"`
	// MeanRows is the rows of an average partition the workload declares, and
	// MeanRowsSource how it was found (the sample's mean, or the Zipf fit's: see meanRows).
	MeanRows       float64 `json:"mean_rows"`
	MeanRowsSource string  `json:"mean_rows_source"`

	// TTL is the time to live cells were written with (remaining TTL plus the time since
	// the write), over cells that have one; TTLFraction the share of cells that do.
	TTL         Dist    `json:"ttl_seconds"`
	TTLFraction float64 `json:"ttl_fraction"`
	// TTLs are the TTLs cells were written with, each with its share of the cells read
	// (the ones without a TTL too), most cells first; nil when more than maxTTLs distinct
	// TTLs were seen (then TTL's spread describes them).
	TTLs []TTLShare `json:"ttls,omitempty"`
	// WriteSpread is, per partition, the span between its oldest and newest write time.
	WriteSpread Dist `json:"write_spread_seconds"`
	// WriteRate is rows written per partition per second while a partition receives writes
	// (Σ(rows−1) / Σ spread over partitions with two rows or more); 0 when unknown.
	WriteRate       float64   `json:"write_rate_per_second"`
	WriteRateSource string    `json:"write_rate_source"`
	LastWrite       time.Time `json:"last_write,omitzero"`
	FirstWrite      time.Time `json:"first_write,omitzero"`

	Tombstones Tombstones `json:"tombstones"`
	Disk       Disk       `json:"disk"`
	Growth     Growth     `json:"growth"`

	Elapsed Seconds `json:"elapsed_seconds"`
	Partial bool    `json:"partial"`
	Problem string  `json:"problem,omitempty"`

	diskSample []disk.Partition // the partitions kept for the disk prediction, until it is made
	types      *cql.Keyspace    // the keyspace's user types, for sizing's model of a row (growth)
	keySample  *keySample       // a bucketed table's keys, until keyFit
}

// Column is what the sample found in one column.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Kind string `json:"kind"` // partition_key, clustering, static, regular
	// Rows is how many rows (partitions, for key and static columns) were looked at;
	// NullFraction the share of those without a value (null and unset read the same).
	Rows         int     `json:"rows"`
	NullFraction float64 `json:"null_fraction"`
	// Size is the serialized bytes of the non-null values: for a frozen collection, tuple or
	// UDT the whole value, for a non-frozen one the elements' bytes summed.
	Size Dist `json:"size"`
	// Items, ItemSize and KeySize describe collection elements (count per value, bytes of a
	// list/set element or map value, bytes of a map key); nil for other types.
	Items    *Dist `json:"items,omitempty"`
	ItemSize *Dist `json:"item_size,omitempty"`
	KeySize  *Dist `json:"key_size,omitempty"`
	// Fields are the sizes of a non-frozen UDT's fields.
	Fields map[string]Dist `json:"fields,omitempty"`
	// TTLRead and WriteTimeRead say whether TTL() and WRITETIME() could be asked of it as one
	// value: Cassandra refuses them for key columns, and answers a non-frozen collection's
	// (WRITETIME only, read as ElementsChecked below) and UDT's element by element.
	TTLRead bool `json:"ttl_read"`
	// ElementsApart is, for a non-frozen collection, the share of the ElementsChecked values
	// whose elements were written at other times than their row's other cells: element
	// updates (SET m[k] = v) rather than an INSERT or SET c = {...} writing it whole.
	ElementsChecked int     `json:"elements_checked,omitempty"`
	ElementsApart   float64 `json:"elements_written_apart,omitempty"`
	// ElementsOnlyApart is the share of those values none of whose elements was written with
	// their row: a collection only ever updated element by element, which no write replaced
	// whole (no collection tombstone).
	ElementsOnlyApart float64 `json:"elements_only_apart,omitempty"`
	// ElementShareApart is the share of those values' elements written apart from their row:
	// each carries its own timestamp (and TTL) where an element written with the row borrows
	// the row's.
	ElementShareApart float64 `json:"element_share_apart,omitempty"`
}

// Tombstones are what reading the sample met.
type Tombstones struct {
	// Warnings are the distinct warnings Cassandra attached to responses (the tombstone
	// warning names the tombstones a read scanned), with how many responses carried one.
	Warnings      []string `json:"warnings"`
	WarnResponses int      `json:"warn_responses"`
	// Max is the most tombstones one warning reported; 0 when none did.
	Max int `json:"max"`
	// TracedReads are the replica reads traced (the first pages of a few slices), with the
	// tombstone cells they scanned in all and the most one scanned: tombstones under the
	// warning threshold show here. TraceProblem says why tracing saw nothing, when it did not.
	TracedReads      int    `json:"traced_reads"`
	TracedTombstones int    `json:"traced_tombstones"`
	TracedMax        int    `json:"traced_max"`
	TraceProblem     string `json:"trace_problem,omitempty"`
	// TracedLiveRows are the live rows those reads returned and TracedPartitions the
	// partitions the traced slices completed: the tombstones per live row they met, times the
	// table's rows per partition, is PerPartition.
	TracedLiveRows   int `json:"traced_live_rows"`
	TracedPartitions int `json:"traced_partitions"`
	// PerPartition is the tombstone cells an average partition holds, as a read counts them
	// (a deleted row, a range tombstone's bound and an expired or deleted cell are one each),
	// from the traced reads; 0 when they met none.
	PerPartition float64 `json:"per_partition"`
	// ExpiredRows is the rows past their TTL an average partition holds, when the table is
	// written with a TTL: its tombstones are then taken for expired cells, PerPartition over
	// the cells a row holds (see expiredRows). 0 when they are taken for deletes.
	ExpiredRows float64 `json:"expired_rows_per_partition,omitempty"`
	// ExpiredTTL is the longest TTL, in seconds, the expired rows can have been written with
	// when it is shorter than the table's (see expiredTTL); 0: the table's TTL.
	ExpiredTTL int64 `json:"expired_ttl_seconds,omitempty"`
}

// Disk is the predicted on-disk size of the table: the sampled partitions laid out as
// Cassandra writes Data.db and compressed in chunks with the table's own compressor
// (sizing/disk), scaled to the table's partition count, on one replica.
type Disk struct {
	Predicted  bool    `json:"predicted"`
	Compressor string  `json:"compressor,omitempty"`
	ChunkKB    int     `json:"chunk_length_in_kb,omitempty"`
	Ratio      float64 `json:"ratio,omitempty"` // compressed / uncompressed Data.db
	// SamplePartitions is how many partitions were laid out (the sample, up to a byte budget).
	SamplePartitions int `json:"sample_partitions,omitempty"`
	// Per partition, on average, and their spread over the sample.
	UncompressedPerPartition float64 `json:"uncompressed_bytes_per_partition,omitempty"`
	PerPartition             float64 `json:"compressed_bytes_per_partition,omitempty"`
	PartitionUncompressed    Dist    `json:"partition_uncompressed_bytes"`
	PartitionCompressed      Dist    `json:"partition_compressed_bytes"`
	// The whole table: Data.db before and after compression, and every sstable component
	// (what nodetool tablestats calls Space used (live)).
	Uncompressed float64 `json:"uncompressed_bytes,omitempty"`
	DataBytes    float64 `json:"data_bytes,omitempty"`
	Total        float64 `json:"total_bytes,omitempty"`
	Note         string  `json:"note,omitempty"`
}
