package lz4block

// wider finds the longest match at ip longer than longest, following ip's hash chain for up
// to the level's attempts; a match may extend backwards down to iLow. With pattern analysis
// (level 9), a chain of distance-1 links through a run of one repeated 1-, 2- or 4-byte
// pattern is jumped over instead of walked.
func (f *hcFinder) wider(ip, iLow, longest int) hcMatch {
	c, src := f.c, f.c.src
	ipIndex := ip + hcBase
	lowest := hcBase // the block's first position, while ip is within 64 KiB of it
	if ipIndex >= hcBase+maxDistance+1 {
		lowest = ipIndex - maxDistance
	}
	lookBack := ip - iLow
	pattern := read32(src, ip)
	const (
		untested = iota
		not
		confirmed
	)
	repeat := untested
	srcPattern := 0
	var best hcMatch
	c.insert(ip)
	mi := int(c.head[hcHash(src, ip)])
	for nb := f.attempts; mi >= lowest && nb > 0; {
		nb--
		mp := mi - hcBase
		// Two bytes where a longer match must still agree, then the 4-byte check.
		if read16(src, iLow+longest-1) == read16(src, mp-lookBack+longest-1) && read32(src, mp) == pattern {
			back := 0
			if lookBack > 0 {
				back = countBack(src, ip, mp, iLow)
			}
			if ml := minMatch + count(src, ip+minMatch, mp+minMatch, f.matchLimit) - back; ml > longest {
				longest = ml
				best = hcMatch{len: ml, off: ipIndex - mi, back: back}
			}
		}
		if f.patterns && c.chain[uint16(mi)] == 1 {
			cand := mi - 1
			if repeat == untested {
				repeat = not
				if pattern&0xffff == pattern>>16 && pattern&0xff == pattern>>24 {
					repeat = confirmed
					srcPattern = countPattern(src, ip+4, f.matchLimit, pattern) + 4
				}
			}
			if repeat == confirmed && cand >= lowest && read32(src, cand-hcBase) == pattern {
				next, stop := f.skipPattern(cand, lowest, ipIndex, lookBack, srcPattern, pattern, &longest, &best)
				if stop {
					break
				}
				mi = next
				continue
			}
		}
		mi -= int(c.chain[uint16(mi)])
	}
	// Nothing longer found: the length asked for comes back, with no offset.
	best.len = longest
	return best
}

// skipPattern handles a candidate inside a run of the pattern ip starts: it places the next
// candidate where the run, as long as ip's own, would end (or at the run's start), and with
// no look-back takes the run itself as the match when it is longer. stop says the chain
// walk ends.
func (f *hcFinder) skipPattern(cand, lowest, ipIndex, lookBack, srcPattern int, pattern uint32, longest *int, best *hcMatch) (next int, stop bool) {
	c, src := f.c, f.c.src
	mp := cand - hcBase
	forward := countPattern(src, mp+4, f.matchLimit, pattern) + 4
	backLength := reverseCountPattern(src, mp, pattern)
	backLength = cand - max(cand-backLength, lowest)
	segment := backLength + forward
	if segment >= srcPattern && forward <= srcPattern {
		return cand + forward - srcPattern, false
	}
	mi := cand - backLength
	if lookBack == 0 {
		if maxML := min(segment, srcPattern); *longest < maxML {
			if ipIndex-mi > maxDistance {
				return mi, true
			}
			*longest = maxML
			best.off = ipIndex - mi
		}
		d := int(c.chain[uint16(mi)])
		if d > mi {
			return mi, true
		}
		mi -= d
	}
	return mi, false
}

// countBack is how many bytes before ip equal those before match, going no lower than iLow
// nor the block's start (returned negative).
func countBack(src []byte, ip, match, iLow int) int {
	back := 0
	for ip+back > iLow && match+back > 0 && src[ip+back-1] == src[match+back-1] {
		back--
	}
	return back
}

// countPattern is how many bytes from i, up to end, continue the 4-byte pattern (its
// little-endian bytes, repeating).
func countPattern(src []byte, i, end int, pattern uint32) int {
	k := 0
	for i+k < end && src[i+k] == byte(pattern>>(8*(k&3))) {
		k++
	}
	return k
}

// reverseCountPattern is how many bytes before i continue the pattern backwards (i starts
// a copy of it), down to the block's start.
func reverseCountPattern(src []byte, i int, pattern uint32) int {
	k := 0
	for i-k > 0 && src[i-k-1] == byte(pattern>>(8*(3-(k&3)))) {
		k++
	}
	return k
}

func read16(src []byte, i int) uint16 { return uint16(src[i]) | uint16(src[i+1])<<8 }
