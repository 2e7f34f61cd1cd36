package disk

// Cell is one column value of a sampled row as the native protocol carries it (what the
// driver receives). A multi-cell column (a non-frozen collection or UDT) carries the whole
// collection in the protocol's encoding; Predict splits it into one cell per element, as
// Cassandra stores it.
type Cell struct {
	Value     []byte
	Null      bool  // a tombstone cell (null bound in a write); for a collection, a deletion with no elements
	Timestamp int64 // write time in microseconds (WRITETIME)
	// TTL in seconds, 0 = none: the TTL the write set. TTL() returns what remains; passing
	// that shifts the cell's expiry time by the time since the write, which moves its delta
	// by a byte at most.
	TTL int32
	// Appended says a non-frozen collection was only ever appended to (col = col + ...), so it
	// carries no whole-collection deletion. By default a collection is taken to be written whole
	// (INSERT or SET col = ...), which writes a deletion at timestamp-1 first.
	Appended bool
	// ElementTimestamps are a multi-cell column's element write times in the value's element
	// order, as WRITETIME(col) reads them (Cassandra 5.0), when elements were written apart
	// from the whole value (SET m[k] = v after an INSERT); nil or of another length: every
	// element at Timestamp. Timestamp stays the whole write's time, which its deletion follows.
	ElementTimestamps []int64
	// Expired says the cell's TTL has run out (TTL is the one it was written with): compaction
	// wrote it as a tombstone deleted at its write time, with no value. The sstable's
	// minimums are still taken from the expiring cell it was (its TTL and expiry), as
	// compaction takes them from the statistics of the sstables it reads, so the tombstone's
	// deletion time lies TTL before them.
	Expired bool
}

// Row is one sampled row: its clustering values and its cells keyed by column name. A
// missing key is an unset column (no cell).
type Row struct {
	Clustering [][]byte
	Cells      map[string]Cell
	// Update says the row was written by UPDATE only, so it has no row marker (primary key
	// liveness). By default a row is taken to come from an INSERT.
	Update bool
	// Marker is the row marker's timestamp and TTL when known (its Value is ignored); nil
	// derives it from the cells: the earliest cell's timestamp and TTL.
	Marker *Cell
	// Deleted is the timestamp in microseconds of a DELETE of the row, whose tombstone stays
	// until gc_grace_seconds pass and compaction purges it; 0: not deleted. A deleted row
	// carries no cell and no marker (compaction removed what the delete shadows).
	Deleted int64
}

// Partition is one sampled partition: its key components, its static row (nil when it has
// none) and its rows in clustering order.
type Partition struct {
	Key    [][]byte
	Static *Row
	Rows   []Row
}

// Compression is a table's compression option as Predict uses it.
type Compression struct {
	Class         string // short name: LZ4Compressor, ZstdCompressor, SnappyCompressor, DeflateCompressor, NoopCompressor
	ChunkLengthKB int    // chunk_length_in_kb (16 when unset)
	Level         int    // ZstdCompressor compression_level (3), LZ4 lz4_high_compressor_level (9)
	LZ4High       bool   // lz4_compressor_type: high
	// MinCompressRatio is min_compress_ratio: a chunk that does not compress below
	// chunk/ratio is stored as is. 0 (the default) never stores a chunk uncompressed.
	MinCompressRatio float64
	Enabled          bool // false: Data.db is written uncompressed (enabled: false)
}

// PartitionSize is one sampled partition's Data.db bytes: uncompressed, and its share of
// the compressed chunks it spans (each chunk's compressed bytes and checksum split by the
// uncompressed bytes of it the partition holds).
type PartitionSize struct {
	Uncompressed int64
	Compressed   float64
}

// Components are the bytes of each sstable component, as files on disk. "Space used (live)"
// in nodetool tablestats is their sum over the live sstables.
type Components struct {
	Data            float64 // Data.db: compressed chunks and their 4-byte checksums
	Index           float64 // Index.db: a key, position and row index size per partition
	Filter          float64 // Filter.db: the bloom filter
	Summary         float64 // Summary.db: every 128th key of the index
	CompressionInfo float64 // CompressionInfo.db: header and 8 bytes a chunk
	Other           float64 // Statistics.db, Digest.crc32, TOC.txt, and CRC.db when uncompressed
}

// Total is the sum of every component.
func (c Components) Total() float64 {
	return c.Data + c.Index + c.Filter + c.Summary + c.CompressionInfo + c.Other
}

// Prediction is what the sample costs on disk as one sstable.
type Prediction struct {
	Partitions   int
	Rows         int
	Uncompressed float64 // Data.db bytes before compression
	Compressed   float64 // Data.db bytes on disk: compressed chunks + 4-byte checksum each
	Chunks       int
	PerPartition []PartitionSize // in sample order
	Ratio        float64         // Compressed / Uncompressed
	Components   Components      // every component of the sample's sstable
	Compression  Compression

	indexPerPartition float64 // Index.db bytes per partition in the sample
	keyBytes          float64 // average partition key bytes, for the summary
	fpChance          float64
}

// Estimate is the on-disk size of a whole table predicted from a sample.
type Estimate struct {
	Partitions   float64
	Uncompressed float64 // Data.db before compression
	Components   Components
	Total        float64 // what nodetool tablestats calls "Space used (live)" on one replica, as one sstable
}
