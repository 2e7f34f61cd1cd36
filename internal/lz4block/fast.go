package lz4block

import (
	"encoding/binary"
	"math/bits"
)

// The constants of the LZ4 block format and of the reference fast compressor at its default
// memory usage (LZ4_MEMORY_USAGE 14: a 16 KiB hash table).
const (
	minMatch     = 4  // the shortest match a sequence can carry
	lastLiterals = 5  // the last 5 bytes of a block are always literals
	mfLimit      = 12 // no match may start in the last 12 bytes
	minLength    = mfLimit + 1
	skipTrigger  = 6 // the search step grows by one every 2^6 misses
	hashLog      = 12
	maxDistance  = 65535
	// limit64K is the input size under which the reference compressor keeps 16-bit
	// positions in a table twice as long, hashed from 4 bytes instead of 5.
	limit64K = 65536 + mfLimit - 1
	runMask  = 15
	mlMask   = 15
)

// Compressor compresses LZ4 blocks as the reference liblz4 LZ4_compress_default does
// (acceleration 1), the compressor lz4-java's fastestInstance binds on Linux and Cassandra's
// LZ4Compressor calls for every chunk. The output is byte for byte the reference's, so the
// compressed length of a chunk is the node's. A Compressor is not safe for concurrent use;
// its zero value is ready.
type Compressor struct {
	table [1 << (hashLog + 1)]uint32
}

// CompressBound is the largest block CompressBlock can append for n input bytes
// (LZ4_COMPRESSBOUND).
func CompressBound(n int) int { return n + n/255 + 16 }

// CompressBlock appends the LZ4 block of src to dst, as the reference fast compressor
// writes it from a fresh state, and returns the extended slice.
func (c *Compressor) CompressBlock(dst, src []byte) []byte {
	n := len(src)
	if n < minLength {
		return appendLastLiterals(dst, src)
	}
	// The reference starts every call with a zeroed table: an empty slot reads as position
	// 0, a candidate like any other that the 4-byte comparison accepts or rejects.
	clear(c.table[:])
	small := n < limit64K
	hash := hash5
	if small {
		hash = hash4
	}
	mflimitPlusOne := n - mfLimit + 1
	matchLimit := n - lastLiterals
	anchor := 0

	c.table[hash(src, 0)] = 0
	ip := 1
	forwardH := hash(src, ip)
	for {
		match, at, ok := c.search(src, ip, forwardH, mflimitPlusOne, small, hash)
		if !ok {
			break
		}
		ip = at
		// Extend the match backwards over the literals not yet written.
		for ip > anchor && match > 0 && src[ip-1] == src[match-1] {
			ip--
			match--
		}
		token := len(dst)
		dst = append(dst, 0)
		dst = appendLength(dst, token, ip-anchor, 4, runMask)
		dst = append(dst, src[anchor:ip]...)
		for {
			// A sequence: the offset, then the match length past its first 4 bytes.
			dst = binary.LittleEndian.AppendUint16(dst, uint16(ip-match))
			ml := count(src, ip+minMatch, match+minMatch, matchLimit)
			ip += ml + minMatch
			dst = appendLength(dst, token, ml, 0, mlMask)
			anchor = ip
			if ip >= mflimitPlusOne {
				return appendLastLiterals(dst, src[anchor:])
			}
			c.table[hash(src, ip-2)] = uint32(ip - 2)
			// A match right at the end of the last one starts a sequence with no literals.
			h := hash(src, ip)
			cand := int(c.table[h])
			c.table[h] = uint32(ip)
			if (small || cand+maxDistance >= ip) && read32(src, cand) == read32(src, ip) {
				match = cand
				token = len(dst)
				dst = append(dst, 0)
				continue
			}
			break
		}
		ip++
		forwardH = hash(src, ip)
	}
	return appendLastLiterals(dst, src[anchor:])
}

// search looks for the next match from ip, whose hash is h, stepping further the longer it
// misses (one byte at a time for the first 64 tries, then two, ...). It returns the match's
// earlier position and where it starts, or false when no match can start before the block's
// end.
func (c *Compressor) search(src []byte, ip int, h uint32, mflimitPlusOne int, small bool, hash func([]byte, int) uint32) (match, at int, ok bool) {
	forward := ip
	step := 1
	tries := 1 << skipTrigger
	for {
		cur := forward
		cand := int(c.table[h])
		ip = forward
		forward += step
		step = tries >> skipTrigger
		tries++
		if forward > mflimitPlusOne {
			return 0, 0, false
		}
		next := hash(src, forward)
		c.table[h] = uint32(cur)
		h = next
		if !small && cand+maxDistance < cur {
			continue
		}
		if read32(src, cand) == read32(src, ip) {
			return cand, ip, true
		}
	}
}

// appendLength puts a literal or match length into the token at dst[token] (shifted by
// shift) and, when it does not fit the token's 4 bits, appends the rest in bytes of 255 and
// a last byte below 255.
func appendLength(dst []byte, token, length int, shift uint, mask int) []byte {
	if length < mask {
		dst[token] |= byte(length << shift)
		return dst
	}
	dst[token] |= byte(mask << shift)
	length -= mask
	for ; length >= 255; length -= 255 {
		dst = append(dst, 255)
	}
	return append(dst, byte(length))
}

// appendLastLiterals ends a block: a token with no match and the remaining bytes.
func appendLastLiterals(dst, lits []byte) []byte {
	token := len(dst)
	dst = append(dst, 0)
	dst = appendLength(dst, token, len(lits), 4, runMask)
	return append(dst, lits...)
}

// count is how many bytes from a equal those from b, stopping at limit (a < limit).
func count(src []byte, a, b, limit int) int {
	start := a
	for a+8 <= limit {
		if x := binary.LittleEndian.Uint64(src[a:]) ^ binary.LittleEndian.Uint64(src[b:]); x != 0 {
			return a - start + bits.TrailingZeros64(x)/8
		}
		a += 8
		b += 8
	}
	for a < limit && src[a] == src[b] {
		a++
		b++
	}
	return a - start
}

func read32(src []byte, i int) uint32 { return binary.LittleEndian.Uint32(src[i:]) }

// hash4 is the reference hash of the 4 bytes at i for inputs under 64 KiB: Knuth's
// multiplicative hash into 13 bits.
func hash4(src []byte, i int) uint32 {
	return (read32(src, i) * 2654435761) >> (32 - (hashLog + 1))
}

// hash5 is the reference hash for larger inputs on a 64-bit little-endian machine: the 5
// bytes at i multiplied by a 5-byte prime, the top 12 bits.
func hash5(src []byte, i int) uint32 {
	var v uint64
	if i+8 <= len(src) {
		v = binary.LittleEndian.Uint64(src[i:])
	} else {
		var b [8]byte
		copy(b[:], src[i:])
		v = binary.LittleEndian.Uint64(b[:])
	}
	return uint32(((v << 24) * 889523592379) >> (64 - hashLog))
}
