// Package clusterctl runs scripts/cassandra for the test suites that take nodes down (the
// ring of internal/ringtest, the two datacenters of internal/dctest) and holds the lock a
// test takes them down under.
//
// The lock is a flock on a file shared by every process on the machine, so two test
// binaries never take nodes down under each other; at cleanup its holder brings every node
// back and waits until each answers CQL and sees every other UP before the next holder
// starts. Both suites share this one implementation, so a fix to how nodes come back (a
// start timeout, a paused node resumed before it is started) reaches both.
package clusterctl

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// StartTimeout is the CQLSIZE_START_TIMEOUT (seconds) scripts/cassandra gets when the caller
// sets none. A node killed mid-test replays its commit log and opens every table when it
// starts again, and the suites run while other work shares the cores: the script's own 180 s
// is too short for that.
const StartTimeout = "400"

// LockTimeout is how long Lock waits for another holder.
const LockTimeout = 20 * time.Minute

// Cluster is one cluster scripts/cassandra runs.
type Cluster struct {
	// Name is how errors and logs name it ("ring", "two-DC cluster").
	Name string
	// Env selects its mode in scripts/cassandra ("CQLSIZE_NODES=3", or "CQLSIZE_DCS=2"
	// and "CQLSIZE_NODES=1").
	Env []string
	// Parts are what Heal resumes and starts, each a scripts/cassandra target: node
	// numbers, or "dc1" and "dc2".
	Parts []string
	// HealTimeout bounds how long Heal waits for the whole cluster after starting its parts.
	HealTimeout time.Duration
	// Script is the scripts/cassandra to run; empty is the one in this module.
	Script string
}

// ExitError is scripts/cassandra exiting with a non-zero status.
type ExitError struct {
	Args []string
	Code int
	Out  string
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("scripts/cassandra %s: exit %d: %s", strings.Join(e.Args, " "), e.Code, LastLine(e.Out))
}

// Run runs scripts/cassandra with args in c's mode and returns its combined output; a
// non-zero exit is an *ExitError. One call gets at most ten minutes.
func (c Cluster) Run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	script := c.Script
	if script == "" {
		script = filepath.Join(Root(), "scripts", "cassandra")
	}
	cmd := exec.CommandContext(ctx, script, args...)
	cmd.Env = append(os.Environ(), c.Env...)
	if os.Getenv("CQLSIZE_START_TIMEOUT") == "" {
		cmd.Env = append(cmd.Env, "CQLSIZE_START_TIMEOUT="+StartTimeout)
	}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), &ExitError{Args: args, Code: ee.ExitCode(), Out: string(out)}
	}
	if err != nil {
		return string(out), fmt.Errorf("run scripts/cassandra %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// Heal resumes and starts every part, then waits until `scripts/cassandra status` says every
// node answers CQL and sees every other UP. A whole cluster (most tests fault nothing, or
// bring their node back themselves) is left alone: one status call.
func (c Cluster) Heal() error {
	if _, err := c.Run("status"); err == nil {
		return nil
	}
	var errs []string
	for _, p := range c.Parts {
		if _, err := c.Run("resume", p); err != nil && !strings.Contains(err.Error(), "is not running") {
			errs = append(errs, err.Error())
		}
		if _, err := c.Run("start", p); err != nil {
			errs = append(errs, err.Error())
		}
	}
	deadline := time.Now().Add(c.HealTimeout)
	for {
		out, err := c.Run("status")
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s; status after %s:\n%s", strings.Join(errs, "; "), c.HealTimeout, out)
		}
		time.Sleep(time.Second)
	}
}

// Lock takes c for t alone through the flock on path, waiting up to LockTimeout for another
// holder (in this or another process). It then heals c and runs ready (nil for none): a
// previous holder that crashed may have left a node down, or one it paused may not have
// caught up with the schema. At t's cleanup it heals c again and releases the lock, so the
// next holder starts from a whole cluster.
func (c Cluster) Lock(t testing.TB, path string, ready func() error) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("%s: open the lock %s: %v", c.Name, path, err)
	}
	start := time.Now()
	logged := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if err != syscall.EWOULDBLOCK {
			f.Close()
			t.Fatalf("%s: lock %s: %v", c.Name, path, err)
		}
		if time.Since(start) > LockTimeout {
			f.Close()
			t.Fatalf("%s: the lock %s is still held by another test after %s", c.Name, path, LockTimeout)
		}
		if !logged {
			t.Logf("%s: waiting for the lock %s (another test holds it)", c.Name, path)
			logged = true
		}
		time.Sleep(250 * time.Millisecond)
	}
	if logged {
		t.Logf("%s: took the lock after %s", c.Name, time.Since(start).Round(time.Millisecond))
	}
	release := func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing releases it too
		f.Close()
	}
	err = c.Heal()
	if err == nil && ready != nil {
		err = ready()
	}
	if err != nil {
		release()
		t.Fatalf("%s: not healthy before the test: %v", c.Name, err)
	}
	t.Cleanup(func() {
		defer release()
		if err := c.Heal(); err != nil {
			t.Errorf("%s: bring every node back after the test: %v", c.Name, err)
		}
	})
}

// LastLine is the last non-blank line of s: what scripts/cassandra says when it fails.
func LastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Root is the module's root directory, found from this source file's location.
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
