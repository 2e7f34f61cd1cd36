package accuracy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

func TestRankQuantile(t *testing.T) {
	desc := make([]int, 200)
	for i := range desc {
		desc[i] = 200 - i // 200, 199, ..., 1
	}
	for _, c := range []struct {
		q    float64
		want float64
	}{{0.99, 199}, {0.5, 101}, {1, 200}, {0, 1}} {
		if got := rankQuantile(desc, c.q); got != c.want {
			t.Errorf("rankQuantile(q=%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := rankQuantile(nil, 0.99); got != 0 {
		t.Errorf("rankQuantile(nil) = %v", got)
	}
}

func TestParseSpaceUsedLive(t *testing.T) {
	out := `Total number of tables: 2
----------------
Keyspace: ks
	Read Count: 0
		Table: a
		SSTable count: 1
		Space used (live): 1234
		Space used (total): 1234
		Table: b
		Space used (live): 0
`
	got, err := parseSpaceUsedLive(out)
	if err != nil || got["a"] != 1234 || got["b"] != 0 || len(got) != 2 {
		t.Errorf("parseSpaceUsedLive = %v, %v", got, err)
	}
	for _, bad := range []string{"nothing", "Space used (live): 5", "Table: a\nSpace used (live): x"} {
		if _, err := parseSpaceUsedLive(bad); err == nil {
			t.Errorf("parseSpaceUsedLive(%q): no error", bad)
		}
	}
}

// compressionInfo writes a CompressionInfo.db in the 5.0 layout.
func compressionInfo(t *testing.T, chunk int32, dataLen int64, offsets []int64, extra int) string {
	var b bytes.Buffer
	utf := func(s string) {
		_ = binary.Write(&b, binary.BigEndian, uint16(len(s)))
		b.WriteString(s)
	}
	utf("LZ4Compressor")
	_ = binary.Write(&b, binary.BigEndian, int32(1))
	utf("lz4_compressor_type")
	utf("fast")
	_ = binary.Write(&b, binary.BigEndian, chunk)
	_ = binary.Write(&b, binary.BigEndian, int32(chunk))
	_ = binary.Write(&b, binary.BigEndian, dataLen)
	_ = binary.Write(&b, binary.BigEndian, int32(len(offsets)))
	_ = binary.Write(&b, binary.BigEndian, offsets)
	b.Write(make([]byte, extra))
	p := filepath.Join(t.TempDir(), "nb-1-big-CompressionInfo.db")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadCompressionInfo(t *testing.T) {
	// Three chunks of 100 uncompressed bytes (the last holds 50), compressed to 54, 24 and 14
	// bytes with their 4-byte checksums; Data.db is 92 bytes.
	p := compressionInfo(t, 100, 250, []int64{0, 54, 78}, 0)
	ci, err := ReadCompressionInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Compressor != "LZ4Compressor" || ci.ChunkLength != 100 || ci.DataLength != 250 || len(ci.Offsets) != 3 {
		t.Fatalf("ReadCompressionInfo = %+v", ci)
	}
	for _, c := range []struct {
		off, size int64
		want      float64
	}{
		{0, 100, 54},       // the first chunk whole
		{0, 50, 27},        // half of it
		{50, 100, 27 + 12}, // half of the first, half of the second
		{200, 50, 14},      // the short last chunk whole
		{0, 250, 92},       // everything
	} {
		if got := ci.DiskBytes(c.off, c.size, 92); got != c.want {
			t.Errorf("DiskBytes(%d, %d) = %v, want %v", c.off, c.size, got, c.want)
		}
	}
	// A layout that does not add up (trailing bytes) is refused, not misread.
	if _, err := ReadCompressionInfo(compressionInfo(t, 100, 250, []int64{0, 54, 78}, 4)); err == nil || !strings.Contains(err.Error(), "not the 5.0 layout") {
		t.Errorf("trailing bytes: %v", err)
	}
	if _, err := ReadCompressionInfo(filepath.Join(t.TempDir(), "none")); !os.IsNotExist(errUnwrap(err)) {
		t.Errorf("missing file: %v", err)
	}
}

func errUnwrap(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestParsePartitionOffsets(t *testing.T) {
	f, err := os.Open("testdata/sstablepartitions.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parts, err := parsePartitionOffsets(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 || parts[1].offset != 47 || parts[1].size != 51 || !strings.HasSuffix(parts[1].data, "-Data.db") {
		t.Errorf("parsePartitionOffsets = %+v", parts)
	}
}

func TestPartitionBatchesAndTTL(t *testing.T) {
	d := &Data{Partitions: []*PartitionData{{Rows: 3}, {Rows: 0}, {Rows: 2}}}
	big := strings.Repeat("x", maxBatchBytes/3)
	for i := 0; i < 5; i++ {
		d.stmts = append(d.stmts, stmt{cql: "INSERT INTO t (k) VALUES (?) USING TIMESTAMP ?", args: []any{big, int64(i)}})
	}
	batches, err := partitionBatches("t", d)
	if err != nil {
		t.Fatal(err)
	}
	// Two rows of a third of the limit (and their overhead) fit a batch, three do not:
	// partition 1 is cut after two rows, and no batch mixes partitions.
	var sizes []int
	for _, b := range batches {
		sizes = append(sizes, len(b))
	}
	if fmt.Sprint(sizes) != "[2 1 2]" {
		t.Errorf("batch sizes %v, want [2 1 2]", sizes)
	}
	n := withTTL(batches, 1, 60, 1)
	if n != 5 {
		t.Errorf("withTTL changed %d rows, want 5", n)
	}
	for _, b := range batches {
		for _, st := range b {
			if !strings.HasSuffix(st.cql, "USING TIMESTAMP ? AND TTL ?") || st.args[len(st.args)-1] != 60 {
				t.Errorf("not given a TTL: %s %v", st.cql, st.args[len(st.args)-1])
			}
		}
	}
	if withTTL(batches, 0, 60, 1) != 0 {
		t.Error("fraction 0 changed rows")
	}
	d.stmts = d.stmts[:4]
	if _, err := partitionBatches("t", d); err == nil {
		t.Error("4 statements for 5 rows: no error")
	}
}

func TestRetryable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&gocql.RequestErrWriteTimeout{}, true},
		{fmt.Errorf("batch: %w", &gocql.RequestErrUnavailable{}), true},
		{gocql.ErrTimeoutNoResponse, true},
		{&gocql.RequestErrReadTimeout{}, false},
		{fmt.Errorf("syntax"), false},
	} {
		if got := retryable(c.err); got != c.want {
			t.Errorf("retryable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
