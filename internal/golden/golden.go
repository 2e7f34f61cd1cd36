// Package golden compares a test's output with a golden file and rewrites the file under
// `go test -update`. Every package's golden tests share it, so -update means the same
// everywhere and a difference always reads the same way: the lines that differ, numbered.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Update is the -update flag: rewrite the golden files with this run's output instead of
// comparing. Review the diff (git diff testdata) before committing what it wrote.
var Update = flag.Bool("update", false, "rewrite the golden files with this run's output")

// maxDiffLines bounds how many differing lines a failure shows: enough to see the change,
// not a whole rewritten file.
const maxDiffLines = 20

// Compare fails t when got differs from the file at path, showing the lines that differ.
// With -update it writes got to path instead (creating its directory). A missing file is a
// failure that says how to create it.
func Compare(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("create the golden file's directory: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("write golden file: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test -update and review the diff):\n%s", path, Diff(string(want), string(got)))
	}
}

// Diff lists the lines where want and got differ, by line number, "line 3:\n  want x\n  got
// y\n", at most maxDiffLines of them and then how many more.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown, more := 0, 0
	for i := 0; i < len(w) || i < len(g); i++ {
		wl, gl := "(none)", "(none)"
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		if shown == maxDiffLines {
			more++
			continue
		}
		shown++
		fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
	}
	if more > 0 {
		fmt.Fprintf(&b, "... and %d more differing lines\n", more)
	}
	return b.String()
}
