package denorm

import (
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func testTimeline(secret string) *Timeline {
	return &Timeline{Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months, Secret: []byte(secret)}
}

func TestTokenRoundTrip(t *testing.T) {
	tl := testTimeline("k")
	fp := tl.fingerprint([]any{"alice"})
	for _, tok := range []token{
		{left: 12, bucket: "2024-01"},
		{left: 1, bucket: "2023-12", state: []byte{1, 2, 3, 0, 255}, skip: 17},
		{left: 3, bucket: "+10000-01", state: make([]byte, 300), skip: MaxPageRows},
	} {
		s, err := tl.encodeToken(fp, tok)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tl.decodeToken(s, fp)
		if err != nil {
			t.Fatalf("%+v: %v", tok, err)
		}
		if len(tok.state) == 0 {
			tok.state = nil
		}
		if !reflect.DeepEqual(got, tok) {
			t.Errorf("round trip: %+v, want %+v", got, tok)
		}
	}
}

// Every single-bit change of a token, and every truncation, is refused.
func TestTokenTampering(t *testing.T) {
	for _, secret := range []string{"k", ""} { // signed, and checksummed only
		tl := testTimeline(secret)
		fp := tl.fingerprint([]any{"alice"})
		s, _ := tl.encodeToken(fp, token{left: 5, bucket: "2024-01", state: []byte("paging state"), skip: 3})
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
	}
}

// A token has one spelling: the same bytes base64-encoded with other unused bits in the
// last character are refused, so a token cannot be varied to dodge a cache or a log match.
func TestTokenOneSpelling(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	tl := testTimeline("k")
	fp := tl.fingerprint([]any{"alice"})
	tested := 0
	for skip := 0; skip < 6; skip++ {
		s, _ := tl.encodeToken(fp, token{left: 5, bucket: "2024-01", skip: skip})
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
}

// FuzzDecodeToken: no input makes decoding panic, and a token that decodes re-encodes to
// itself (there is one spelling of each position).
func FuzzDecodeToken(f *testing.F) {
	tl := testTimeline("k")
	fp := tl.fingerprint([]any{"alice"})
	s, _ := tl.encodeToken(fp, token{left: 5, bucket: "2024-01", state: []byte{9, 9}, skip: 3})
	f.Add(s)
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
		again, _ := tl.encodeToken(fp, tok)
		if again != in {
			t.Fatalf("%q decodes to %+v, which encodes to %q", in, tok, again)
		}
	})
}
