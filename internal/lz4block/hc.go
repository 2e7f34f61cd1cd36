package lz4block

// The reference high-compression (HC) match finder: a hash of 4 bytes into 2^15 heads and a
// chain of 16-bit distances back to the previous position with the same hash, searched up
// to a level's number of attempts. Positions are numbered from hcBase, as the reference
// numbers a fresh state's first block (64 KiB in), so the chain's capped distances and the
// empty heads land exactly where the reference's do.
const (
	hcHashLog  = 15
	hcBase     = 65536
	optimalML  = mlMask - 1 + minMatch // 18: the longest match whose length fits the token
	hcMinLevel = 3
	hcMaxLevel = 9
	// patternMinAttempts: the search looks for runs of a repeated 1-, 2- or 4-byte pattern
	// above this many attempts (level 9).
	patternMinAttempts = 128
)

// HCLevelExact reports whether CompressBlockHC reproduces the reference at a Cassandra
// lz4_high_compressor_level: levels 3 to 9 (the hash-chain finder; 9 is Cassandra's
// default). Levels 1 and 2 use the reference's middle finder and 10 and above its optimal
// parser, which this package does not write.
func HCLevelExact(level int) bool { return level >= hcMinLevel && level <= hcMaxLevel }

// HCCompressor compresses LZ4 blocks as the reference LZ4_compress_HC does from a fresh
// state at levels 3 to 9, the compressor lz4-java's JNI binding runs for Cassandra's
// lz4_compressor_type: high. Its zero value is ready; it is not safe for concurrent use.
type HCCompressor struct {
	head         [1 << hcHashLog]uint32
	chain        [1 << 16]uint16
	nextToUpdate int
	src          []byte
}

// hcMatch is a match found for a search position: its length, its distance back, and how
// many bytes it extends before the position (0 or negative).
type hcMatch struct{ len, off, back int }

// CompressBlockHC appends the LZ4 block of src at an HC level to dst. Levels outside 3..9
// are clamped into it (see HCLevelExact).
func (c *HCCompressor) CompressBlockHC(dst, src []byte, level int) []byte {
	level = min(max(level, hcMinLevel), hcMaxLevel)
	attempts := 1 << (level - 1)
	n := len(src)
	if n < minLength {
		return appendLastLiterals(dst, src)
	}
	clear(c.head[:])
	clear(c.chain[:])
	c.nextToUpdate = hcBase
	c.src = src
	defer func() { c.src = nil }()
	f := hcFinder{c: c, attempts: attempts, patterns: attempts > patternMinAttempts, matchLimit: n - lastLiterals}
	mflimit := n - mfLimit
	anchor := 0
	ip := 0
	for ip <= mflimit {
		m1 := f.wider(ip, ip, minMatch-1)
		if m1.len < minMatch {
			ip++
			continue
		}
		dst, ip, anchor = f.sequences(dst, ip, anchor, m1, mflimit)
	}
	return appendLastLiterals(dst, src[anchor:])
}

