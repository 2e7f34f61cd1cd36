package denorm

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func testTimeline(secret string) *Timeline {
	return &Timeline{Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months, Secret: []byte(secret)}
}

// uuidKey is a clustering key of one timeuuid, as the driver serializes it.
var uuidKey = [][]byte{{0x1e, 0x2f, 0x3a, 0x4b, 0x5c, 0x6d, 0x11, 0xef, 0x80, 0x01, 2, 3, 4, 5, 6, 7}}

func TestTokenRoundTrip(t *testing.T) {
	tl := testTimeline("k")
	fp := tl.fingerprint([]any{"alice"})
	for name, tok := range map[string]token{
		"first bucket, no key": {shards: []shardPos{{left: 12, bucket: "2024-01"}}},
		"after a key":          {shards: []shardPos{{left: 1, bucket: "2023-12", after: uuidKey}}},
		"two columns, one empty": {shards: []shardPos{{left: 3, bucket: "+10000-01",
			after: [][]byte{make([]byte, 300), {}}}}},
		"oldest bound": {oldest: time.Date(2024, 1, 15, 10, 4, 5, 123, time.UTC),
			shards: []shardPos{{left: 2, bucket: "2024-01"}}},
		"oldest before 1970": {oldest: time.Date(1901, 1, 1, 0, 0, 0, 0, time.UTC),
			shards: []shardPos{{left: 2, bucket: "2024-01"}}},
		"shards, some done": {shards: []shardPos{{left: 4, bucket: "2024-01", after: uuidKey}, {}, {left: 5, bucket: "2024-02"}, {}}},
	} {
		s := tl.encodeToken(fp, tok)
		got, err := tl.decodeToken(s, fp)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, tok) {
			t.Errorf("%s: round trip gave %+v, want %+v", name, got, tok)
		}
		if again := tl.encodeToken(fp, got); again != s {
			t.Errorf("%s: re-encoding gave another token", name)
		}
	}
}

// Every single-bit change of a token, and every truncation, is refused.
func TestTokenTampering(t *testing.T) {
	for _, secret := range []string{"k", ""} { // signed, and checksummed only
		tl := testTimeline(secret)
		fp := tl.fingerprint([]any{"alice"})
		s := tl.encodeToken(fp, token{oldest: time.Unix(1700000000, 0).UTC(), shards: []shardPos{{left: 5, bucket: "2024-01", after: uuidKey}}})
		raw, _ := base64.RawURLEncoding.DecodeString(s)
		for i := range raw {
			for bit := 0; bit < 8; bit++ {
				b := append([]byte(nil), raw...)
				b[i] ^= 1 << bit
				if _, err := tl.decodeToken(base64.RawURLEncoding.EncodeToString(b), fp); !errors.Is(err, ErrBadToken) {
					t.Fatalf("secret %q: flipping bit %d of byte %d was accepted (%v)", secret, bit, i, err)
				}
			}
		}
		for n := 0; n < len(raw); n++ {
			if _, err := tl.decodeToken(base64.RawURLEncoding.EncodeToString(raw[:n]), fp); !errors.Is(err, ErrBadToken) {
				t.Fatalf("secret %q: a token cut to %d bytes was accepted", secret, n)
			}
		}
		if _, err := tl.decodeToken(s, tl.fingerprint([]any{"bob"})); !errors.Is(err, ErrBadToken) {
			t.Errorf("secret %q: alice's token was accepted for bob", secret)
		}
		sharded := *tl
		sharded.Shards = 4
		if _, err := sharded.decodeToken(s, sharded.fingerprint([]any{"alice"})); !errors.Is(err, ErrBadToken) {
			t.Errorf("secret %q: an unsharded token was accepted by a timeline of 4 shards", secret)
		}
	}
}

// A token of the first format (a paging state and a row offset), correctly signed, is
// refused with a message that says to start again: resuming it by offset is what
// dropped and repeated rows.
func TestTokenOldFormat(t *testing.T) {
	tl := testTimeline("k")
	fp := tl.fingerprint([]any{"alice"})
	b := []byte{1}                        // version 1
	b = binary.AppendUvarint(b, 12)       // buckets left
	b = binary.AppendUvarint(b, 7)        // bucket label
	b = append(b, "2024-01"...)           //
	b = binary.AppendUvarint(b, 3)        // row offset
	b = binary.AppendUvarint(b, 4)        // paging state
	b = append(b, 0xde, 0xad, 0xbe, 0xef) //
	m := hmac.New(sha256.New, []byte("k"))
	m.Write(fp)
	m.Write(b)
	old := base64.RawURLEncoding.EncodeToString(append(b, m.Sum(nil)[:macBytes]...))
	_, err := tl.decodeToken(old, fp)
	if !errors.Is(err, ErrBadToken) || !strings.Contains(err.Error(), "version 1") || !strings.Contains(err.Error(), "start the timeline again") {
		t.Errorf("an old token: %v, want ErrBadToken saying version 1 and to start again", err)
	}
}

