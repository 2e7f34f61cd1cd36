// Package lz4block writes LZ4 blocks with the same choices as the reference liblz4
// compressors Cassandra runs through lz4-java: the fast compressor (LZ4_compress_default)
// for LZ4Compressor's default, so that a predicted chunk has the node's compressed length to
// the byte. It follows the LZ4 block format and the reference algorithm's documented rules
// (hash table size and hash for inputs under and over 64 KiB, the accelerating search, the
// backward extension of a match, the last-literals and match-start limits at the end of a
// block); pierrec/lz4, which finds other matches, is kept only as an independent decoder
// in the tests.
package lz4block
