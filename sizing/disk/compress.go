package disk

import (
	"bytes"
	"compress/zlib"
	"fmt"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/cqlsize/cqlsize/internal/lz4block"
)

// compressor returns the compressed length of one chunk as Cassandra's compressor of the
// same name would write it.
type compressor interface {
	compressedLen(chunk []byte) (int, error)
}

func newCompressor(c Compression) (compressor, error) {
	switch c.Class {
	case "LZ4Compressor", "":
		if c.LZ4High {
			return &lz4High{level: c.Level}, nil
		}
		return &lz4Fast{}, nil
	case "ZstdCompressor":
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(c.Level)),
			zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithSingleSegment(true))
		if err != nil {
			return nil, fmt.Errorf("zstd encoder at level %d: %w", c.Level, err)
		}
		return &zstdC{enc: enc}, nil
	case "SnappyCompressor":
		return &snappyC{}, nil
	case "DeflateCompressor":
		return &deflateC{}, nil
	case "NoopCompressor":
		return noop{}, nil
	}
	return nil, fmt.Errorf("compression class %q: not one Cassandra 5.0 ships", c.Class)
}

// lz4Fast is LZ4Compressor's default: a 4-byte little-endian uncompressed length, then the
// LZ4 block liblz4's fast compressor writes (LZ4Compressor.compress through lz4-java's JNI
// binding). lz4block makes the same choices, so the chunk's length is the node's.
type lz4Fast struct {
	c   lz4block.Compressor
	dst []byte
}

func (l *lz4Fast) compressedLen(chunk []byte) (int, error) {
	l.dst = l.c.CompressBlock(l.dst[:0], chunk)
	return 4 + len(l.dst), nil
}

// lz4High is LZ4Compressor with lz4_compressor_type: high: liblz4's HC compressor
// (LZ4_compress_HC) at lz4_high_compressor_level. lz4block writes levels 3 to 9 (9 is the
// default) as liblz4 does; the other levels use liblz4 finders it does not have (the middle
// finder below 3, the optimal parser from 10), for which the Go library's HC at its nearest
// depth stands in.
type lz4High struct {
	level int
	hc    lz4block.HCCompressor
	dst   []byte
}

func (l *lz4High) compressedLen(chunk []byte) (int, error) {
	lv := l.level
	if lv <= 0 {
		lv = defaultLZ4HighLevel
	}
	if lz4block.HCLevelExact(lv) {
		l.dst = l.hc.CompressBlockHC(l.dst[:0], chunk, lv)
		return 4 + len(l.dst), nil
	}
	l.dst = grow(l.dst, lz4.CompressBlockBound(len(chunk)))
	levels := [...]lz4.CompressionLevel{lz4.Level1, lz4.Level1, lz4.Level2, lz4.Level3, lz4.Level4, lz4.Level5, lz4.Level6, lz4.Level7, lz4.Level8, lz4.Level9}
	n, err := lz4.CompressBlockHC(chunk, l.dst, levels[min(lv, 9)], nil, nil)
	if err != nil {
		return 0, fmt.Errorf("lz4 high compress %d bytes: %w", len(chunk), err)
	}
	return 4 + lz4Literal(len(chunk), n), nil
}

// lz4Literal is the block size: the Go library returns 0 for a block it cannot shrink, where
// the Java one writes it as one literal run (a token, the run's length bytes, the bytes).
func lz4Literal(in, n int) int {
	if n > 0 || in == 0 {
		return n
	}
	size := 1 + in
	if in >= 15 {
		size += 1 + (in-15)/255
	}
	return size
}

// zstdC is ZstdCompressor: one zstd frame a chunk (zstd-jni's Zstd.compress), no checksum.
type zstdC struct {
	enc *zstd.Encoder
	dst []byte
}

func (z *zstdC) compressedLen(chunk []byte) (int, error) {
	z.dst = z.enc.EncodeAll(chunk, z.dst[:0])
	return len(z.dst), nil
}

// snappyC is SnappyCompressor: a raw snappy block (its varint length, then the block), as
// snappy-java's native snappy writes it. github.com/golang/snappy is the Go port of that
// same encoder and lands within 1% of the node's chunks; klauspost's snappy-compatible s2
// encoders came out 4-8% larger (default) or 5-10% smaller ("better") on the same data.
type snappyC struct{ dst []byte }

func (s *snappyC) compressedLen(chunk []byte) (int, error) {
	s.dst = grow(s.dst, snappy.MaxEncodedLen(len(chunk)))
	return len(snappy.Encode(s.dst, chunk)), nil
}

// deflateC is DeflateCompressor: java.util.zip.Deflater with its defaults, level 6 with the
// zlib header and Adler-32 trailer.
type deflateC struct {
	buf bytes.Buffer
	w   *zlib.Writer
}

func (d *deflateC) compressedLen(chunk []byte) (int, error) {
	d.buf.Reset()
	if d.w == nil {
		w, err := zlib.NewWriterLevel(&d.buf, 6)
		if err != nil {
			return 0, fmt.Errorf("deflate: %w", err)
		}
		d.w = w
	} else {
		d.w.Reset(&d.buf)
	}
	if _, err := d.w.Write(chunk); err != nil {
		return 0, fmt.Errorf("deflate %d bytes: %w", len(chunk), err)
	}
	if err := d.w.Close(); err != nil {
		return 0, fmt.Errorf("deflate %d bytes: %w", len(chunk), err)
	}
	return d.buf.Len(), nil
}

// noop is NoopCompressor: the chunk as is.
type noop struct{}

func (noop) compressedLen(chunk []byte) (int, error) { return len(chunk), nil }

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
