package disk_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/cqlsize/cqlsize/internal/accuracy"
	"github.com/cqlsize/cqlsize/internal/lz4block"
	"github.com/cqlsize/cqlsize/sizing/disk"
)

// chunkStats is one table's chunks beside the node's.
type chunkStats struct {
	chunks, sameLen, sameBytes int
	node, model                int64 // compressed bytes, checksums left out
	class                      string
}

var wantClass = map[string]string{"lz4": "LZ4Compressor", "lz4high": "LZ4Compressor", "zstd": "ZstdCompressor", "snappy": "SnappyCompressor", "deflate": "DeflateCompressor"}

// checkChunks reports every table's chunks against the node's (-v) and requires each LZ4
// chunk, fast and high, to be the node's byte for byte. The chunks were taken out of Data.db
// (CompressionInfo.db gives where each starts; each is followed by a 4-byte checksum),
// decompressed by an independent decoder and compressed again as Predict compresses them;
// for Snappy, Deflate and Zstd the table says how many came out at the node's length.
func checkChunks(t *testing.T, results []nodeResult) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "| shape | compressor | chunks | same length | same bytes | node bytes | model bytes | error |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		st := r.chunks
		if r.compressor == "none" {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %+.2f%% |\n", r.shape, r.compressor, st.chunks, st.sameLen, st.sameBytes,
			st.node, st.model, pct(float64(st.model), float64(st.node)))
		if st.chunks == 0 {
			t.Errorf("%s: no compressed chunks in Data.db", r.table)
		}
		if st.class != wantClass[r.compressor] {
			t.Errorf("%s: the sstable is compressed with %s, want %s", r.table, st.class, wantClass[r.compressor])
		}
		if (r.compressor == "lz4" || r.compressor == "lz4high") && st.sameBytes != st.chunks {
			t.Errorf("%s: %d of %d LZ4 chunks are the node's byte for byte (%d the node's length)", r.table, st.sameBytes, st.chunks, st.sameLen)
		}
	}
	t.Logf("chunks against the node's:\n%s", b.String())
}

// compareChunks goes through every compressed chunk of every sstable in a table directory.
func compareChunks(dir string, comp disk.Compression) (chunkStats, error) {
	var st chunkStats
	infos, err := filepath.Glob(filepath.Join(dir, "*-CompressionInfo.db"))
	if err != nil || len(infos) == 0 {
		return st, fmt.Errorf("no CompressionInfo.db in %s (%v)", dir, err)
	}
	var enc lz4block.Compressor
	var hc lz4block.HCCompressor
	for _, path := range infos {
		ci, err := accuracy.ReadCompressionInfo(path)
		if err != nil {
			return st, err
		}
		st.class = ci.Compressor
		data, err := os.ReadFile(strings.TrimSuffix(path, "CompressionInfo.db") + "Data.db")
		if err != nil {
			return st, err
		}
		var plainTotal int64
		for i, off := range ci.Offsets {
			end := int64(len(data))
			if i+1 < len(ci.Offsets) {
				end = ci.Offsets[i+1]
			}
			if end-4 < off {
				return st, fmt.Errorf("%s chunk %d: offsets %d to %d leave no room for its checksum", filepath.Base(path), i, off, end)
			}
			chunk := data[off : end-4] // the 4-byte checksum follows each chunk
			// Chunks hold chunk_length_in_kb each but the last; a compaction may end Data.db
			// with one more, empty, chunk.
			plain, err := decompress(ci.Compressor, chunk, ci.ChunkLength)
			if err != nil {
				return st, fmt.Errorf("%s chunk %d of %d (bytes %d to %d of a %d-byte Data.db): %w", filepath.Base(path), i, len(ci.Offsets), off, end, len(data), err)
			}
			plainTotal += int64(len(plain))
			n, err := disk.CompressedChunkLen(comp, plain)
			if err != nil {
				return st, err
			}
			st.chunks++
			st.node += int64(len(chunk))
			st.model += int64(n)
			if n == len(chunk) {
				st.sameLen++
			}
			if ci.Compressor == "LZ4Compressor" {
				block := binary.LittleEndian.AppendUint32(nil, uint32(len(plain)))
				if comp.LZ4High {
					block = hc.CompressBlockHC(block, plain, comp.Level)
				} else {
					block = enc.CompressBlock(block, plain)
				}
				if bytes.Equal(block, chunk) {
					st.sameBytes++
				}
			}
		}
		if plainTotal != ci.DataLength {
			return st, fmt.Errorf("%s: chunks decompress to %d bytes, CompressionInfo.db says %d", filepath.Base(path), plainTotal, ci.DataLength)
		}
	}
	return st, nil
}

// decompress undoes one chunk with a decoder that shares nothing with the compressors under
// test, and checks it comes back no longer than a chunk.
func decompress(class string, chunk []byte, chunkLength int) ([]byte, error) {
	var out []byte
	var err error
	if len(chunk) == 0 { // how Deflate ends Data.db with an empty chunk
		return nil, nil
	}
	switch class {
	case "LZ4Compressor": // the uncompressed length (little-endian), then one LZ4 block
		if len(chunk) < 4 || binary.LittleEndian.Uint32(chunk) > uint32(chunkLength) {
			return nil, fmt.Errorf("LZ4 chunk does not start with a length up to %d", chunkLength)
		}
		out = make([]byte, binary.LittleEndian.Uint32(chunk))
		var n int
		if n, err = lz4.UncompressBlock(chunk[4:], out); err == nil && n != len(out) {
			err = fmt.Errorf("LZ4 block decompressed to %d bytes, its header says %d", n, len(out))
		}
	case "SnappyCompressor":
		out, err = snappy.Decode(nil, chunk)
	case "DeflateCompressor":
		var r io.ReadCloser
		if r, err = zlib.NewReader(bytes.NewReader(chunk)); err == nil {
			out, err = io.ReadAll(r)
		}
	case "ZstdCompressor":
		var d *zstd.Decoder
		if d, err = zstd.NewReader(nil); err == nil {
			out, err = d.DecodeAll(chunk, nil)
			d.Close()
		}
	default:
		return nil, fmt.Errorf("compressor %q: no decoder here", class)
	}
	if err == nil && len(out) > chunkLength {
		err = fmt.Errorf("decompressed to %d bytes, over the chunk length %d", len(out), chunkLength)
	}
	return out, err
}
