package disk

// vintSize is the length of Cassandra's unsigned vint (VIntCoding.computeUnsignedVIntSize):
// 7 bits a byte up to 8 bytes, 9 beyond.
func vintSize(v uint64) int {
	for k := 1; k <= 8; k++ {
		if v < 1<<(7*k) {
			return k
		}
	}
	return 9
}

// appendVInt appends v as Cassandra's unsigned vint (VIntCoding.writeUnsignedVInt): the first
// byte starts with one 1-bit for every byte that follows, then the value big-endian.
func appendVInt(b []byte, v uint64) []byte {
	n := vintSize(v)
	if n == 1 {
		return append(b, byte(v))
	}
	if n == 9 {
		b = append(b, 0xFF)
		for i := 7; i >= 0; i-- {
			b = append(b, byte(v>>(8*i)))
		}
		return b
	}
	start := len(b)
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(v>>(8*i)))
	}
	b[start] |= ^byte(0xFF >> (n - 1))
	return b
}
