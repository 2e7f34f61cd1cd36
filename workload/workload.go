package workload

import (
	"fmt"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

// Workload is what a workload file declares: for each table, how much data it holds and how
// that data is written. Every number is an average over partitions unless the field says
// otherwise; Skew says how far the busiest partitions stray from it.
type Workload struct {
	File   string           // where it was read from ("" when built in code or from flags)
	Tables []*TableWorkload // in the order the file lists them
}

// Table returns the workload declared for a table, looked up by its name as written in the
// file (qualified or not) and then by its bare name; nil when there is none.
func (w *Workload) Table(name string) *TableWorkload {
	if w == nil {
		return nil
	}
	for _, t := range w.Tables {
		if t.Name == name {
			return t
		}
	}
	bare := name[strings.LastIndexByte(name, '.')+1:]
	for _, t := range w.Tables {
		if t.Name[strings.LastIndexByte(t.Name, '.')+1:] == bare {
			return t
		}
	}
	return nil
}

// TableWorkload is the workload of one table. The zero value of every optional field means
// "not declared": the estimate then uses the table's own setting or a documented default and
// says so in its assumptions.
type TableWorkload struct {
	// Name is the table, "posts_by_user" or "app.posts_by_user".
	Name string

	// Partitions is how many partition keys the writes spread over: users, sensors,
	// hashtags (partitions: 2M). A bucketed table starts that many partitions per bucket. It
	// sets the total size and the Zipf head; 0 = not declared (one key is sized).
	Partitions float64

	// RowsPerPartition is how many rows are written to an average partition over its life
	// (rows_per_partition: 2000); deletes and TTL then remove some, and the estimate reports
	// what is left. Declare it, or WriteRate.
	RowsPerPartition float64

	// WriteRate is how many rows are written per partition key per span of time
	// (write_rate: 50/day, 3/hour, 1000/s). Bucket (or the table's own bucket) bounds how long
	// one partition keeps growing.
	WriteRate Rate

	// Bucket is the span one partition covers (bucket: day, month, iso-week, 6h). Zero = the
	// bucket the table's partition key implies (TableBucket), or none: the partition grows
	// until Horizon, or levels off under a TTL.
	Bucket Span

	// NoBucket says the partition key holds no time bucket (bucket: none), though a column
	// of it is named like one (album_year int): the partition is sized unbucketed.
	NoBucket bool

	// TableRate, Retention and Columns describe an entity table (what `cqlsize design`
	// reads) rather than one query table: TableRate is the rows inserted into the whole
	// table per span of time (rows: 50k/day), Retention how long rows are kept without a TTL
	// (retention: 5y), and Columns how many values each column takes and how the rows spread
	// over them (columns: {store_id: {distinct: 2000, skew: zipf:1.1}}). Rows per partition
	// of any key follow from them.
	TableRate Rate
	Retention time.Duration
	Columns   map[string]ColumnVolume

	// Shards is how many write shards the partition key carries (shards: 8): a shard column
	// beside the key spreads every key's writes evenly over that many partitions
	// (bucket.Shard), so each holds a shards-th of the key's rows. 0 or 1 = none.
	Shards int

	// Horizon is how far ahead to project a partition no bucket bounds (horizon: 2y; default
	// 1 year), and how long a bucketed table keeps its buckets when it has no TTL.
	Horizon time.Duration

	// Avg is the average serialized size in bytes of a column's value, for variable-length
	// types: text, ascii, blob, varint, decimal, inet, frozen collections, tuples and UDTs
	// (avg: {content: 280}); a UDT field is named column.field (avg: {home.street: 24}).
	Avg map[string]float64

	// Items describes the elements of collection columns, frozen or not
	// (items: {tags: 5, prefs: {count: 10, key: 12, value: 20}}).
	Items map[string]Items

	// Nulls is the fraction of writes that leave a column without a value, per column; the key
	// "*" applies to every regular and static column without its own entry
	// (nulls: {title: 0.3, "*": 0.05}, or nulls: 0.1 for every column).
	Nulls map[string]float64

	// NullsAs says how those missing values are written: as null (nulls_as: null, the
	// default: a tombstone cell, what a driver sends for a nil bound value) or left unset
	// (nulls_as: unset: nothing is written).
	NullsAs NullMode

	// TTL is the time to live of every write (ttl: 30d; ttl: 0 for none); nil = the table's
	// default_time_to_live.
	TTL *time.Duration

	// TTLMix is the share of rows written with each TTL when there is more than one
	// (ttl_mix: {1h: 0.3, 1d: 0.5, none: 0.2}; none or 0 for rows written without one).
	// Cassandra writes each row's TTL and expiry time as deltas from its sstable's smallest,
	// so TTLs far apart cost bytes one TTL does not; TTL still says how long rows live.
	TTLMix map[time.Duration]float64

	// Deletes are the deletes issued against each partition
	// (deletes: [{kind: row, rate: 5/day}, {kind: range, per_partition: 2, rows: 500}]).
	Deletes []Delete

	// Overwrites is how often a whole non-frozen collection is replaced, per partition key
	// (overwrites: {tags: 1/day} for SET tags = {...}): each replacement writes a collection
	// tombstone first.
	Overwrites map[string]Rate

	// ElementWrites are the non-frozen collections written element by element (UPDATE ...
	// SET reactions[k] = v, or tags = tags + {...}), each with the share of its elements so
	// written, apart from their row: such an element carries its own timestamp (and TTL)
	// where one an INSERT wrote borrows the row's. A share of 1 (element_writes: [reactions])
	// is a collection written element by element only: no INSERT or SET c = {...} replaces it
	// whole, so no write of its puts a collection tombstone (complex deletion) before its
	// elements, even under writes: insert. A share below 1 (element_writes: {prefs: 0.3}) is
	// one written whole as writes: says and then grown element by element.
	ElementWrites map[string]float64

	// Skew is how writes spread over partition keys: uniform (skew: uniform), or Zipf with
	// exponent S (skew: {zipf: 1.1}): the key of rank k gets a share proportional to 1/k^S of
	// all writes, a celebrity or a trending hashtag. The rates and row counts are then the
	// average key's. max_rate caps any one key's write rate (skew: {zipf: 1.1, max_rate:
	// 10/s}): see Skew.MaxRate.
	Skew Skew

	// WriteSpread is the span of write times in the sstable that holds a partition
	// (write_spread: 1h): Cassandra stores timestamps as deltas from the sstable's oldest, so a
	// wider spread costs more bytes per row (3 bytes within a second, 5 within an hour, 6
	// within a day). Zero = the TWCS window when the table uses TWCS, else one day.
	WriteSpread time.Duration

	// Writes says whether rows are written with INSERT (writes: insert, the default) or UPDATE
	// (writes: update). An UPDATE writes no row marker (primary key liveness), so a row's
	// cells carry their own timestamps. Counter tables are always written by UPDATE.
	Writes WriteKind

	// CompressionRatio is Data.db's compressed size over its uncompressed size
	// (compression_ratio: 0.42), as `cqlsize profile` measures it with the table's own
	// compressor; 0 = not known: the estimate shows uncompressed bytes only.
	CompressionRatio float64

	// ExpiredRows is how many rows a partition holds whose TTL has run out (expired_rows:
	// 8), as `cqlsize profile` infers them from the tombstones traced reads pass in a table
	// written with a TTL. Cassandra keeps such a row until gc_grace_seconds pass and a
	// compaction purges it; compaction turns its cells into tombstones (no value) and keeps
	// its primary key liveness. They are apart from the rows_per_partition live rows.
	ExpiredRows float64
	// ExpiredTTL is the TTL the expired rows were written with, when shorter than the table's
	// (expired_ttl: 1m): the sstable's minimum TTL, which every live row's TTL is written as a
	// delta from. Zero: the table's TTL.
	ExpiredTTL time.Duration

	// Pos is where the table's entry starts in the workload file; Fields maps a field path
	// ("rows_per_partition", "avg.content", "deletes[0].kind") to where it was written, so a
	// later check (a column that does not exist) can point at the line.
	Pos    cql.Pos
	Fields map[string]cql.Pos
}

// FieldPos returns where a field of the table entry was written, or the entry itself.
func (t *TableWorkload) FieldPos(path string) cql.Pos {
	if p, ok := t.Fields[path]; ok {
		return p
	}
	return t.Pos
}

// NullFraction is the fraction of writes that leave col without a value: its own entry
// under nulls, else the "*" entry.
func (t *TableWorkload) NullFraction(col string) float64 {
	if f, ok := t.Nulls[col]; ok {
		return f
	}
	return t.Nulls["*"]
}

// Items describes the elements of one collection column.
type Items struct {
	Count   float64 // average elements per collection
	Size    float64 // bytes of a list or set element, or of a map value (0 = type's fixed size or Avg)
	KeySize float64 // bytes of a map key (0 = the key type's fixed size or the default)
}

// NullMode is how an application writes a missing value.
type NullMode int

const (
	// NullTombstone: the value is bound as null, which writes a tombstone cell.
	NullTombstone NullMode = iota
	// NullUnset: the value is left unset (or the column is left out), which writes nothing.
	NullUnset
)

func (m NullMode) String() string {
	if m == NullUnset {
		return "unset"
	}
	return "null"
}

// WriteKind is the statement that writes rows.
type WriteKind int

const (
	// Insert writes with INSERT: each row carries a row marker with its timestamp.
	Insert WriteKind = iota
	// Update writes with UPDATE: no row marker; every cell carries its own timestamp.
	Update
)

func (k WriteKind) String() string {
	if k == Update {
		return "update"
	}
	return "insert"
}

// SkewKind names a distribution of writes over partition keys.
type SkewKind int

const (
	// Uniform: every partition key gets the same share.
	Uniform SkewKind = iota
	// Zipf: the key of rank k gets a share proportional to 1/k^S.
	Zipf
)

// Skew is how writes spread over partition keys.
type Skew struct {
	Kind SkewKind
	S    float64 // Zipf exponent (> 0); 1.0-1.2 is typical of social data

	// MaxRate caps the rate of every key (skew: {zipf: 1.1, max_rate: 10/s}): a truncated
	// distribution, for an application that enforces "no key gets more than 10 writes a
	// second" (a rate limiter per chat, per device, per tenant). The excess is not written:
	// a limiter rejects or drops it, and the writes of one key (a message to one chat) cannot
	// move to another, so the capped keys lose their excess and the table's total drops
	// (Estimate.Mean and TotalBytes count the truncated mean). Spreading the excess over the
	// other keys would invent writes no key receives. Zero = no cap. It applies to write_rate
	// (and to the deletes that scale with it); a workload declaring rows_per_partition has no
	// rate to cap and is refused.
	MaxRate Rate
}

func (s Skew) String() string {
	out := "uniform"
	if s.Kind == Zipf {
		out = "zipf " + FormatNumber(s.S)
	}
	if !s.MaxRate.IsZero() {
		out += ", at most " + s.MaxRate.String() + " a key"
	}
	return out
}

// DeleteKind is what a DELETE removes.
type DeleteKind int

const (
	// DeletePartition removes a whole partition (DELETE FROM t WHERE pk = ?).
	DeletePartition DeleteKind = iota
	// DeleteRow removes one row (DELETE FROM t WHERE pk = ? AND ck = ?).
	DeleteRow
	// DeleteRange removes a slice of rows (DELETE ... WHERE pk = ? AND ck < ?): two range markers.
	DeleteRange
	// DeleteCell removes one column of a row (DELETE col FROM t WHERE ...).
	DeleteCell
	// DeleteElement removes one element of a non-frozen collection (SET tags = tags - {'x'}).
	DeleteElement
)

var deleteKindNames = [...]string{"partition", "row", "range", "cell", "element"}

func (k DeleteKind) String() string {
	if k < 0 || int(k) >= len(deleteKindNames) {
		return fmt.Sprintf("DeleteKind(%d)", int(k))
	}
	return deleteKindNames[k]
}

// Delete is one kind of delete a partition receives.
type Delete struct {
	Kind DeleteKind
	// Rate is how many such deletes each partition key receives per span of time; or
	// PerPartition, how many over a partition's life. For DeletePartition, the fraction of
	// partitions deleted is PerPartition (0..1) or Rate × the partition's life.
	Rate         Rate
	PerPartition float64
	// Rows is how many rows one range delete covers (DeleteRange only; default 1).
	Rows float64
	// Column is the column a cell or element delete targets.
	Column string
	// At is where the deleted rows sit in the partition's clustering order: one of
	// DeletePlacements ("head": the start of the clustering order, where a read that does
	// not reverse it starts, as a queue consumed from the front; "tail": its end; "spread":
	// anywhere; "oldest"/"newest": by write time). "" leaves it to the reader (estimate's
	// --deletes-at).
	At  string
	Pos cql.Pos
}

// DeletePlacements are the values a delete's At takes.
var DeletePlacements = []string{"spread", "head", "tail", "oldest", "newest"}

// Count is how many of these deletes a partition receives over a life of d.
func (d Delete) Count(life time.Duration) float64 {
	if !d.Rate.IsZero() {
		return d.Rate.Over(life)
	}
	return d.PerPartition
}
