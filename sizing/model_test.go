package sizing

import (
	"math"
	"testing"
)

func TestVIntSize(t *testing.T) {
	for _, tc := range []struct {
		v    uint64
		want int
	}{
		{0, 1}, {127, 1}, {128, 2}, {16383, 2}, {16384, 3}, {1<<21 - 1, 3}, {1 << 21, 4},
		{1<<28 - 1, 4}, {1 << 28, 5}, {1<<35 - 1, 5}, {1 << 35, 6}, {1<<42 - 1, 6}, {1 << 42, 7},
		{1<<49 - 1, 7}, {1 << 49, 8}, {1<<56 - 1, 8}, {1 << 56, 9}, {math.MaxUint64, 9},
	} {
		if got := vIntSize(tc.v); got != tc.want {
			t.Errorf("vIntSize(%d) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

func TestExpectedVIntSize(t *testing.T) {
	for _, tc := range []struct {
		max, want float64
	}{
		{0, 1}, {100, 1}, {127, 1},
		// One second of microseconds: 128 values of 1 byte, 16256 of 2, the rest 3.
		{1e6, (1*128 + 2*(16384-128) + 3*(1e6-16384)) / 1e6},
		// An hour: up to 2^35 µs, so 5 bytes for most.
		{3.6e9, (1*128 + 2*(16384-128) + 3*(1<<21-16384) + 4*(1<<28-1<<21) + 5*(3.6e9-1<<28)) / 3.6e9},
	} {
		if got := expectedVIntSize(tc.max); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("expectedVIntSize(%g) = %v, want %v", tc.max, got, tc.want)
		}
	}
	// The storage doc's rule of thumb: ~3 bytes within a second, 4 a minute, 5 an hour, 6 a day.
	for _, tc := range []struct {
		spread float64 // seconds
		lo, hi float64
	}{{1, 2.9, 3}, {60, 3.9, 4}, {3600, 4.9, 5}, {86400, 5.5, 6}} {
		if got := expectedVIntSize(tc.spread * 1e6); got < tc.lo || got > tc.hi {
			t.Errorf("timestamp delta over %gs: %.2f bytes, want %g..%g", tc.spread, got, tc.lo, tc.hi)
		}
	}
	if got := expectedVIntRange(86400, 86400.001); got != 3 {
		t.Errorf("expectedVIntRange over a point: %v", got)
	}
}

// Each element of the byte model, computed by hand from the serializers' code. A write
// spread of 100µs makes every timestamp delta 1 byte.
func TestByteModelElements(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		table                []string
		pairs                []string
		header, static, row  float64
		tombRow, rangeMarker float64
		cells, tombs         float64 // per row
	}{
		{
			name:  "one int column, no clustering",
			table: []string{"id uuid pk", "v int"},
			// header: 2 + 16 + 12. row: flags 1, size 1, previous size 1, row timestamp 1, cell 1+4.
			header: 30, row: 9, cells: 1,
		},
		{
			name:  "composite key, text clustering",
			table: []string{"a text pk", "b int pk", "c text ck desc", "v text"},
			pairs: []string{"avg.a=5", "avg.c=10", "avg.v=100"},
			// key: 2 + (2+5+1) + (2+4+1); clustering: header 1 + vint 1 + 10; body: ts 1 + cell 1+1+100.
			header: 29, row: 1 + 12 + 1 + (103 + 1), cells: 1,
		},
		{
			name:  "half the values null: tombstone cells",
			table: []string{"id uuid pk", "ck int ck", "v text"},
			pairs: []string{"avg.v=50", "nulls.v=0.5"},
			// cell: half 1+1+50, half a tombstone 1 + local deletion time 1.
			header: 30, row: 1 + 5 + 1 + (1 + 26 + 1 + 1), cells: 1, tombs: 0.5,
		},
		{
			name:  "half of one column unset: the missing-column bitmap",
			table: []string{"id uuid pk", "ck int ck", "a int", "b int", "c int"},
			pairs: []string{"nulls.a=0.5", "nulls_as=unset"},
			// bitmap of 1 byte in half the rows; cells 0.5·5 + 5 + 5.
			header: 30, row: 1 + 5 + 1 + (1 + 0.5 + 12.5 + 1), cells: 2.5,
		},
		{
			name:  "set<text> written by INSERT: a collection tombstone per row",
			table: []string{"id uuid pk", "tags set<text>"},
			pairs: []string{"items.tags.count=3", "items.tags.size=8"},
			// deletion ts 1 + ldt 1, count 1, cells 3·(flags 1 + path 1+8, empty value).
			header: 30, row: 1 + 1 + (1 + 2 + 1 + 30 + 1), cells: 3, tombs: 1,
		},
		{
			name:   "list<int>: a timeuuid path per element, the value length-prefixed",
			table:  []string{"id uuid pk", "l list<int>"},
			pairs:  []string{"items.l.count=2"},
			header: 30, row: 1 + 1 + (1 + 2 + 1 + 2*(1+17+5) + 1), cells: 2, tombs: 1,
		},
		{
			name:   "map<text,int>",
			table:  []string{"id uuid pk", "m map<text,int>"},
			pairs:  []string{"items.m.count=2", "items.m.key=6", "items.m.value=4"},
			header: 30, row: 1 + 1 + (1 + 2 + 1 + 2*(1+7+5) + 1), cells: 2, tombs: 1,
		},
		{
			name:  "frozen<list<text>>: one cell",
			table: []string{"id uuid pk", "l frozen<list<text>>"},
			pairs: []string{"items.l.count=2", "items.l.size=10"},
			// value: 4 + 2·(4+10) = 32 bytes after a 1-byte length.
			header: 30, row: 1 + 1 + (1 + 1 + 1 + 32 + 1), cells: 1,
		},
		{
			name:  "static column: a static row with its own timestamps",
			table: []string{"id uuid pk", "ck int ck", "s text static", "v int"},
			pairs: []string{"avg.s=20"},
			// static: flags 2, size 1, previous size 1 (0), cell 1 + ts 1 + 1+20.
			header: 30, static: 2 + 1 + (23 + 1), row: 1 + 5 + 1 + (1 + 5 + 1), cells: 1,
		},
		{
			name:   "TTL: the row marker carries TTL and expiry, cells borrow them",
			table:  []string{"id uuid pk", "v int"},
			pairs:  []string{"ttl=1d"},
			header: 30, row: 1 + 1 + (3 + 5 + 1), cells: 1,
		},
		{
			name:  "TTL beside tombstones: TTL and expiry written whole (the minimums are 0 and now)",
			table: []string{"id uuid pk", "v text"},
			pairs: []string{"ttl=1d", "avg.v=10", "nulls.v=0.5"},
			// marker: ts 1 + ttl vint(86400)=3 + expiry vint(86400)=3; cell half 1+1+10, half 1+1.
			header: 30, row: 1 + 1 + (7 + 7 + 1), cells: 1, tombs: 0.5,
		},
		{
			name:   "UPDATE: no row marker, every cell its own timestamp",
			table:  []string{"id uuid pk", "ck int ck", "v int"},
			pairs:  []string{"writes=update"},
			header: 30, row: 1 + 5 + 1 + (6 + 1), cells: 1,
		},
		{
			name:  "deleted rows and range markers",
			table: []string{"id uuid pk", "ck int ck", "a int", "b int"},
			pairs: []string{"deletes=[{kind: row, per_partition: 1}]", "deletes=[{kind: range, per_partition: 1, rows: 2}]", "rows=10"},
			// deleted row: flags, clustering 5, size, deletion 1+1, bitmap of 2 missing columns 1.
			// marker: flags, kind, u16 size, bound 1+4, size, previous size 1, deletion 1+1.
			header: 30, row: 1 + 5 + 1 + (1 + 10 + 1), tombRow: 1 + 5 + 1 + (3 + 1), rangeMarker: 1 + 1 + 2 + 5 + 1 + 3, cells: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := mustTable("ks.t", tc.table...)
			pairs := append([]string{"write_spread=100us"}, tc.pairs...)
			if !hasPrefix(pairs, "rows=") {
				pairs = append(pairs, "rows=1")
			}
			w, err := fromSettings("t", pairs...)
			if err != nil {
				t.Fatal(err)
			}
			p, err := newPlan(tbl, w, nil)
			if err != nil {
				t.Fatal(err)
			}
			sh := p.shape()
			check := func(what string, got, want float64) {
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("partition header", sh.header, tc.header)
			check("static row", sh.static, tc.static)
			check("row", sh.row, tc.row)
			check("cells a row", sh.rowCells, tc.cells)
			check("tombstones a row", sh.rowNullTombs+sh.rowComplex, tc.tombs)
			if tc.tombRow > 0 {
				check("deleted row", sh.tombRow, tc.tombRow)
				check("range marker", sh.marker, tc.rangeMarker)
			}
			// The partition adds up: header, static row, rows, the end byte.
			pt := p.partitionAt(sh, 1, p.life(0), p.life(0))
			want := tc.header + tc.static + pt.Rows*tc.row + pt.Tombstones.Rows*sh.tombRow + pt.Tombstones.RangeMarkers*sh.marker + 1
			check("partition", pt.Bytes, want)
		})
	}
}

func hasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

func TestHistogramBucket(t *testing.T) {
	// The first offsets of EstimatedHistogram: 1, 2, 3, ..., 8, 10, 12, 14, 17, 20, 24, 29, 35, 42.
	for _, tc := range []struct {
		size float64
		want int64
	}{{0, 1}, {1, 1}, {2, 2}, {8, 8}, {9, 10}, {10, 10}, {11, 12}, {15, 17}, {36, 42}, {11864, 11864}, {11865, 14237}} {
		if got := HistogramBucket(tc.size); got != tc.want {
			t.Errorf("HistogramBucket(%v) = %d, want %d", tc.size, got, tc.want)
		}
	}
}
