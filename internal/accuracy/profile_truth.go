package accuracy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gocql/gocql"
)

// Truth is what Cassandra wrote for one table after flush and compaction.
type Truth struct {
	Partitions int // live partitions sstablepartitions saw

	// Uncompressed partition sizes (sstablepartitions "size": bytes in Data.db before
	// compression). Typical is the median partition. Largest is the busiest key's, as the
	// sizing model defines it: the mean size of the partitions holding the most rows (one
	// partition under Zipf; every partition of a uniform table, whose sizes differ only by
	// the values drawn). Max is the single largest partition, which also carries the luck of
	// its value sizes and nulls.
	Typical, Largest, Max float64

	// The same partitions on disk: the compressed chunks they span, each chunk shared by the
	// partitions in it in proportion to their uncompressed bytes (CompressionInfo.db).
	TypicalDisk, LargestDisk, MaxDisk float64

	RowsP50, RowsP99, RowsMax float64 // rows per partition, from sstablepartitions rowCount

	DataBytes       int64 // uncompressed Data.db bytes (the sum of partition sizes)
	DataDiskBytes   int64 // Data.db files as they are on disk
	SpaceUsedLive   int64 // nodetool tablestats "Space used (live)": every component of the live sstables
	SSTables        int
	Compressor      string // from CompressionInfo.db ("" when uncompressed)
	ChunkLength     int
	CompressedRatio float64 // DataDiskBytes / DataBytes
}

// partition is one partition's place in its Data.db.
type partition struct {
	key          string
	data         string
	offset, size int64
	rows         int64
	live         bool
}

// ReadTruths measures tables' partitions with sstablepartitions (one run for all), their
// bytes on disk from each sstable's CompressionInfo.db, and each table's Space used (live)
// from nodetool tablestats (one run for the keyspace). The tables must be flushed and
// compacted.
func ReadTruths(ctx context.Context, s *gocql.Session, node *Node, keyspace string, tables []string) (map[string]*Truth, error) {
	dirs := make([]string, len(tables))
	tableOf := map[string]string{} // table directory -> table
	for i, t := range tables {
		d, err := node.TableDir(ctx, s, keyspace, t)
		if err != nil {
			return nil, err
		}
		dirs[i], tableOf[d] = d, t
	}
	out, err := node.run(ctx, append([]string{"sstablepartitions", "--csv", "--min-size", "0"}, dirs...)...)
	if err != nil {
		return nil, err
	}
	parts, err := parsePartitionOffsets(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyspace, err)
	}
	byTable := map[string][]partition{}
	for _, p := range parts {
		t, ok := tableOf[filepath.Dir(p.data)]
		if !ok {
			return nil, fmt.Errorf("sstablepartitions: %s is in none of the tables' directories", p.data)
		}
		byTable[t] = append(byTable[t], p)
	}
	ts, err := node.run(ctx, "nodetool", "tablestats", keyspace)
	if err != nil {
		return nil, err
	}
	live, err := parseSpaceUsedLive(string(ts))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyspace, err)
	}
	truths := map[string]*Truth{}
	for _, t := range tables {
		tr, err := truthOf(byTable[t])
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", keyspace, t, err)
		}
		var ok bool
		if tr.SpaceUsedLive, ok = live[t]; !ok {
			return nil, fmt.Errorf("%s.%s: nodetool tablestats has no Space used (live) for it", keyspace, t)
		}
		truths[t] = tr
	}
	return truths, nil
}

// truthOf sums up one table's partitions.
func truthOf(parts []partition) (*Truth, error) {
	tr := &Truth{}
	byData := map[string][]partition{}
	for _, p := range parts {
		byData[p.data] = append(byData[p.data], p)
	}
	disk := map[string]float64{} // key + data file -> bytes on disk
	for data, ps := range byData {
		tr.SSTables++
		st, err := os.Stat(data)
		if err != nil {
			return nil, err
		}
		tr.DataDiskBytes += st.Size()
		ci, err := ReadCompressionInfo(strings.TrimSuffix(data, "Data.db") + "CompressionInfo.db")
		switch {
		case errors.Is(err, os.ErrNotExist): // uncompressed: on disk as written
			for _, p := range ps {
				disk[p.key+"\x00"+p.data] = float64(p.size)
			}
			continue
		case err != nil:
			return nil, err
		}
		tr.Compressor, tr.ChunkLength = ci.Compressor, ci.ChunkLength
		for _, p := range ps {
			disk[p.key+"\x00"+p.data] = ci.DiskBytes(p.offset, p.size, st.Size())
		}
	}
	var live []partition
	for _, p := range parts {
		tr.DataBytes += p.size
		if p.live {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		return nil, fmt.Errorf("sstablepartitions reported no live partition (%d in all)", len(parts))
	}
	tr.Partitions = len(live)
	sort.Slice(live, func(i, j int) bool { return live[i].size < live[j].size })
	med := live[(len(live)-1)/2]
	top := live[len(live)-1]
	id := func(p partition) string { return p.key + "\x00" + p.data }
	tr.Typical, tr.Max = float64(med.size), float64(top.size)
	tr.TypicalDisk, tr.MaxDisk = disk[id(med)], disk[id(top)]
	rows := make([]int, len(live))
	for i, p := range live {
		rows[i] = int(p.rows)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(rows)))
	tr.RowsP50, tr.RowsP99, tr.RowsMax = rankQuantile(rows, 0.5), rankQuantile(rows, 0.99), float64(rows[0])
	var n float64
	for _, p := range live {
		if p.rows == int64(rows[0]) {
			n++
			tr.Largest += float64(p.size)
			tr.LargestDisk += disk[id(p)]
		}
	}
	tr.Largest, tr.LargestDisk = tr.Largest/n, math.Round(tr.LargestDisk/n)
	if tr.DataBytes > 0 {
		tr.CompressedRatio = float64(tr.DataDiskBytes) / float64(tr.DataBytes)
	}
	return tr, nil
}

