package disk

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// table parses a CREATE TABLE in keyspace ks.
func table(t testing.TB, ddl string) *cql.Table {
	t.Helper()
	s := cql.NewSchema()
	if err := s.ApplyFile("t.cql", []byte("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"+ddl+";")); err != nil {
		t.Fatal(err)
	}
	tables := s.Tables()
	if len(tables) != 1 {
		t.Fatalf("%d tables in %q", len(tables), ddl)
	}
	return tables[0]
}

func i32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// protocol encodes a list or set of values the way the native protocol does.
func protocol(vals ...[]byte) []byte {
	b := i32(int32(len(vals)))
	for _, v := range vals {
		b = append(b, i32(int32(len(v)))...)
		b = append(b, v...)
	}
	return b
}

const ts0 = 1_700_000_000_000_000

func TestLayoutBytes(t *testing.T) {
	for _, c := range []struct {
		name string
		ddl  string
		p    Partition
		want []byte
	}{
		{
			name: "one text cell under the row marker",
			ddl:  "CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
			p:    Partition{Key: [][]byte{i32(1)}, Rows: []Row{{Cells: map[string]Cell{"v": {Value: []byte("ab"), Timestamp: ts0}}}}},
			want: []byte{
				0, 4, 0, 0, 0, 1, // key
				0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, // live
				0x24,     // has timestamp, has all columns
				6, 18, 0, // size, previous size (the partition header), marker timestamp delta
				0x08, 2, 'a', 'b', // cell: row's timestamp, value
				0x01, // end of partition
			},
		},
		{
			name: "clustering, a null tombstone and an unset column",
			ddl:  "CREATE TABLE ks.t (k int, c int, a int, b text, z text, PRIMARY KEY (k, c))",
			p: Partition{Key: [][]byte{i32(1)}, Rows: []Row{{Clustering: [][]byte{i32(7)}, Cells: map[string]Cell{
				"a": {Value: i32(5), Timestamp: ts0},
				"b": {Null: true, Timestamp: ts0},
			}}, {Clustering: [][]byte{i32(8)}, Cells: map[string]Cell{
				"a": {Value: i32(6), Timestamp: ts0 + 1},
				"b": {Value: []byte("x"), Timestamp: ts0 + 1},
				"z": {Value: []byte("y"), Timestamp: ts0 + 1},
			}}}},
			want: []byte{
				0, 4, 0, 0, 0, 1,
				0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0,
				0x04, 0, 0, 0, 0, 7, // has timestamp (not all columns), clustering header, c
				10, 18, 0, // size, previous (the partition header), marker
				0x04,             // subset: z (third header column) missing
				0x08, 0, 0, 0, 5, // a: row timestamp, fixed int
				0x0D, 0, // b: deleted, empty, row timestamp; deletion time delta
				0x24, 0, 0, 0, 0, 8, // second row: all columns
				13, 17, 1, // size, previous row's size, marker delta 1
				0x08, 0, 0, 0, 6,
				0x08, 1, 'x',
				0x08, 1, 'y',
				0x01,
			},
		},
		{
			name: "set elements are paths after a collection deletion",
			ddl:  "CREATE TABLE ks.t (k int PRIMARY KEY, s set<text>)",
			p: Partition{Key: [][]byte{i32(2)}, Rows: []Row{{Cells: map[string]Cell{
				"s": {Value: protocol([]byte("a"), []byte("bc")), Timestamp: ts0},
			}}}},
			want: []byte{
				0, 4, 0, 0, 0, 2,
				0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0,
				0x64,      // has timestamp, all columns, complex deletion
				12, 18, 1, // size, previous, marker 1 above the deletion's timestamp-1
				0, 0, // deletion: timestamp delta 0, local deletion time delta 0
				2,            // two cells
				0x0C, 1, 'a', // empty value, row timestamp, path
				0x0C, 2, 'b', 'c',
				0x01,
			},
		},
		{
			// An INSERT wrote {a, bc} at ts0, then SET s = s + {'bc'} again at ts0+5: the later
			// element carries its own timestamp (sstabledump shows tstamp on that cell only).
			name: "an element written apart from its row has its own timestamp",
			ddl:  "CREATE TABLE ks.t (k int PRIMARY KEY, s set<text>)",
			p: Partition{Key: [][]byte{i32(2)}, Rows: []Row{{Cells: map[string]Cell{
				"s": {Value: protocol([]byte("a"), []byte("bc")), Timestamp: ts0, ElementTimestamps: []int64{ts0, ts0 + 5}},
			}}}},
			want: []byte{
				0, 4, 0, 0, 0, 2,
				0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0,
				0x64,
				13, 18, 1,
				0, 0,
				2,
				0x0C, 1, 'a', // the INSERT's element: the row's timestamp
				0x04, 6, 2, 'b', 'c', // the later one: its timestamp, 6 above the deletion's
				0x01,
			},
		},
		{
			// As the node wrote them (sstabledump positions in an uncompressed Data.db): a row
			// DELETE is flags 0x10, clustering, sizes, the deletion's timestamp and local
			// deletion time, and a subset saying both columns are missing ("10 00 00000000 07
			// 14 e0234e0e 01 03" there, its timestamp 2 s past the minimum).
			name: "a deleted row",
			ddl:  "CREATE TABLE ks.t (k int, c int, item text, qty int, PRIMARY KEY (k, c))",
			p: Partition{Key: [][]byte{i32(1)}, Rows: []Row{
				{Clustering: [][]byte{i32(0)}, Cells: map[string]Cell{"item": {Value: []byte("x"), Timestamp: ts0}, "qty": {Value: i32(9), Timestamp: ts0}}},
				{Clustering: [][]byte{i32(1)}, Deleted: ts0 + 2_000_000},
			}},
			want: []byte{
				0, 4, 0, 0, 0, 1,
				0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0,
				0x24, 0, 0, 0, 0, 0, 10, 18, 0, 0x08, 1, 'x', 0x08, 0, 0, 0, 9,
				0x10, 0, 0, 0, 0, 1, // has deletion, clustering
				6, 17, // size, previous row's size
				0xDE, 0x84, 0x80, // deletion timestamp delta 2,000,000
				0,    // local deletion time delta: the only one, the minimum
				0x03, // subset: both columns missing
				0x01,
			},
		},
		{
			// An expired row after the compaction that rewrote it: its liveness (TTL 3 s and
			// expiry, the minimums) and each cell a tombstone at its write time, 3 s before the
			// minimum deletion time: a 9-byte negative delta ("2c 00 00000003 1a 33 ca09fb 00 00
			// 0d ffffffffffffffff fd 0d ffffffffffffffff fd" in the node's file).
			name: "an expired row",
			ddl:  "CREATE TABLE ks.t (k int, c int, note text, value double, PRIMARY KEY (k, c))",
			p: Partition{Key: [][]byte{i32(1)}, Rows: []Row{
				{Clustering: [][]byte{i32(3)}, Marker: &Cell{Timestamp: ts0, TTL: 3}, Cells: map[string]Cell{
					"note": {Expired: true, TTL: 3, Timestamp: ts0}, "value": {Expired: true, TTL: 3, Timestamp: ts0}}},
			}},
			want: []byte{
				0, 4, 0, 0, 0, 1,
				0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0,
				0x2C, 0, 0, 0, 0, 3, // timestamp, TTL, all columns; clustering
				24, 18, // size, previous size (the partition header)
				0, 0, 0, // timestamp, TTL and expiry deltas: the minimums
				0x0D, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFD, // note: deleted 3 s before the minimum
				0x0D, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFD,
				0x01,
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := table(t, c.ddl)
			got := layoutOf(t, tb, c.p)
			if !bytes.Equal(got, c.want) {
				t.Errorf("layout\n got % x\nwant % x", got, c.want)
			}
		})
	}
}

