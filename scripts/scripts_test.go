// Package scripts holds tests of the shell scripts that run the development node; the
// scripts themselves are bash.
package scripts

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/ringtest"
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

// `up` on a node that is already running does nothing and succeeds. The node is the
// development node when it runs; on the container path, where it does not, the
// authentication node, which scripts/test starts on every path.
func TestUpOnRunningNodeIsNoop(t *testing.T) {
	hosts := cassandratest.Hosts(t)
	for _, env := range [][]string{nil, {"CQLSIZE_AUTH=1"}} {
		if _, code := script(t, env, "status"); code != 0 {
			continue
		}
		out, code := script(t, env, "up")
		if code != 0 || !strings.Contains(out, "already running") {
			t.Fatalf("up on a running node (%v): exit %d, output:\n%s", env, code, out)
		}
		return
	}
	t.Skipf("neither the development node nor the authentication node runs here (the cluster is %v)", hosts)
}

// A per-node command with a node number outside the ring, or no number, or an unknown
// command, is refused with exit status 2 and a message, before touching any node.
func TestNodeCommandsRejectBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"stop", "7"}, "node number '7': want 1 to 3"},
		{[]string{"kill", "0"}, "node number '0': want 1 to 3"},
		{[]string{"pause", "x"}, "node number 'x': want 1 to 3"},
		{[]string{"start"}, "node number '': want 1 to 3"},
		{[]string{"resume", "12"}, "node number '12': want 1 to 3"},
		{[]string{"frobnicate"}, "unknown command 'frobnicate'"},
	} {
		out, code := script(t, []string{"CQLSIZE_NODES=3"}, tc.args...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("cassandra %v: exit %d, output:\n%s\nwant exit 2 and %q", tc.args, code, out, tc.want)
		}
	}
}

// The ring lives apart from the development node: other addresses, directories, JMX ports
// and cluster name.
func TestDevNodeAndRingApart(t *testing.T) {
	dev, code := script(t, []string{"CQLSIZE_NODES=1"}, "hosts")
	ring, code2 := script(t, []string{"CQLSIZE_NODES=3"}, "hosts")
	if code != 0 || code2 != 0 {
		t.Fatalf("hosts: exit %d and %d", code, code2)
	}
	if strings.TrimSpace(dev) != "127.0.0.1" || strings.TrimSpace(ring) != "127.0.1.1,127.0.1.2,127.0.1.3" {
		t.Errorf("dev hosts %q, ring hosts %q", dev, ring)
	}
}

