package disk

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cqlsize/cqlsize/cql"
)

// Sizes of the sstable's small components, measured on a Cassandra 5.0.9 node
// (TestPredictMatchesNode reports Statistics.db): Statistics.db is about 5 KB of metadata and
// histograms plus the key cardinality estimate, a HyperLogLog++ that grows about 2.6 bytes a
// key while sparse and stays near 5.5 KB once dense; Digest.crc32 is a decimal CRC; TOC.txt
// lists the components (CRC.db in place of CompressionInfo.db when uncompressed).
const (
	statisticsBase     = 4990
	statisticsPerKey   = 2.6
	statisticsHLLDense = 5500
	digestBytes        = 10
	tocBytes           = 92
	tocBytesNoCompress = 80
	// columnIndexSize is column_index_size: a partition larger than this carries a row index
	// in Index.db, one entry per block of this many bytes.
	columnIndexSize = 64 * 1024
	// minIndexInterval is the table default min_index_interval: Summary.db keeps every 128th key.
	minIndexInterval = 128
	// crcChunk is the chunk an uncompressed Data.db is checksummed by in CRC.db.
	crcChunk = 64 * 1024
)

// Predict lays the sample out as one Data.db of table t, compresses it in chunks with c and
// returns its size with the other components of that sstable. Partitions are written in the
// order given (Cassandra orders them by token; sample them in token order, as a token-range
// walk does) and rows in the order given (clustering order, as reads return them).
func Predict(t *cql.Table, sample []Partition, c Compression) (*Prediction, error) {
	l, err := newLayout(t)
	if err != nil {
		return nil, fmt.Errorf("predict disk size: %w", err)
	}
	if len(sample) == 0 {
		return nil, fmt.Errorf("predict disk size of %s: no sampled partitions", t.QualifiedName())
	}
	comp, err := newCompressor(c)
	if err != nil {
		return nil, fmt.Errorf("predict disk size of %s: %w", t.QualifiedName(), err)
	}
	seenReg, seenStatic := map[string]bool{}, map[string]bool{}
	parts := make([]partition, len(sample))
	rows := 0
	for i, p := range sample {
		if parts[i], err = l.convert(i, p, seenReg, seenStatic); err != nil {
			return nil, fmt.Errorf("predict disk size of %s: %w", t.QualifiedName(), err)
		}
		rows += len(p.Rows)
	}
	l.regular = l.headerColumns(seenReg)
	l.static = l.headerColumns(seenStatic)
	l.collectStats(parts)

	var data []byte
	starts := make([]int, len(parts)+1)
	var index float64
	var keyBytes float64
	for i := range parts {
		starts[i] = len(data)
		data = l.writePartition(data, &parts[i])
		size := len(data) - starts[i]
		index += float64(2+len(parts[i].key)+vintSize(uint64(starts[i]))) + l.promotedIndex(size, parts[i])
		keyBytes += float64(len(parts[i].key))
	}
	starts[len(parts)] = len(data)

	p := &Prediction{
		Partitions: len(parts), Rows: rows, Uncompressed: float64(len(data)), Compression: c,
		PerPartition:      make([]PartitionSize, len(parts)),
		indexPerPartition: index / float64(len(parts)), keyBytes: keyBytes / float64(len(parts)),
		fpChance: fpChance(t),
	}
	for i := range parts {
		p.PerPartition[i].Uncompressed = int64(starts[i+1] - starts[i])
	}
	if !c.Enabled {
		p.Compressed = p.Uncompressed
		for i := range p.PerPartition {
			p.PerPartition[i].Compressed = float64(p.PerPartition[i].Uncompressed)
		}
	} else {
		chunkLen, maxLen := c.chunkLength(), c.maxCompressedLength()
		for off := 0; off < len(data); off += chunkLen {
			end := min(off+chunkLen, len(data))
			n, err := comp.compressedLen(data[off:end])
			if err != nil {
				return nil, fmt.Errorf("predict disk size of %s: chunk %d: %w", t.QualifiedName(), p.Chunks, err)
			}
			// A chunk that does not compress below chunk/min_compress_ratio is kept as is
			// (padded to that length when shorter, which only the last chunk can be).
			if n >= maxLen {
				n = max(end-off, maxLen)
			}
			onDisk := float64(n + 4) // the chunk's checksum follows it
			p.Compressed += onDisk
			p.Chunks++
			// Share the chunk among the partitions it holds, by their bytes in it.
			for i := partitionAt(starts, off); i < len(parts) && starts[i] < end; i++ {
				overlap := min(end, starts[i+1]) - max(off, starts[i])
				p.PerPartition[i].Compressed += onDisk * float64(overlap) / float64(end-off)
			}
		}
	}
	if p.Uncompressed > 0 {
		p.Ratio = p.Compressed / p.Uncompressed
	}
	p.Components = p.components(float64(len(parts)), p.Uncompressed, p.Compressed, index)
	return p, nil
}

