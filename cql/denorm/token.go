package denorm

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// token is where a timeline resumes: for each write shard, the bucket it reads next, the
// clustering key of the last row it returned in that bucket, and how many buckets it may
// still read; and the oldest bound of the first page, so that every page keeps it.
//
// It holds the clustering key, not a driver paging state and a row offset: a paging state
// plus an offset counts rows, so a row inserted or deleted before the resume point between
// two pages shifts every later row by one, and the next page repeats or drops one. A key
// says "older than this row", which stays true whatever is written around it.
type token struct {
	oldest time.Time // zero: no bound
	shards []shardPos
}

// shardPos is one shard's place in the timeline. left 0 means the shard is read to its
// end (and then bucket and after are empty).
type shardPos struct {
	left   int
	bucket string
	after  [][]byte // the clustering key of the last row returned, each column as the driver serializes it; nil: the bucket's first row
}

// tokenVersion 1 carried a paging state and a row offset; 2 carries clustering keys.
const (
	tokenVersion = 2
	macBytes     = 16
	// MaxShards bounds Timeline.Shards: every page reads every shard's newest bucket.
	MaxShards = 1024
	// maxKeyColumns bounds the clustering columns a token carries (Cassandra allows far
	// fewer in practice).
	maxKeyColumns = 64
	flagOldest    = 1
)

// unsignedKey stands in for a secret when a Timeline has none: the tag is then a checksum
// that catches corrupted or hand-edited tokens, not a signature.
const unsignedKey = "cqlsize/denorm timeline token (unsigned)"

// fingerprint binds a token to one timeline and one key, so a token from user A's
// timeline is refused on user B's, and one from a timeline with 4 shards on one with 8.
func (tl *Timeline) fingerprint(key []any) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%q|%s|%d|", tl.Query, tl.Scheme.Width(), max(tl.Shards, 1))
	for _, k := range key {
		fmt.Fprintf(h, "%T=%v|", k, k)
	}
	return h.Sum(nil)
}

func (tl *Timeline) mac(fp, payload []byte) []byte {
	key := tl.Secret
	if len(key) == 0 {
		key = []byte(unsignedKey)
	}
	m := hmac.New(sha256.New, key)
	m.Write(fp)
	m.Write(payload)
	return m.Sum(nil)[:macBytes]
}

func (tl *Timeline) encodeToken(fp []byte, t token) string {
	b := appendPayload([]byte{tokenVersion}, t)
	b = append(b, tl.mac(fp, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// appendPayload writes t after the version byte. Every field has one encoding, so a token
// that decodes re-encodes to the same text.
func appendPayload(b []byte, t token) []byte {
	if t.oldest.IsZero() {
		b = append(b, 0)
	} else {
		b = append(b, flagOldest)
		b = binary.AppendVarint(b, t.oldest.Unix())
		b = binary.AppendUvarint(b, uint64(t.oldest.Nanosecond()))
	}
	b = binary.AppendUvarint(b, uint64(len(t.shards)))
	for _, s := range t.shards {
		b = binary.AppendUvarint(b, uint64(s.left))
		if s.left == 0 {
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(s.bucket)))
		b = append(b, s.bucket...)
		b = binary.AppendUvarint(b, uint64(len(s.after)))
		for _, c := range s.after {
			b = binary.AppendUvarint(b, uint64(len(c)))
			b = append(b, c...)
		}
	}
	return b
}

func (tl *Timeline) decodeToken(s string, fp []byte) (token, error) {
	bad := func(why string) (token, error) {
		return token{}, fmt.Errorf("timeline: %w: %s", ErrBadToken, why)
	}
	// One spelling per token: Strict refuses stray bits in the last character, but every
	// base64 decoder skips line breaks, so a token with one inserted would be a second.
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || strings.ContainsAny(s, "\r\n") {
		return bad("not base64url")
	}
	if len(b) < 1+macBytes {
		return bad("too short")
	}
	payload, tag := b[:len(b)-macBytes], b[len(b)-macBytes:]
	if !hmac.Equal(tag, tl.mac(fp, payload)) {
		return bad("signature does not match (altered, or from another timeline or key)")
	}
	if payload[0] != tokenVersion {
		return bad(fmt.Sprintf("version %d, from an older release that resumed by row offset: start the timeline again without a token", payload[0]))
	}
	t, why := parsePayload(payload[1:])
	if why != "" {
		return bad(why)
	}
	return t, nil
}

// parsePayload reads what appendPayload wrote, or says why it cannot.
func parsePayload(r []byte) (token, string) {
	var t token
	if len(r) < 1 {
		return t, "truncated"
	}
	flags := r[0]
	r = r[1:]
	if flags&^flagOldest != 0 {
		return t, fmt.Sprintf("unknown flags %#x", flags)
	}
	var ok bool
	if flags&flagOldest != 0 {
		var sec int64
		var nsec uint64
		if sec, r, ok = varint(r); !ok {
			return t, "truncated oldest bound"
		}
		if nsec, r, ok = uvarint(r); !ok || nsec >= 1e9 {
			return t, "oldest bound out of range"
		}
		t.oldest = time.Unix(sec, int64(nsec)).UTC()
		if t.oldest.IsZero() { // the zero time is spelled without the flag
			return t, "oldest bound out of range"
		}
	}
	var n uint64
	if n, r, ok = uvarint(r); !ok || n < 1 || n > MaxShards {
		return t, "shard count out of range"
	}
	t.shards = make([]shardPos, n)
	for i := range t.shards {
		s := &t.shards[i]
		if n, r, ok = uvarint(r); !ok || n > 1<<20 {
			return t, "bucket budget out of range"
		}
		if s.left = int(n); n == 0 {
			continue
		}
		var bkt []byte
		if bkt, r, ok = bytesField(r); !ok {
			return t, "truncated bucket"
		}
		s.bucket = string(bkt)
		if n, r, ok = uvarint(r); !ok || n > maxKeyColumns {
			return t, "clustering key out of range"
		}
		if n > 0 {
			s.after = make([][]byte, n)
		}
		for j := range s.after {
			if s.after[j], r, ok = bytesField(r); !ok {
				return t, "truncated clustering key"
			}
		}
	}
	if len(r) != 0 {
		return t, "trailing bytes"
	}
	return t, ""
}

// uvarint reads a minimally encoded unsigned varint: a longer spelling of the same number
// would give one position two tokens.
func uvarint(b []byte) (uint64, []byte, bool) {
	v, n := binary.Uvarint(b)
	if n <= 0 || v > 1<<40 || n != len(binary.AppendUvarint(nil, v)) {
		return 0, nil, false
	}
	return v, b[n:], true
}

func varint(b []byte) (int64, []byte, bool) {
	v, n := binary.Varint(b)
	if n <= 0 || n != len(binary.AppendVarint(nil, v)) {
		return 0, nil, false
	}
	return v, b[n:], true
}

func bytesField(b []byte) ([]byte, []byte, bool) {
	n, r, ok := uvarint(b)
	if !ok || n > uint64(len(r)) {
		return nil, nil, false
	}
	return r[:n:n], r[n:], true
}