// sequences writes the sequences that start with match m1 at ip, looking ahead for a
// second and third overlapping match that cover more (the reference's _Search2/_Search3),
// and returns where the main loop goes on.
func (f *hcFinder) sequences(dst []byte, ip, anchor int, m1 hcMatch, mflimit int) ([]byte, int, int) {
	src := f.c.src
	start0, m0 := ip, m1
	var start2, start3 int
	var m2, m3 hcMatch
	third := false // false: look for a second match (_Search2); true: a third (_Search3)
	for {
		if !third {
			m2 = hcMatch{}
			if ip+m1.len <= mflimit {
				start2 = ip + m1.len - 2
				m2 = f.wider(start2, ip, m1.len)
				start2 += m2.back
			}
			if m2.len <= m1.len { // no better match: write m1
				dst, ip, anchor = encodeSequence(dst, src, ip, anchor, m1)
				return dst, ip, anchor
			}
			if start0 < ip && start2 < ip+m0.len { // m1 was skipped forward: squeeze it back in
				ip, m1 = start0, m0
			}
			if start2-ip < 3 { // the first match too short: drop it
				ip, m1 = start2, m2
				continue
			}
			third = true
		}
		if start2-ip < optimalML {
			newML := min(m1.len, optimalML)
			if ip+newML > start2+m2.len-minMatch {
				newML = start2 - ip + m2.len - minMatch
			}
			if correction := newML - (start2 - ip); correction > 0 {
				start2 += correction
				m2.len -= correction
			}
		}
		m3 = hcMatch{}
		if start2+m2.len <= mflimit {
			start3 = start2 + m2.len - 3
			m3 = f.wider(start3, start2, m2.len)
			start3 += m3.back
		}
		if m3.len <= m2.len { // no better third match: write m1 and m2
			if start2 < ip+m1.len {
				m1.len = start2 - ip
			}
			dst, _, anchor = encodeSequence(dst, src, ip, anchor, m1)
			dst, ip, anchor = encodeSequence(dst, src, start2, anchor, m2)
			return dst, ip, anchor
		}
		if start3 < ip+m1.len+3 { // no room for m2 between m1 and m3: drop it
			if start3 >= ip+m1.len { // m1 can be written now; m3 becomes the first match
				if start2 < ip+m1.len {
					correction := ip + m1.len - start2
					start2 += correction
					m2.len -= correction
					if m2.len < minMatch {
						start2, m2 = start3, m3
					}
				}
				dst, _, anchor = encodeSequence(dst, src, ip, anchor, m1)
				ip, m1 = start3, m3
				start0, m0 = start2, m2
				third = false
				continue
			}
			start2, m2 = start3, m3
			continue
		}
		// Three ascending matches: write the first, cut where the second starts.
		if start2 < ip+m1.len {
			if start2-ip < optimalML {
				m1.len = min(m1.len, optimalML)
				if ip+m1.len > start2+m2.len-minMatch {
					m1.len = start2 - ip + m2.len - minMatch
				}
				if correction := m1.len - (start2 - ip); correction > 0 {
					start2 += correction
					m2.len -= correction
				}
			} else {
				m1.len = start2 - ip
			}
		}
		dst, _, anchor = encodeSequence(dst, src, ip, anchor, m1)
		ip, m1 = start2, m2
		start2, m2 = start3, m3
	}
}

// encodeSequence writes the literals from anchor to ip and match m, and returns the
// position after the match (the new ip and anchor).
func encodeSequence(dst, src []byte, ip, anchor int, m hcMatch) ([]byte, int, int) {
	token := len(dst)
	dst = append(dst, 0)
	dst = appendLength(dst, token, ip-anchor, 4, runMask)
	dst = append(dst, src[anchor:ip]...)
	dst = append(dst, byte(m.off), byte(m.off>>8))
	dst = appendLength(dst, token, m.len-minMatch, 0, mlMask)
	ip += m.len
	return dst, ip, ip
}

// hcFinder is one block's search settings.
type hcFinder struct {
	c          *HCCompressor
	attempts   int
	patterns   bool
	matchLimit int
}

func hcHash(src []byte, i int) uint32 { return (read32(src, i) * 2654435761) >> (32 - hcHashLog) }

// insert links every position before ip into its hash chain.
func (c *HCCompressor) insert(ip int) {
	target := ip + hcBase
	for idx := c.nextToUpdate; idx < target; idx++ {
		h := hcHash(c.src, idx-hcBase)
		delta := idx - int(c.head[h])
		if delta > maxDistance {
			delta = maxDistance
		}
		c.chain[uint16(idx)] = uint16(delta)
		c.head[h] = uint32(idx)
	}
	// As the reference does, a search behind the last one moves the mark back, and the
	// positions between are linked again.
	c.nextToUpdate = target
}
