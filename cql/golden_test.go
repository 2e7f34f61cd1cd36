package cql

import (
	"path/filepath"
	"testing"

	goldenfile "github.com/cqlsize/cqlsize/internal/golden"
)

// golden compares got with the file want (a path under testdata), rewriting it with -update.
func golden(t *testing.T, want string, got []byte) {
	t.Helper()
	goldenfile.Compare(t, want, got)
}

// inputs returns the files matching pattern under testdata.
func inputs(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no test inputs match testdata/%s", pattern)
	}
	return files
}