// Once any partition has static data, every partition carries a static row: an empty one
// says with its subset bitmap that every static column is missing.
func TestLayoutStatic(t *testing.T) {
	tb := table(t, "CREATE TABLE ks.t (k int, c int, s int static, v int, PRIMARY KEY (k, c))")
	row := Row{Clustering: [][]byte{i32(1)}, Cells: map[string]Cell{"v": {Value: i32(5), Timestamp: ts0}}}
	got := layoutOf(t, tb,
		Partition{Key: [][]byte{i32(1)}, Static: &Row{Cells: map[string]Cell{"s": {Value: i32(1), Timestamp: ts0}}}, Rows: []Row{row}},
		Partition{Key: [][]byte{i32(2)}, Rows: []Row{row}})
	want := []byte{
		0, 4, 0, 0, 0, 1,
		0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0,
		0xA0, 0x01, 7, 0, // static: extension flag, all columns; is-static; size; previous 0
		0x00, 0, 0, 0, 0, 1, // s: its own timestamp (a static row has no marker)
		0x24, 0, 0, 0, 0, 1, 7, 28, 0, // row: previous size is the header with the static row
		0x08, 0, 0, 0, 5,
		0x01,
		0, 4, 0, 0, 0, 2,
		0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0,
		0x80, 0x01, 2, 0, 0x01, // empty static row: s missing
		0x24, 0, 0, 0, 0, 1, 7, 23, 0,
		0x08, 0, 0, 0, 5,
		0x01,
	}
	if !bytes.Equal(got, want) {
		t.Errorf("layout\n got % x\nwant % x", got, want)
	}
}

// layoutOf lays partitions out as Predict does.
func layoutOf(t *testing.T, tb *cql.Table, ps ...Partition) []byte {
	t.Helper()
	l, err := newLayout(tb)
	if err != nil {
		t.Fatal(err)
	}
	reg, st := map[string]bool{}, map[string]bool{}
	var parts []partition
	for i, p := range ps {
		pp, err := l.convert(i, p, reg, st)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, pp)
	}
	l.regular, l.static = l.headerColumns(reg), l.headerColumns(st)
	l.collectStats(parts)
	var b []byte
	for i := range parts {
		b = l.writePartition(b, &parts[i])
	}
	return b
}

// A counter context's clock is the leader's wall clock at the update, in microseconds at
// millisecond resolution (on the node: clock ...569000 for a write time of ...493042).
func TestCounterClockIsTheWriteTimeToTheMillisecond(t *testing.T) {
	tb := table(t, "CREATE TABLE ks.t (k int PRIMARY KEY, c counter)")
	ts := int64(1795676749493042)
	got := layoutOf(t, tb, Partition{Key: [][]byte{i32(1)}, Rows: []Row{{Update: true, Cells: map[string]Cell{
		"c": {Value: binary.BigEndian.AppendUint64(nil, 5), Timestamp: ts},
	}}}})
	want := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 1795676749493000), 5)
	if !bytes.Contains(got, want) {
		t.Errorf("layout % x\nholds no clock %d followed by the count 5", got, int64(1795676749493000))
	}
}