// parsePartitionOffsets reads sstablepartitions --csv keeping what the profile truth needs:
// each partition's Data.db, offset, size and rows.
func parsePartitionOffsets(r io.Reader) ([]partition, error) {
	stats, err := ParseSSTablePartitionsCSV(r)
	if err != nil {
		return nil, err
	}
	out := make([]partition, len(stats))
	for i, p := range stats {
		out[i] = partition{key: p.Key, data: p.Data, offset: p.Offset, size: p.Size, rows: p.Rows, live: p.Live}
	}
	return out, nil
}

// parseSpaceUsedLive reads each table's "Space used (live): N" from nodetool tablestats of
// a keyspace (bytes; the command runs without -H).
func parseSpaceUsedLive(out string) (map[string]int64, error) {
	live := map[string]int64{}
	table := ""
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Table", "Table (index)":
			table = v
		case "Space used (live)":
			if table == "" {
				return nil, fmt.Errorf("tablestats: Space used (live) before any Table line")
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("tablestats: %s: Space used (live) %q: %w", table, v, err)
			}
			live[table] = n
		}
	}
	if len(live) == 0 {
		return nil, fmt.Errorf("tablestats: no Space used (live) line")
	}
	return live, nil
}

// CompressionInfo is an sstable's CompressionInfo.db: the compressor, the chunk length and
// where each compressed chunk starts in Data.db.
type CompressionInfo struct {
	Compressor  string
	ChunkLength int
	DataLength  int64   // uncompressed bytes
	Offsets     []int64 // chunk i starts at Offsets[i] in Data.db (each chunk is followed by a 4-byte checksum)
}

// ReadCompressionInfo reads CompressionInfo.db: writeUTF(compressor class), int option
// count and that many writeUTF pairs, int chunk length, int max compressed length (4.0 and
// later), long data length, int chunk count, then one long offset per chunk. The layout is
// checked against the file's length, so a format that differs is an error, not a misread.
func ReadCompressionInfo(path string) (*CompressionInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	r := bytes.NewReader(b)
	utf := func() (string, error) {
		var n uint16
		if err := binary.Read(r, binary.BigEndian, &n); err != nil {
			return "", err
		}
		s := make([]byte, n)
		_, err := io.ReadFull(r, s)
		return string(s), err
	}
	var ci CompressionInfo
	bad := func(err error) (*CompressionInfo, error) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if ci.Compressor, err = utf(); err != nil {
		return bad(err)
	}
	var opts, chunk, maxCompressed, chunks int32
	if err := binary.Read(r, binary.BigEndian, &opts); err != nil {
		return bad(err)
	}
	for i := int32(0); i < opts && i < 1000; i++ {
		if _, err := utf(); err != nil {
			return bad(err)
		}
		if _, err := utf(); err != nil {
			return bad(err)
		}
	}
	if err := binary.Read(r, binary.BigEndian, &chunk); err != nil {
		return bad(err)
	}
	if err := binary.Read(r, binary.BigEndian, &maxCompressed); err != nil {
		return bad(err)
	}
	if err := binary.Read(r, binary.BigEndian, &ci.DataLength); err != nil {
		return bad(err)
	}
	if err := binary.Read(r, binary.BigEndian, &chunks); err != nil {
		return bad(err)
	}
	if chunks < 0 || int64(r.Len()) != 8*int64(chunks) {
		return bad(fmt.Errorf("%d chunks but %d bytes of offsets left: not the 5.0 layout", chunks, r.Len()))
	}
	ci.ChunkLength = int(chunk)
	ci.Offsets = make([]int64, chunks)
	if err := binary.Read(r, binary.BigEndian, ci.Offsets); err != nil {
		return bad(err)
	}
	return &ci, nil
}

// DiskBytes is the on-disk share of the uncompressed range [offset, offset+size): each
// chunk it overlaps (compressed bytes and checksum) in proportion to the overlap. fileSize
// is Data.db's length, where the last chunk ends.
func (ci *CompressionInfo) DiskBytes(offset, size, fileSize int64) float64 {
	if ci.ChunkLength <= 0 || len(ci.Offsets) == 0 {
		return float64(size)
	}
	cl := int64(ci.ChunkLength)
	var total float64
	for c := offset / cl; c*cl < offset+size && c < int64(len(ci.Offsets)); c++ {
		end := fileSize
		if c+1 < int64(len(ci.Offsets)) {
			end = ci.Offsets[c+1]
		}
		onDisk := float64(end - ci.Offsets[c])
		lo, hi := max(offset, c*cl), min(offset+size, (c+1)*cl, ci.DataLength)
		chunkLen := min(cl, ci.DataLength-c*cl)
		if hi > lo && chunkLen > 0 {
			total += onDisk * float64(hi-lo) / float64(chunkLen)
		}
	}
	return math.Round(total)
}
