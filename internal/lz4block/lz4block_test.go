package lz4block

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
)

var dump = flag.String("dump", "", "write the reference inputs into this directory (for testdata/reference.py)")

// referenceInputs are the blocks testdata/reference.json holds liblz4's output for: the edge
// sizes of the block format, the two table modes either side of 64 KiB, and data shaped like
// Cassandra rows. Each is generated from a fixed seed (math/rand's sequence is stable).
func referenceInputs() map[string][]byte {
	words := strings.Fields("the quick brown fox jumps over lazy dog order shipped payment pending user account session login logout item cart price total customer address city street")
	text := func(r *rand.Rand, n int) []byte {
		var b []byte
		for len(b) < n {
			b = append(b, words[r.Intn(len(words))]...)
			b = append(b, ' ')
		}
		return b[:n]
	}
	random := func(r *rand.Rand, n int) []byte {
		b := make([]byte, n)
		r.Read(b)
		return b
	}
	alnum := func(r *rand.Rand, n int) []byte {
		const a = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		b := make([]byte, n)
		for i := range b {
			b[i] = a[r.Intn(len(a))]
		}
		return b
	}
	// rows imitates a partition of narrow rows: a flags byte, a clustering int, vint-ish
	// deltas, a double and a timestamp, as the BIG format lays them out.
	rows := func(r *rand.Rand, n int) []byte {
		var b []byte
		for c := 0; len(b) < n; c++ {
			b = append(b, 0x24, 0, 0, 0, 4)
			b = binary.BigEndian.AppendUint32(b, uint32(c))
			b = append(b, byte(30+r.Intn(3)), 0x08, byte(r.Intn(4)))
			b = binary.BigEndian.AppendUint64(b, uint64(r.Intn(100000))*1e6)
			b = binary.BigEndian.AppendUint64(b, uint64(1767225600000+60000*c))
		}
		return b[:n]
	}
	// runs puts runs of a repeated 1-, 2- or 4-byte pattern of many lengths between words,
	// the input the level-9 search's pattern analysis is for.
	runs := func(r *rand.Rand, n int) []byte {
		pats := [][]byte{{0}, {0xff}, {'a'}, {0, 1}, {'a', 'b'}, {1, 2, 3, 4}, {0, 0, 0, 1}}
		var b []byte
		for len(b) < n {
			b = append(b, text(r, 1+r.Intn(40))...)
			p := pats[r.Intn(len(pats))]
			for k := r.Intn(300); k > 0; k-- {
				b = append(b, p[k%len(p)])
			}
		}
		return b[:n]
	}
	in := map[string][]byte{}
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 5, 12, 13, 14, 17, 31, 100} {
		in[fmt.Sprintf("text-%05d", n)] = text(r, n)
	}
	in["zeros-16384"] = make([]byte, 16384)
	in["zeros-00300"] = make([]byte, 300)
	for _, n := range []int{16384, 9000, 65546, 65547, 100000} {
		in[fmt.Sprintf("text-%05d", n)] = text(r, n)
	}
	in["random-16384"] = random(r, 16384)
	in["alnum-16384"] = alnum(r, 16384)
	in["rows-16384"] = rows(r, 16384)
	in["rows-70000"] = rows(r, 70000)
	mixed := append(append(text(r, 4000), make([]byte, 3000)...), append(alnum(r, 5000), text(r, 4384)...)...)
	in["mixed-16384"] = mixed
	in["runs-16384"] = runs(r, 16384)
	in["runs-03000"] = runs(r, 3000)
	in["runs-65000"] = runs(r, 65000)
	return in
}

type reference struct {
	LibLZ4 int `json:"liblz4"`
	Inputs []struct {
		Name string   `json:"name"`
		Size int      `json:"size"`
		Fast refBlock `json:"fast"`
		HC4  refBlock `json:"hc4"`
		HC9  refBlock `json:"hc9"`
	} `json:"inputs"`
}

type refBlock struct {
	Len    int    `json:"len"`
	SHA256 string `json:"sha256"`
}

