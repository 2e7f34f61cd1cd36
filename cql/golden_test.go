package cql

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with the file want (a path under testdata), rewriting it with -update.
func golden(t *testing.T, want string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(want, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	exp, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("read golden file (run go test ./cql -update to create it): %v", err)
	}
	if string(exp) != string(got) {
		t.Errorf("%s differs from the output (run go test ./cql -update to accept):\n--- got ---\n%s\n--- want ---\n%s", want, got, exp)
	}
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
