package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing the test.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) {
	r.fatals = append(r.fatals, sprintf(format, a...))
}

func sprintf(format string, a ...any) string { return strings.TrimSpace(fmt.Sprintf(format, a...)) }

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.golden")

	r := &recorder{TB: t}
	Compare(r, path, []byte("a\nb\n"))
	if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], "go test -update to create it") {
		t.Errorf("missing file: fatals %q", r.fatals)
	}

	*Update = true
	Compare(&recorder{TB: t}, path, []byte("a\nb\n"))
	*Update = false
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}

	r = &recorder{TB: t}
	Compare(r, path, []byte("a\nb\n"))
	if len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("same output: %q %q", r.errors, r.fatals)
	}
	r = &recorder{TB: t}
	Compare(r, path, []byte("a\nc\n"))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "line 2:\n  want b\n  got  c") {
		t.Errorf("different output: %q", r.errors)
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct{ want, got, diff string }{
		{"a\nb", "a\nb", ""},
		{"a", "a\nb", "line 2:\n  want (none)\n  got  b\n"},
		{"x\ny", "x", "line 2:\n  want y\n  got  (none)\n"},
	} {
		if d := Diff(tc.want, tc.got); d != tc.diff {
			t.Errorf("Diff(%q, %q) = %q, want %q", tc.want, tc.got, d, tc.diff)
		}
	}
	long := strings.Repeat("x\n", 30)
	if d := Diff(long, strings.Repeat("y\n", 30)); !strings.Contains(d, "... and 10 more differing lines") || strings.Count(d, "line ") != maxDiffLines {
		t.Errorf("long diff: %q", d)
	}
}