// partitionAt is the index of the partition holding byte off.
func partitionAt(starts []int, off int) int {
	lo, hi := 0, len(starts)-2
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// promotedIndex is the row index Index.db carries for a partition over column_index_size
// (RowIndexEntry, IndexInfo): a header (vint size, deletion time, block count) and per block
// its first and last clustering (a kind byte, then the clustering as rows write it), vint
// offset, signed vint width less 64 KiB, an open-marker flag, and a 4-byte offset.
func (l *layout) promotedIndex(size int, p partition) float64 {
	if size <= columnIndexSize || len(p.rows) == 0 {
		return 1 // vint 0: no row index
	}
	blocks := float64((size + columnIndexSize - 1) / columnIndexSize)
	name := float64(1 + len(l.writeClustering(nil, p.rows[0].clustering)))
	perBlock := 2*name + float64(vintSize(uint64(size/2))) + 2 + 1 + 4
	body := 12 + float64(vintSize(uint64(blocks))) + blocks*perBlock
	return float64(vintSize(uint64(body))) + body
}

// fpChance is the table's bloom_filter_fp_chance: 0.01 by default, 0.1 with LCS.
func fpChance(t *cql.Table) float64 {
	if v, ok := t.Options.Raw["bloom_filter_fp_chance"]; ok {
		switch x := v.(type) {
		case float64:
			return x
		case string:
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return f
			}
		}
	}
	if t.Options.CompactionClass() == "LeveledCompactionStrategy" {
		return 0.1
	}
	return 0.01
}

// bloomBytes is Filter.db for n keys (FilterFactory, BloomCalculations): the fewest buckets
// per key whose best hash count reaches the false-positive chance, 20 spare bits, in 64-bit
// words, after an int hash count and an int word count.
func bloomBytes(n, fp float64) float64 {
	if n <= 0 {
		return 0
	}
	if fp >= 1 {
		return 0 // bloom_filter_fp_chance 1 disables the filter: an empty one
	}
	buckets := 20.0
	for b := 2.0; b <= 20; b++ {
		best := 1.0
		for k := 1.0; k <= 2*b; k++ {
			best = math.Min(best, math.Pow(1-math.Exp(-k/b), k))
		}
		if best <= fp {
			buckets = b
			break
		}
	}
	words := math.Ceil((n*buckets + 20) / 64)
	return 8 + 8*words
}

// summaryBytes is Summary.db for n keys of keyBytes each: a 24-byte header, every 128th key
// with its index position and a 4-byte offset, then the first and last keys.
func summaryBytes(n, keyBytes float64) float64 {
	if n <= 0 {
		return 0
	}
	entries := math.Ceil(n / minIndexInterval)
	return 24 + entries*(4+keyBytes+8) + 2*(4+keyBytes)
}

// statisticsBytes is Statistics.db for n keys.
func statisticsBytes(n float64) float64 {
	return statisticsBase + math.Min(statisticsPerKey*n, statisticsHLLDense)
}

// compressionInfoBytes is CompressionInfo.db: the compressor's class name and options, chunk
// length, maximum compressed length, data length, chunk count, and 8 bytes a chunk.
func compressionInfoBytes(c Compression, chunks float64) float64 {
	name := float64(2 + len("org.apache.cassandra.io.compress.") + len(c.Class))
	opts := 4.0
	switch {
	case c.Class == "ZstdCompressor":
		opts += 2 + float64(len("compression_level")) + 2 + float64(len(strconv.Itoa(c.Level)))
	case c.Class == "LZ4Compressor" && c.LZ4High:
		opts += 2 + float64(len("lz4_compressor_type")) + 2 + 4 + 2 + float64(len("lz4_high_compressor_level")) + 2 + float64(len(strconv.Itoa(c.Level)))
	}
	return name + opts + 4 + 4 + 8 + 4 + 8*chunks
}

// components is every component of one sstable holding n partitions.
func (p *Prediction) components(n, uncompressed, compressed, index float64) Components {
	c := Components{
		Data:    compressed,
		Index:   index,
		Filter:  bloomBytes(n, p.fpChance),
		Summary: summaryBytes(n, p.keyBytes),
		Other:   statisticsBytes(n) + digestBytes,
	}
	if p.Compression.Enabled {
		c.CompressionInfo = compressionInfoBytes(p.Compression, math.Ceil(uncompressed/float64(p.Compression.chunkLength())))
		c.Other += tocBytes
	} else {
		c.Other += tocBytesNoCompress + 4 + 4*math.Ceil(uncompressed/crcChunk) // CRC.db: chunk size, a CRC a chunk
	}
	return c
}

// Scale predicts the table's size on one replica from the sample: the sample's bytes per
// partition (Data.db compressed as the sample compressed, Index.db) times partitions, and
// the filter, summary and offsets that count keys and chunks, as one sstable. Data spread
// over several sstables adds a Statistics.db, a summary and a filter's spare bits for each.
func (p *Prediction) Scale(partitions float64) Estimate {
	if p == nil || p.Partitions == 0 || !(partitions > 0) {
		return Estimate{}
	}
	k := partitions / float64(p.Partitions)
	unc := p.Uncompressed * k
	// An index entry's position grows with the file: re-price its vint for the whole table.
	idxKey := p.indexPerPartition - float64(vintSize(uint64(p.Uncompressed/2)))
	index := partitions * (idxKey + float64(vintSize(uint64(unc/2))))
	e := Estimate{Partitions: partitions, Uncompressed: unc}
	e.Components = p.components(partitions, unc, p.Compressed*k, index)
	e.Total = e.Components.Total()
	return e
}
