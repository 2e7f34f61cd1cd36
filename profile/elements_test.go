package profile

import (
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// A row of collections only has no simple cell to give its write time: the time most of its
// elements share is the INSERT's, and the elements SET m[k] = v added later are apart from it.
func TestElementTimesAgainstTheRow(t *testing.T) {
	col := func(name string, kind cql.ColumnKind, times ...int64) *colReader {
		return &colReader{col: &cql.Column{Name: name, Kind: kind}, times: times}
	}
	for _, c := range []struct {
		name             string
		cols             []*colReader
		rowWT            int64 // 0: from the elements
		wantRow          int64
		withRow, apart   []int // per column: values
		only             []int
		elemsRow, elemsA []int
	}{
		{
			name:    "written whole, then grown",
			cols:    []*colReader{col("labels", cql.Regular, 10, 10, 10), col("prefs", cql.Regular, 10, 17, 10, 10)},
			wantRow: 10, withRow: []int{1, 0}, apart: []int{0, 1}, only: []int{0, 0},
			elemsRow: []int{3, 3}, elemsA: []int{0, 1},
		},
		{
			name:    "updated element by element only, beside a simple cell",
			cols:    []*colReader{col("reactions", cql.Regular, 20, 30)},
			rowWT:   5,
			wantRow: 5, withRow: []int{0}, apart: []int{1}, only: []int{1},
			elemsRow: []int{0}, elemsA: []int{2},
		},
		{
			name:    "a static collection is not the row's",
			cols:    []*colReader{col("st", cql.Static, 1, 1, 1, 1), col("tags", cql.Regular, 8, 9, 8)},
			wantRow: 8, withRow: []int{0, 0}, apart: []int{0, 1}, only: []int{0, 0},
			elemsRow: []int{0, 2}, elemsA: []int{0, 1},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			sm := &sampler{cols: c.cols}
			row := c.rowWT
			if row == 0 {
				row = commonTime(sm.cols, false)
			}
			if row != c.wantRow {
				t.Fatalf("row write time %d, want %d", row, c.wantRow)
			}
			sm.elementTimes(row)
			for i, r := range c.cols {
				if r.withRow != c.withRow[i] || r.apart != c.apart[i] || r.onlyApart != c.only[i] ||
					r.elemsWithRow != c.elemsRow[i] || r.elemsApart != c.elemsA[i] {
					t.Errorf("%s: values with row %d, apart %d, only apart %d; elements with row %d, apart %d; want %d %d %d; %d %d",
						r.col.Name, r.withRow, r.apart, r.onlyApart, r.elemsWithRow, r.elemsApart,
						c.withRow[i], c.apart[i], c.only[i], c.elemsRow[i], c.elemsA[i])
				}
			}
		})
	}
}
