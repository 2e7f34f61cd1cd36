package disk

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// textSample is n single-row partitions of table (k int PRIMARY KEY, v text) with values from gen.
func textSample(n int, gen func(i int) string) []Partition {
	out := make([]Partition, n)
	for i := range out {
		out[i] = Partition{Key: [][]byte{i32(int32(i))}, Rows: []Row{{Cells: map[string]Cell{
			"v": {Value: []byte(gen(i)), Timestamp: ts0 + int64(i)*1000},
		}}}}
	}
	return out
}

func randomBytes(r *rand.Rand, n int) string {
	b := make([]byte, n)
	r.Read(b)
	return string(b)
}

func TestPredictCompressors(t *testing.T) {
	tb := table(t, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	r := rand.New(rand.NewSource(1))
	random := textSample(2000, func(int) string { return randomBytes(r, 100) })
	repetitive := textSample(2000, func(i int) string { return strings.Repeat(fmt.Sprintf("order %d shipped ", i%7), 5) })
	for _, class := range []string{"LZ4Compressor", "ZstdCompressor", "SnappyCompressor", "DeflateCompressor"} {
		c := Compression{Class: class, ChunkLengthKB: 16, Enabled: true, Level: 3}
		pr, err := Predict(tb, random, c)
		if err != nil {
			t.Fatal(err)
		}
		pp, err := Predict(tb, repetitive, c)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Uncompressed != pp.Uncompressed && pp.Ratio >= pr.Ratio {
			t.Errorf("%s: repetitive text ratio %.3f is not below random bytes' %.3f", class, pp.Ratio, pr.Ratio)
		}
		if pp.Ratio > 0.5 {
			t.Errorf("%s: repetitive text compresses to %.2f of its size, want under half", class, pp.Ratio)
		}
		if pr.Ratio < 0.8 {
			t.Errorf("%s: random bytes compress to %.2f of their size, want at least 0.8", class, pr.Ratio)
		}
		var sum float64
		var unc int64
		for _, p := range pp.PerPartition {
			sum += p.Compressed
			unc += p.Uncompressed
		}
		if math.Abs(sum-pp.Compressed) > 1e-6*pp.Compressed || float64(unc) != pp.Uncompressed {
			t.Errorf("%s: partitions add up to %.1f/%d bytes, the file is %.1f/%.0f", class, sum, unc, pp.Compressed, pp.Uncompressed)
		}
		if want := int(math.Ceil(pp.Uncompressed / 16384)); pp.Chunks != want {
			t.Errorf("%s: %d chunks for %.0f bytes, want %d", class, pp.Chunks, pp.Uncompressed, want)
		}
	}
}

// A chunk that does not compress below chunk/min_compress_ratio is stored as is; with no
// compression every chunk still carries its checksum; disabled compression writes Data.db raw.
func TestPredictStoredChunks(t *testing.T) {
	tb := table(t, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	r := rand.New(rand.NewSource(2))
	random := textSample(1000, func(int) string { return randomBytes(r, 200) })
	for _, c := range []struct {
		name string
		c    Compression
		want func(p *Prediction) float64
	}{
		{"lz4 min ratio 1.1", Compression{Class: "LZ4Compressor", ChunkLengthKB: 16, MinCompressRatio: 1.1, Enabled: true}, func(p *Prediction) float64 {
			last := p.Uncompressed - 16384*float64(p.Chunks-1)
			return 16384*float64(p.Chunks-1) + math.Max(last, 14895) + 4*float64(p.Chunks)
		}},
		{"noop", Compression{Class: "NoopCompressor", ChunkLengthKB: 16, Enabled: true}, func(p *Prediction) float64 {
			return p.Uncompressed + 4*float64(p.Chunks)
		}},
		{"disabled", Compression{Class: "NoopCompressor", ChunkLengthKB: 16}, func(p *Prediction) float64 { return p.Uncompressed }},
	} {
		p, err := Predict(tb, random, c.c)
		if err != nil {
			t.Fatal(err)
		}
		if want := c.want(p); p.Compressed != want {
			t.Errorf("%s: Data.db %.0f bytes, want %.0f", c.name, p.Compressed, want)
		}
	}
}

func TestPredictErrors(t *testing.T) {
	tb := table(t, "CREATE TABLE ks.t (k int, c int, s int static, v text, PRIMARY KEY (k, c))")
	row := func(cells map[string]Cell) []Row { return []Row{{Clustering: [][]byte{i32(1)}, Cells: cells}} }
	v := map[string]Cell{"v": {Value: []byte("x"), Timestamp: ts0}}
	for _, c := range []struct {
		name string
		p    Partition
		want string
	}{
		{"key components", Partition{Key: [][]byte{i32(1), i32(2)}, Rows: row(v)}, "2 key components"},
		{"clustering values", Partition{Key: [][]byte{i32(1)}, Rows: []Row{{Cells: v}}}, "0 clustering values"},
		{"unknown column", Partition{Key: [][]byte{i32(1)}, Rows: row(map[string]Cell{"nope": {}})}, `"nope" is not in table`},
		{"key column as a cell", Partition{Key: [][]byte{i32(1)}, Rows: row(map[string]Cell{"c": {}})}, "clustering column, not a regular one"},
		{"static in a row", Partition{Key: [][]byte{i32(1)}, Rows: row(map[string]Cell{"s": {}})}, "static column, not a regular one"},
		{"regular in the static row", Partition{Key: [][]byte{i32(1)}, Static: &Row{Cells: v}}, `"v" is not static`},
		{"negative TTL", Partition{Key: [][]byte{i32(1)}, Rows: row(map[string]Cell{"v": {TTL: -1}})}, "negative TTL"},
		{"empty row", Partition{Key: [][]byte{i32(1)}, Rows: row(nil)}, "no cells and no marker"},
	} {
		_, err := Predict(tb, []Partition{c.p}, DefaultCompression())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	if _, err := Predict(tb, nil, DefaultCompression()); err == nil {
		t.Error("an empty sample: no error")
	}
	if _, err := Predict(tb, []Partition{{Key: [][]byte{i32(1)}, Rows: row(v)}}, Compression{Class: "Gzip", Enabled: true}); err == nil {
		t.Error("an unknown compressor: no error")
	}
}

func TestScale(t *testing.T) {
	tb := table(t, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	p, err := Predict(tb, textSample(1000, func(i int) string { return fmt.Sprintf("value %d", i) }), DefaultCompression())
	if err != nil {
		t.Fatal(err)
	}
	one := p.Scale(float64(p.Partitions))
	if d := math.Abs(one.Total-p.Components.Total()) / p.Components.Total(); d > 0.01 {
		t.Errorf("Scale(sample size) = %.0f bytes, the sample's sstable is %.0f", one.Total, p.Components.Total())
	}
	big := p.Scale(1e6)
	if r := big.Components.Data / p.Compressed; math.Abs(r-1000) > 1e-6 {
		t.Errorf("a million partitions hold %.1f times the sample's Data.db, want 1000", r)
	}
	// Bloom filter at 0.01: 10 bits a key.
	if f := big.Components.Filter; math.Abs(f-1.25e6) > 100 {
		t.Errorf("Filter.db for a million keys = %.0f bytes, want about 1.25 MB", f)
	}
	if big.Components.Index < 1e6*(2+4+3) {
		t.Errorf("Index.db for a million 4-byte keys = %.0f bytes, want at least 9 a key", big.Components.Index)
	}
	if (Estimate{}) != (*Prediction)(nil).Scale(10) || (Estimate{}) != p.Scale(0) {
		t.Error("Scale of nothing is not zero")
	}
}
