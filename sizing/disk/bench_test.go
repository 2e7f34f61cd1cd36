package disk

import (
	"fmt"
	"testing"
)

// BenchmarkPredict lays out and compresses 10,000 single-row partitions (about 300 KB of
// Data.db) with each compressor.
func BenchmarkPredict(b *testing.B) {
	tb := table(b, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	sample := textSample(10000, func(i int) string { return fmt.Sprintf("order %d shipped to customer %d", i, i%97) })
	for _, class := range []string{"LZ4Compressor", "LZ4Compressor/high", "ZstdCompressor", "SnappyCompressor", "DeflateCompressor"} {
		b.Run(class, func(b *testing.B) {
			c := Compression{Class: class, ChunkLengthKB: 16, Level: 3, Enabled: true}
			if class == "LZ4Compressor/high" {
				c = Compression{Class: "LZ4Compressor", LZ4High: true, ChunkLengthKB: 16, Level: 9, Enabled: true}
			}
			for i := 0; i < b.N; i++ {
				if _, err := Predict(tb, sample, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
