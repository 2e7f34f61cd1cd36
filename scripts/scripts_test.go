// Package scripts holds tests of the shell scripts that run the development node; the
// scripts themselves are bash.
package scripts

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/internal/casstest"
	"github.com/cqlsize/cqlsize/internal/version"
)

func script(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("./cassandra", args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run scripts/cassandra %v: %v", args, err)
	}
	return string(out), code
}

// Maven that cannot fetch (offline, empty local repository) must say so and name the
// alternatives, with exit status 2.
func TestFetchFailureNamesAlternatives(t *testing.T) {
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Skip("mvn not installed")
	}
	tmp := t.TempDir()
	out, code := script(t, []string{"CQLSIZE_CACHE=" + tmp, "CQLSIZE_MAVEN_ARGS=-o -Dmaven.repo.local=" + filepath.Join(tmp, "m2")}, "fetch")
	if code != 2 {
		t.Fatalf("exit %d, want 2; output:\n%s", code, out)
	}
	for _, want := range []string{"Maven could not fetch org.apache.cassandra:cassandra-all:" + version.Cassandra, "CASSANDRA_HOSTS", "Docker"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A CQL port already taken by another process must be named, and nothing started.
func TestUpRefusesTakenPort(t *testing.T) {
	home, _ := os.UserHomeDir()
	realLib := filepath.Join(home, ".cache", "cqlsize", "cassandra-"+version.Cassandra, "lib")
	if os.Getenv("CQLSIZE_CACHE") != "" {
		realLib = filepath.Join(os.Getenv("CQLSIZE_CACHE"), "cassandra-"+version.Cassandra, "lib")
	}
	if _, err := os.Stat(filepath.Join(realLib, ".complete")); err != nil {
		t.Skip("the Cassandra jars are not fetched yet (scripts/cassandra fetch)")
	}
	// Take 127.0.0.1:9042 ourselves unless something (the test node) already holds it.
	if l, err := net.Listen("tcp", "127.0.0.1:9042"); err == nil {
		defer l.Close()
	}
	// A separate cache with the real jars linked in, so no download and no pid file.
	tmp := t.TempDir()
	home2 := filepath.Join(tmp, "cassandra-"+version.Cassandra)
	if err := os.MkdirAll(home2, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(realLib, filepath.Join(home2, "lib")); err != nil {
		t.Fatal(err)
	}
	out, code := script(t, []string{"CQLSIZE_CACHE=" + tmp}, "up")
	if code != 2 || !strings.Contains(out, "port 9042 on 127.0.0.1 is already taken") {
		t.Fatalf("exit %d, output:\n%s\nwant exit 2 naming port 9042 on 127.0.0.1", code, out)
	}
	if _, err := os.Stat(filepath.Join(home2, "node1", "cassandra.pid")); err == nil {
		t.Error("a pid file was written although the start was refused")
	}
}

// `up` on a node that is already running does nothing and succeeds.
func TestUpOnRunningNodeIsNoop(t *testing.T) {
	hosts := casstest.Hosts(t)
	if _, code := script(t, nil, "status"); code != 0 {
		t.Skipf("the cluster at %v is not the local scripts/cassandra node", hosts)
	}
	out, code := script(t, nil, "up")
	if code != 0 || !strings.Contains(out, "already running") {
		t.Fatalf("up on a running node: exit %d, output:\n%s", code, out)
	}
}
