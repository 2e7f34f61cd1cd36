package disk

// CompressedChunkLen is the compressed length Predict gives one chunk under c, for the test
// that compares it chunk by chunk with what the node wrote.
func CompressedChunkLen(c Compression, chunk []byte) (int, error) {
	comp, err := newCompressor(c)
	if err != nil {
		return 0, err
	}
	return comp.compressedLen(chunk)
}