// TestReference compares every block with what liblz4 1.10.0, the native library inside
// Cassandra 5.0.9's lz4-java jar, wrote for the same input (testdata/reference.py made
// reference.json; this package's code had no part in it).
func TestReference(t *testing.T) {
	in := referenceInputs()
	if *dump != "" {
		for name, b := range in {
			if err := os.WriteFile(filepath.Join(*dump, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Inputs) != len(in) {
		t.Fatalf("reference.json has %d inputs, the generator %d: regenerate it (see reference.py)", len(ref.Inputs), len(in))
	}
	var c Compressor
	var hc HCCompressor
	for _, want := range ref.Inputs {
		src, ok := in[want.Name]
		if !ok || len(src) != want.Size {
			t.Fatalf("%s: not generated as reference.json has it (%d bytes)", want.Name, want.Size)
		}
		got := c.CompressBlock(nil, src)
		if sum := sha256.Sum256(got); len(got) != want.Fast.Len || hex.EncodeToString(sum[:]) != want.Fast.SHA256 {
			t.Errorf("%s: fast block of %d bytes differs from liblz4's %d", want.Name, len(got), want.Fast.Len)
		}
		checkRoundTrip(t, want.Name, src, got)
		for _, lv := range []struct {
			level int
			want  refBlock
		}{{4, want.HC4}, {9, want.HC9}} {
			got := hc.CompressBlockHC(nil, src, lv.level)
			if sum := sha256.Sum256(got); len(got) != lv.want.Len || hex.EncodeToString(sum[:]) != lv.want.SHA256 {
				t.Errorf("%s: HC level %d block of %d bytes differs from liblz4's %d", want.Name, lv.level, len(got), lv.want.Len)
			}
			checkRoundTrip(t, fmt.Sprintf("%s HC %d", want.Name, lv.level), src, got)
		}
	}
}

// checkRoundTrip decompresses a block with pierrec/lz4, an independent decoder.
func checkRoundTrip(t *testing.T, name string, src, block []byte) {
	t.Helper()
	out := make([]byte, len(src)+1)
	n, err := lz4.UncompressBlock(block, out)
	if err != nil || !bytes.Equal(out[:n], src) {
		t.Errorf("%s: block does not decompress to its input (%d of %d bytes, %v)", name, n, len(src), err)
	}
}

// TestRoundTrip checks that random inputs of every size up to past 64 KiB decode back.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var c Compressor
	for i := 0; i < 300; i++ {
		n := r.Intn(70000)
		if i < 40 {
			n = i
		}
		src := make([]byte, n)
		alphabet := 1 + r.Intn(255)
		for j := range src {
			if j > 8 && r.Intn(4) == 0 {
				src[j] = src[j-1-r.Intn(8)]
			} else {
				src[j] = byte(r.Intn(alphabet))
			}
		}
		block := c.CompressBlock(nil, src)
		if len(block) > CompressBound(n) {
			t.Errorf("%d bytes: block of %d over the bound %d", n, len(block), CompressBound(n))
		}
		checkRoundTrip(t, fmt.Sprintf("input %d (%d bytes)", i, n), src, block)
	}
}

// BenchmarkCompressBlock compresses a 16 KiB chunk of text, Cassandra's default chunk, with
// each compressor here and with pierrec/lz4's block compressor beside them.
func BenchmarkCompressBlock(b *testing.B) {
	src := referenceInputs()["text-16384"]
	dst := make([]byte, 0, CompressBound(len(src)))
	b.Run("fast", func(b *testing.B) {
		var c Compressor
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			dst = c.CompressBlock(dst[:0], src)
		}
	})
	b.Run("hc9", func(b *testing.B) {
		var c HCCompressor
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			dst = c.CompressBlockHC(dst[:0], src, 9)
		}
	})
	b.Run("pierrec", func(b *testing.B) {
		out := make([]byte, lz4.CompressBlockBound(len(src)))
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			if _, err := lz4.CompressBlock(src, out, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