// pause makes a ring node stop answering CQL (its socket still accepts), resume brings it back.
func TestRingPauseResume(t *testing.T) {
	ringtest.Lock(t)
	addr := ringtest.Addr(t, 3)
	if !ringtest.Answers(addr, 5*time.Second) {
		t.Fatalf("node 3 (%s) does not answer before the test", addr)
	}
	ringtest.Pause(t, 3)
	if ringtest.Answers(addr, 2*time.Second) {
		t.Error("node 3 answers CQL while paused")
	}
	if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err != nil {
		t.Errorf("a paused node's socket should still accept connections: %v", err)
	} else {
		c.Close()
	}
	if out, code := ringtest.Script(t, "status"); code == 0 || !strings.Contains(out, "node 3: paused") {
		t.Errorf("status with node 3 paused: exit %d\n%s", code, out)
	}
	ringtest.Resume(t, 3)
	deadline := time.Now().Add(30 * time.Second)
	for !ringtest.Answers(addr, 2*time.Second) {
		if time.Now().After(deadline) {
			t.Fatal("node 3 does not answer CQL 30s after resume")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// kill (SIGKILL) takes a node away at once; start brings it back, answering CQL and seen
// UP by the others, and status is whole again.
func TestRingKillStart(t *testing.T) {
	ringtest.Lock(t)
	addr := ringtest.Addr(t, 2)
	ringtest.Kill(t, 2)
	if ringtest.Answers(addr, 2*time.Second) {
		t.Error("node 2 answers CQL after kill")
	}
	if out, code := ringtest.Script(t, "status"); code == 0 || !strings.Contains(out, "node 2: down") {
		t.Errorf("status with node 2 killed: exit %d\n%s", code, out)
	}
	// Start through the script directly, handing it an open file as descriptor 3, the way a
	// shell holding the ring lock with flock(1) would: the JVM must not inherit it, or the
	// lock would stay held for as long as the node runs.
	held, err := os.CreateTemp(t.TempDir(), "held-*.lock")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	t0 := time.Now()
	cmd := exec.Command("./cassandra", "start", "2")
	cmd.Env = append(os.Environ(), "CQLSIZE_NODES=3")
	cmd.ExtraFiles = []*os.File{held}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cassandra start 2: %v\n%s", err, out)
	}
	t.Logf("node 2 back (CQL, seen UP by the others) %s after start", time.Since(t0).Round(100*time.Millisecond))
	if fds := jvmFiles(t, 2); strings.Contains(fds, held.Name()) {
		t.Errorf("node 2's JVM inherited the caller's descriptor %s:\n%s", held.Name(), fds)
	}
	// The JVM leads a session of its own: a signal to the caller's process group (`timeout
	// go test ...` giving up, a Ctrl-C) must not take down a node a test restarted.
	if pid, sid := jvmSession(t, 2); pid != sid {
		t.Errorf("node 2's JVM (pid %d) is in session %d: it shares its caller's process group", pid, sid)
	}
	if !ringtest.Answers(addr, 5*time.Second) {
		t.Error("node 2 does not answer CQL after start")
	}
	if out, code := ringtest.Script(t, "status"); code != 0 {
		t.Errorf("status after start: exit %d\n%s", code, out)
	}
}

// jvmPid reads ring node n's pid file.
func jvmPid(t *testing.T, n int) string {
	t.Helper()
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "cqlsize")
	if c := os.Getenv("CQLSIZE_CACHE"); c != "" {
		cache = c
	}
	pid, err := os.ReadFile(filepath.Join(cache, "cassandra-"+version.Cassandra, "ring", fmt.Sprintf("node%d", n), "cassandra.pid"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(pid))
}

// jvmSession returns ring node n's pid and its session id (field 6 of /proc/PID/stat).
func jvmSession(t *testing.T, n int) (pid, sid int) {
	t.Helper()
	p := jvmPid(t, n)
	stat, err := os.ReadFile(filepath.Join("/proc", p, "stat"))
	if err != nil {
		t.Fatal(err)
	}
	// The command name (field 2) is in parentheses and may hold spaces: count after it.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	f := strings.Fields(rest) // state, ppid, pgrp, session, ...
	if len(f) < 4 {
		t.Fatalf("/proc/%s/stat: %q", p, stat)
	}
	if _, err := fmt.Sscan(p, &pid); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(f[3], &sid); err != nil {
		t.Fatal(err)
	}
	return pid, sid
}

// jvmFiles lists what ring node n's JVM has open (from /proc), one path a line.
func jvmFiles(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join("/proc", jvmPid(t, n), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			b.WriteString(target + "\n")
		}
	}
	return b.String()
}

// The two-DC cluster has addresses of its own, dc1's on 127.0.5.x and dc2's on 127.0.6.x
// (written out here, not derived from the script), and its per-node commands take a node
// number or a DC name; anything else is exit 2 before any node is touched.
func TestDCsLayoutAndBadInput(t *testing.T) {
	hosts, code := script(t, []string{"CQLSIZE_DCS=2", "CQLSIZE_NODES=1"}, "hosts")
	if code != 0 || strings.TrimSpace(hosts) != "127.0.5.1,127.0.5.2,127.0.6.1,127.0.6.2" {
		t.Errorf("CQLSIZE_DCS=2 hosts: exit %d, %q", code, hosts)
	}
	three, code := script(t, []string{"CQLSIZE_DCS=2", "CQLSIZE_DC_NODES=3"}, "hosts")
	if code != 0 || strings.TrimSpace(three) != "127.0.5.1,127.0.5.2,127.0.5.3,127.0.6.1,127.0.6.2,127.0.6.3" {
		t.Errorf("CQLSIZE_DC_NODES=3 hosts: exit %d, %q", code, three)
	}
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"CQLSIZE_DCS=2"}, []string{"kill", "dc3"}, "node 'dc3': want 1 to 4 or dc1 to dc2"},
		{[]string{"CQLSIZE_DCS=2"}, []string{"stop", "5"}, "node '5': want 1 to 4 or dc1 to dc2"},
		{[]string{"CQLSIZE_DCS=2", "CQLSIZE_NODES=3"}, []string{"hosts"}, "CQLSIZE_DCS=2 is its own cluster"},
		{[]string{"CQLSIZE_DCS=3"}, []string{"hosts"}, "CQLSIZE_DCS=3: want 1 or 2"},
		{[]string{"CQLSIZE_DCS=2", "CQLSIZE_DC_NODES=9"}, []string{"hosts"}, "CQLSIZE_DC_NODES=9"},
		{[]string{"CQLSIZE_NODES=3"}, []string{"kill", "dc2"}, "node number 'dc2': want 1 to 3"},
	} {
		out, code := script(t, tc.env, tc.args...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v cassandra %v: exit %d, output:\n%s\nwant exit 2 and %q", tc.env, tc.args, code, out, tc.want)
		}
	}
}
