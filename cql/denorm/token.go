package denorm

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
)

// token is where a timeline resumes: a bucket, a position in it, and how many buckets the
// timeline may still read.
type token struct {
	left   int
	bucket string
	state  []byte
	skip   int
}

const (
	tokenVersion = 1
	macBytes     = 16
)

// unsignedKey stands in for a secret when a Timeline has none: the tag is then a checksum
// that catches corrupted or hand-edited tokens, not a signature.
const unsignedKey = "cqlsize/denorm timeline token (unsigned)"

// fingerprint binds a token to one timeline and one key, so a token from user A's
// timeline is refused on user B's.
func (tl *Timeline) fingerprint(key []any) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%q|%s|", tl.Query, tl.Scheme.Width())
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

func (tl *Timeline) encodeToken(fp []byte, t token) (string, error) {
	b := []byte{tokenVersion}
	b = binary.AppendUvarint(b, uint64(t.left))
	b = binary.AppendUvarint(b, uint64(len(t.bucket)))
	b = append(b, t.bucket...)
	b = binary.AppendUvarint(b, uint64(t.skip))
	b = binary.AppendUvarint(b, uint64(len(t.state)))
	b = append(b, t.state...)
	b = append(b, tl.mac(fp, b)...)
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func (tl *Timeline) decodeToken(s string, fp []byte) (token, error) {
	bad := func(why string) (token, error) {
		return token{}, fmt.Errorf("timeline: %w: %s", ErrBadToken, why)
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s) // one spelling per token
	if err != nil {
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
		return bad(fmt.Sprintf("version %d", payload[0]))
	}
	r := payload[1:]
	var t token
	var ok bool
	var n uint64
	if n, r, ok = uvarint(r); !ok {
		return bad("truncated")
	}
	t.left = int(n)
	var bkt []byte
	if bkt, r, ok = bytesField(r); !ok {
		return bad("truncated")
	}
	t.bucket = string(bkt)
	if n, r, ok = uvarint(r); !ok || n > MaxPageRows {
		return bad("truncated or out of range")
	}
	t.skip = int(n)
	if t.state, r, ok = bytesField(r); !ok || len(r) != 0 {
		return bad("truncated")
	}
	if len(t.state) == 0 {
		t.state = nil
	}
	return t, nil
}

func uvarint(b []byte) (uint64, []byte, bool) {
	v, n := binary.Uvarint(b)
	if n <= 0 || v > 1<<40 {
		return 0, nil, false
	}
	return v, b[n:], true
}

func bytesField(b []byte) ([]byte, []byte, bool) {
	n, r, ok := uvarint(b)
	if !ok || n > uint64(len(r)) {
		return nil, nil, false
	}
	return r[:n], r[n:], true
}
