// Package lz4block writes LZ4 blocks with the same choices as the reference liblz4
// compressors Cassandra runs through lz4-java: the fast compressor (LZ4_compress_default)
// for LZ4Compressor's default, and the high-compression hash-chain compressor
// (LZ4_compress_HC, levels 3 to 9; 9 is lz4_high_compressor_level's default) for
// lz4_compressor_type: high, so that a predicted chunk has the node's compressed length to
// the byte. It follows the LZ4 block format and the reference algorithms' rules (hash table
// sizes and hashes for inputs under and over 64 KiB, the accelerating fast search, the
// backward extension of a match, HC's chain of 16-bit distances, its look-ahead over three
// overlapping matches and its jumps over runs of a repeated pattern, the last-literals and
// match-start limits at the end of a block); pierrec/lz4, which finds other matches, is
// kept only as an independent decoder in the tests.
package lz4block
