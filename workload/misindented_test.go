package workload

import "testing"

func TestMisindented(t *testing.T) {
	for _, tc := range []struct {
		name      string
		yaml      string
		from      int
		line, col int
	}{
		{"dedent between two keys", "version: 1\ntables:\n  users:\n    partitions: 1000\n   rows_per_partition: 1\n", 2, 5, 4},
		{"dedent below the first key", "tables:\n  a:\n    rows: 1\n b: 2\n", 1, 4, 2},
		{"well indented", "version: 1\ntables:\n  users:\n    partitions: 1000\n  posts:\n    rows: 2\n", 1, 0, 0},
		{"lists and comments", "tables:\n  a:\n    columns:\n    - x\n    - y\n# note\n  b:\n    rows: 1\n", 1, 0, 0},
		{"before the reported line is not blamed", "a:\n  b: 1\n c: 2\nd:\n  e: 1\n", 4, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line, col := misindented([]byte(tc.yaml), tc.from)
			if line != tc.line || col != tc.col {
				t.Errorf("misindented = %d:%d, want %d:%d", line, col, tc.line, tc.col)
			}
		})
	}
}
