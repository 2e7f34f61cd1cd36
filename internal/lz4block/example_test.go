package lz4block_test

import (
	"fmt"

	"github.com/cqlsize/cqlsize/internal/lz4block"
)

// A Cassandra LZ4 chunk is the 4-byte uncompressed length and the block; the block's length
// is what the node writes for the same 16 KiB (liblz4 1.10.0 gives 5966 and 5303 bytes here).
func ExampleCompressor_CompressBlock() {
	var chunk []byte
	for i := 0; len(chunk) < 16384; i++ {
		chunk = fmt.Appendf(chunk, "user-%06d order %d shipped to city %d;", i*7919%1000003, i, i*i%97)
	}
	chunk = chunk[:16384]
	var c lz4block.Compressor
	var hc lz4block.HCCompressor
	fmt.Println("fast:", len(c.CompressBlock(nil, chunk)))
	fmt.Println("high (level 9):", len(hc.CompressBlockHC(nil, chunk, 9)))
	// Output:
	// fast: 5966
	// high (level 9): 5303
}
