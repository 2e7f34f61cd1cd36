// Package cqlsizebin builds the cqlsize command from this module once per test binary, for
// tests that run it as a real process: a SIGKILL is then a crash, not a cancelled context,
// and several instances run at once as several machines would run them.
package cqlsizebin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once sync.Once
	dir  string
	path string
	err  error
)

// Path builds ./cmd/cqlsize on first use and returns the binary; a build failure fails t.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(build)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func build() {
	dir, err = os.MkdirTemp("", "cqlsize-bin-")
	if err != nil {
		return
	}
	path = filepath.Join(dir, "cqlsize")
	cmd := exec.Command("go", "build", "-o", path, "./cmd/cqlsize")
	cmd.Dir = root()
	if out, berr := cmd.CombinedOutput(); berr != nil {
		err = fmt.Errorf("go build ./cmd/cqlsize: %v\n%s", berr, out)
	}
}

// Cleanup removes the binary; a TestMain calls it after m.Run.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// root is the module's root directory, found from this source file's location.
func root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
