package clusterctl

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeScript writes a stand-in for scripts/cassandra that logs each call's arguments and
// environment mode, and answers `status` with exit 1 for its first failures calls, then 0.
// It stands in for the script's command line only: what the suites do to real nodes is
// tested by the ring and two-DC suites themselves.
func fakeScript(t *testing.T, failures int) (script, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	count := filepath.Join(dir, "status-count")
	script = filepath.Join(dir, "cassandra")
	body := `#!/bin/sh
echo "$CQLSIZE_NODES $CQLSIZE_START_TIMEOUT $*" >> ` + log + `
if [ "$1" = status ]; then
  n=$(cat ` + count + ` 2>/dev/null || echo 0)
  echo $((n + 1)) > ` + count + `
  if [ "$n" -lt ` + strconv.Itoa(failures) + ` ]; then echo "node 2: down"; exit 1; fi
  echo "node 1: up"; echo "node 2: up"
fi
if [ "$1" = resume ]; then echo "cassandra: node $2 is not running" >&2; exit 1; fi
exit 0
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, log
}

func calls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestHeal(t *testing.T) {
	t.Setenv("CQLSIZE_START_TIMEOUT", "")
	for _, tc := range []struct {
		name     string
		failures int
		want     []string
	}{
		{"whole cluster: one status call", 0, []string{"3 400 status"}},
		{"a node down: resume and start each part, then status until whole", 2, []string{
			"3 400 status", "3 400 resume 1", "3 400 start 1", "3 400 resume 2", "3 400 start 2",
			"3 400 status", "3 400 status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script, log := fakeScript(t, tc.failures)
			c := Cluster{Name: "test", Env: []string{"CQLSIZE_NODES=3"}, Parts: []string{"1", "2"},
				HealTimeout: time.Minute, Script: script}
			if err := c.Heal(); err != nil {
				t.Fatal(err)
			}
			if got := calls(t, log); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestHealGivesUp(t *testing.T) {
	script, _ := fakeScript(t, 9)
	c := Cluster{Name: "test", Parts: []string{"dc1"}, HealTimeout: 0, Script: script}
	err := c.Heal()
	if err == nil || !strings.Contains(err.Error(), "node 2: down") {
		t.Fatalf("Heal of a cluster that stays down: %v, want the last status in the error", err)
	}
}

func TestRunExitError(t *testing.T) {
	script, _ := fakeScript(t, 1)
	_, err := Cluster{Script: script}.Run("status")
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.HasSuffix(err.Error(), ": node 2: down") {
		t.Fatalf("Run of a failing status: %v, want an ExitError with code 1 ending with the script's last line", err)
	}
}

func TestRunKeepsTheCallersStartTimeout(t *testing.T) {
	t.Setenv("CQLSIZE_START_TIMEOUT", "90")
	script, log := fakeScript(t, 0)
	if _, err := (Cluster{Script: script}).Run("start", "1"); err != nil {
		t.Fatal(err)
	}
	if got := calls(t, log); len(got) != 1 || got[0] != "90 start 1" {
		t.Errorf("calls %q: want the caller's CQLSIZE_START_TIMEOUT of 90", got)
	}
}

// Lock waits while another open file description holds the flock (another process, or
// another test binary), and releases it at the test's cleanup.
func TestLockWaitsForTheHolderAndReleases(t *testing.T) {
	script, _ := fakeScript(t, 0)
	c := Cluster{Name: "test", Parts: []string{"1"}, HealTimeout: time.Minute, Script: script}
	path := filepath.Join(t.TempDir(), "lock")
	other, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	fd := int(other.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	const held = 600 * time.Millisecond
	unlocked := make(chan struct{})
	go func() {
		defer close(unlocked)
		time.Sleep(held)
		syscall.Flock(fd, syscall.LOCK_UN) //nolint:errcheck
	}()
	begun := time.Now()
	readyRan := false
	t.Run("holder", func(t *testing.T) {
		c.Lock(t, path, func() error { readyRan = true; return nil })
		if waited := time.Since(begun); waited < held {
			t.Errorf("took the lock after %s, while another held it for %s", waited, held)
		}
	})
	<-unlocked
	if !readyRan {
		t.Error("ready did not run")
	}
	// The subtest's cleanup released it: taking it again does not block.
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("the lock is still held after the holder's cleanup: %v", err)
	}
}
