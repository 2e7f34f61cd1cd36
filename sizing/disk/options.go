package disk

import (
	"fmt"
	"strconv"
	"strings"
)

// Cassandra 5.0's defaults (CompressionParams): LZ4 in 16 KiB chunks, never a chunk stored
// uncompressed (min_compress_ratio 0), zstd level 3, LZ4 high level 9.
const (
	DefaultChunkLengthKB = 16
	defaultZstdLevel     = 3
	defaultLZ4HighLevel  = 9
)

// DefaultCompression is what a table gets when it says nothing about compression.
func DefaultCompression() Compression {
	return Compression{Class: "LZ4Compressor", ChunkLengthKB: DefaultChunkLengthKB, Enabled: true}
}

// CompressionFromOptions reads a table's compression map as system_schema.tables.compression
// holds it (or as WITH compression = {...} writes it). An empty map is Cassandra's default.
func CompressionFromOptions(opts map[string]string) (Compression, error) {
	c := DefaultCompression()
	if len(opts) == 0 {
		return c, nil
	}
	get := func(keys ...string) (string, bool) {
		for _, k := range keys {
			if v, ok := opts[k]; ok {
				return strings.TrimSpace(v), true
			}
		}
		return "", false
	}
	if v, ok := get("enabled"); ok && !strings.EqualFold(v, "true") {
		c.Enabled = false
		c.Class = "NoopCompressor"
		return c, nil
	}
	class, ok := get("class", "sstable_compression")
	if !ok {
		return Compression{}, fmt.Errorf("compression options %v: no class (and compression is not disabled with enabled: false)", opts)
	}
	c.Class = class[strings.LastIndex(class, ".")+1:]
	switch c.Class {
	case "LZ4Compressor", "SnappyCompressor", "DeflateCompressor":
	case "ZstdCompressor":
		c.Level = defaultZstdLevel
	case "NoopCompressor":
	default:
		return Compression{}, fmt.Errorf("compression class %q: not one Cassandra 5.0 ships (LZ4Compressor, ZstdCompressor, SnappyCompressor, DeflateCompressor, NoopCompressor)", class)
	}
	if v, ok := get("chunk_length_in_kb", "chunk_length_kb"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n&(n-1) != 0 || n > 1<<20 {
			return Compression{}, fmt.Errorf("compression chunk_length_in_kb %q: want a power of 2 from 1 to 1048576", v)
		}
		c.ChunkLengthKB = n
	}
	if v, ok := get("min_compress_ratio"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || (f > 0 && f < 1) {
			return Compression{}, fmt.Errorf("compression min_compress_ratio %q: want 0 (off) or at least 1", v)
		}
		c.MinCompressRatio = f
	}
	if c.Class == "LZ4Compressor" {
		if v, ok := get("lz4_compressor_type"); ok {
			switch v {
			case "high":
				c.LZ4High = true
				c.Level = defaultLZ4HighLevel
			case "fast":
			default:
				return Compression{}, fmt.Errorf("compression lz4_compressor_type %q: want high or fast", v)
			}
		}
		if v, ok := get("lz4_high_compressor_level"); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 17 {
				return Compression{}, fmt.Errorf("compression lz4_high_compressor_level %q: want 1 to 17", v)
			}
			c.Level = n
		}
	}
	if c.Class == "ZstdCompressor" {
		if v, ok := get("compression_level"); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < -131072 || n > 22 {
				return Compression{}, fmt.Errorf("compression compression_level %q: want -131072 to 22", v)
			}
			c.Level = n
		}
	}
	if c.Class == "NoopCompressor" {
		// Noop still writes chunks and CompressionInfo.db, each chunk as is.
		c.Enabled = true
	}
	return c, nil
}

// chunkLength is the uncompressed bytes of a chunk.
func (c Compression) chunkLength() int {
	kb := c.ChunkLengthKB
	if kb <= 0 {
		kb = DefaultChunkLengthKB
	}
	return kb * 1024
}

// maxCompressedLength is the largest compressed chunk Cassandra keeps compressed
// (CompressionParams.calcMaxCompressedLength): chunk / min_compress_ratio rounded up, or no
// limit when the ratio is 0.
func (c Compression) maxCompressedLength() int {
	if c.MinCompressRatio <= 0 {
		return 1<<31 - 1
	}
	f := float64(c.chunkLength()) / c.MinCompressRatio
	if f >= 1<<31-1 {
		return 1<<31 - 1
	}
	n := int(f)
	if float64(n) < f {
		n++
	}
	return n
}
