package disk

import (
	"strings"
	"testing"
)

func TestCompressionFromOptions(t *testing.T) {
	for _, c := range []struct {
		opts    map[string]string
		want    Compression
		wantErr string
	}{
		{opts: nil, want: Compression{Class: "LZ4Compressor", ChunkLengthKB: 16, Enabled: true}},
		{opts: map[string]string{"class": "org.apache.cassandra.io.compress.LZ4Compressor", "chunk_length_in_kb": "64"},
			want: Compression{Class: "LZ4Compressor", ChunkLengthKB: 64, Enabled: true}},
		{opts: map[string]string{"class": "LZ4Compressor", "lz4_compressor_type": "high", "lz4_high_compressor_level": "12"},
			want: Compression{Class: "LZ4Compressor", ChunkLengthKB: 16, LZ4High: true, Level: 12, Enabled: true}},
		{opts: map[string]string{"class": "org.apache.cassandra.io.compress.ZstdCompressor"},
			want: Compression{Class: "ZstdCompressor", ChunkLengthKB: 16, Level: 3, Enabled: true}},
		{opts: map[string]string{"class": "ZstdCompressor", "compression_level": "-5"},
			want: Compression{Class: "ZstdCompressor", ChunkLengthKB: 16, Level: -5, Enabled: true}},
		{opts: map[string]string{"class": "DeflateCompressor", "min_compress_ratio": "1.1"},
			want: Compression{Class: "DeflateCompressor", ChunkLengthKB: 16, MinCompressRatio: 1.1, Enabled: true}},
		{opts: map[string]string{"sstable_compression": "SnappyCompressor", "chunk_length_kb": "4"},
			want: Compression{Class: "SnappyCompressor", ChunkLengthKB: 4, Enabled: true}},
		{opts: map[string]string{"enabled": "false"}, want: Compression{Class: "NoopCompressor", ChunkLengthKB: 16}},
		{opts: map[string]string{"class": "NoopCompressor"}, want: Compression{Class: "NoopCompressor", ChunkLengthKB: 16, Enabled: true}},
		{opts: map[string]string{"class": "GzipCompressor"}, wantErr: "not one Cassandra 5.0 ships"},
		{opts: map[string]string{"chunk_length_in_kb": "16"}, wantErr: "no class"},
		{opts: map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "12"}, wantErr: "power of 2"},
		{opts: map[string]string{"class": "LZ4Compressor", "min_compress_ratio": "0.5"}, wantErr: "at least 1"},
		{opts: map[string]string{"class": "ZstdCompressor", "compression_level": "30"}, wantErr: "-131072 to 22"},
	} {
		got, err := CompressionFromOptions(c.opts)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("CompressionFromOptions(%v) error %v, want one saying %q", c.opts, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("CompressionFromOptions(%v) = %+v, %v; want %+v", c.opts, got, err, c.want)
		}
	}
}

func TestMaxCompressedLength(t *testing.T) {
	for _, c := range []struct {
		ratio float64
		kb    int
		want  int
	}{
		{0, 16, 1<<31 - 1},
		{1, 16, 16384},
		{1.1, 16, 14895}, // ceil(16384/1.1)
		{2, 64, 32768},
	} {
		if got := (Compression{ChunkLengthKB: c.kb, MinCompressRatio: c.ratio}).maxCompressedLength(); got != c.want {
			t.Errorf("maxCompressedLength(%d KiB, ratio %v) = %d, want %d", c.kb, c.ratio, got, c.want)
		}
	}
}