// Payloads that a signer could never produce are refused by the parser itself, so a
// leaked secret still cannot crash or mislead a reader.
func TestTokenPayloadRefused(t *testing.T) {
	for name, p := range map[string][]byte{
		"empty":               {},
		"unknown flag":        {2, 1, 5, 0},
		"no shards":           {0, 0},
		"too many shards":     binary.AppendUvarint([]byte{0}, MaxShards+1),
		"overlong varint":     {0, 0x81, 0x00, 0},
		"budget cut":          {0, 1},
		"trailing":            {0, 1, 0, 9},
		"key too long":        append([]byte{0, 1, 1, 1, 'x'}, binary.AppendUvarint(nil, maxKeyColumns+1)...),
		"cell longer than it": {0, 1, 1, 1, 'x', 1, 5, 1},
		"nanoseconds":         append(binary.AppendVarint([]byte{1}, 5), append(binary.AppendUvarint(nil, 1e9), 1, 0)...),
		"zero time spelled":   append(binary.AppendVarint([]byte{1}, time.Time{}.Unix()), 0, 1, 0),
	} {
		if tok, why := parsePayload(p); why == "" {
			t.Errorf("%s: %x parsed as %+v", name, p, tok)
		}
	}
}

// A token has one spelling: the same bytes base64-encoded with other unused bits in the
// last character are refused, so a token cannot be varied to dodge a cache or a log match.
func TestTokenOneSpelling(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	tl := testTimeline("k")
	fp := tl.fingerprint([]any{"alice"})
	tested := 0
	for n := 0; n < 6; n++ {
		s := tl.encodeToken(fp, token{shards: []shardPos{{left: 5, bucket: "2024-01", after: [][]byte{make([]byte, n)}}}})
		raw, _ := base64.RawURLEncoding.DecodeString(s)
		if len(raw)%3 == 0 { // no unused bits
			continue
		}
		last := strings.IndexByte(alphabet, s[len(s)-1])
		variant := s[:len(s)-1] + string(alphabet[last^1]) // the lowest bit is always unused here
		if b, _ := base64.RawURLEncoding.DecodeString(variant); string(b) != string(raw) {
			t.Fatalf("the variant does not decode to the same bytes")
		}
		if _, err := tl.decodeToken(variant, fp); !errors.Is(err, ErrBadToken) {
			t.Errorf("a second spelling of a token was accepted: %v", err)
		}
		tested++
	}
	if tested == 0 {
		t.Fatal("no token length with unused bits was tried")
	}
	// Line breaks, which base64 decoders skip, do not make a second spelling either (the
	// fuzzer found this one).
	s := tl.encodeToken(fp, token{shards: []shardPos{{left: 5, bucket: "2024-01"}}})
	for _, variant := range []string{s[:4] + "\n" + s[4:], s[:4] + "\r\n" + s[4:], s + "\n"} {
		if _, err := tl.decodeToken(variant, fp); !errors.Is(err, ErrBadToken) {
			t.Errorf("%q, a token with a line break, was accepted: %v", variant, err)
		}
	}
}

// FuzzDecodeToken: no input makes decoding panic, and a token that decodes re-encodes to
// itself (there is one spelling of each position).
func FuzzDecodeToken(f *testing.F) {
	tl := testTimeline("k")
	fp := tl.fingerprint([]any{"alice"})
	f.Add(tl.encodeToken(fp, token{shards: []shardPos{{left: 5, bucket: "2024-01", after: uuidKey}}}))
	f.Add(tl.encodeToken(fp, token{oldest: time.Unix(1, 2), shards: []shardPos{{}, {left: 1, bucket: "2024-02"}}}))
	f.Add("")
	f.Add("AA")
	f.Add("!!!")
	f.Fuzz(func(t *testing.T, in string) {
		tok, err := tl.decodeToken(in, fp)
		if err != nil {
			if !errors.Is(err, ErrBadToken) {
				t.Fatalf("%q: %v is not ErrBadToken", in, err)
			}
			return
		}
		if again := tl.encodeToken(fp, tok); again != in {
			t.Fatalf("%q decodes to %+v, which encodes to %q", in, tok, again)
		}
	})
}

// FuzzTokenPayload reaches behind the signature, which a fuzzer cannot forge: any payload
// the parser accepts is one the encoder writes, byte for byte, and none panics.
func FuzzTokenPayload(f *testing.F) {
	for _, tok := range []token{
		{shards: []shardPos{{left: 5, bucket: "2024-01", after: uuidKey}}},
		{oldest: time.Unix(-5, 7).UTC(), shards: []shardPos{{}, {left: 1, bucket: "2024-02", after: [][]byte{{}, {1}}}}},
	} {
		f.Add(appendPayload(nil, tok))
	}
	f.Add([]byte{})
	f.Add([]byte{1, 0x80})
	f.Fuzz(func(t *testing.T, p []byte) {
		tok, why := parsePayload(p)
		if why != "" {
			return
		}
		if again := appendPayload(nil, tok); string(again) != string(p) {
			t.Fatalf("%x parses to %+v, which encodes to %x", p, tok, again)
		}
	})
}
