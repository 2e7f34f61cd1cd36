package cassandratest

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/nodecontainer"
)

// requireContainer skips t unless the test cluster is this package's container, or fails it
// when CQLSIZE_REQUIRE_CONTAINER=1 (scripts/test-container).
func requireContainer(t *testing.T) {
	t.Helper()
	Hosts(t)
	if !strings.HasPrefix(source, "testcontainers") {
		msg := fmt.Sprintf("the test cluster is %s, not a container (unset CASSANDRA_HOSTS and start a Docker engine)", source)
		if os.Getenv("CQLSIZE_REQUIRE_CONTAINER") == "1" {
			t.Fatal(msg + "; CQLSIZE_REQUIRE_CONTAINER=1")
		}
		t.Skip(msg)
	}
}

// TestContainerNodeFiles: on the container path the node's files are read on this machine
// in the container's data volume, and the node's own tools run in the container. It writes
// 40 partitions, flushes with nodetool, finds the table's sstables under the volume's
// directory here, and has sstablepartitions (the node's tool, not cqlsize) count 40
// partitions in them, its paths translated back to this machine's.
func TestContainerNodeFiles(t *testing.T) {
	requireContainer(t)
	s, ks := Keyspace(t)
	DDL(t, s, ks, `CREATE TABLE probe (k int PRIMARY KEY, v text)`)
	const rows = 40
	for k := 0; k < rows; k++ {
		if err := s.Query(`INSERT INTO probe (k, v) VALUES (?, ?)`, k, strings.Repeat("x", k)).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	node := LocalNode(t, s)
	dir := node.TableDir(t, s, ks, "probe")
	vol, why := containerFiles(context.Background(), ctr)
	if why != "" || !strings.HasPrefix(dir, vol+string(filepath.Separator)) {
		t.Fatalf("table directory %s is not in the container's volume %q (%s)", dir, vol, why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := node.Run(ctx, "nodetool", "flush", ks, "probe"); err != nil {
		t.Fatalf("flush: %v\n%s", err, out)
	}
	if data, _ := filepath.Glob(filepath.Join(dir, "*-Data.db")); len(data) == 0 {
		t.Fatalf("no Data.db in %s after a flush", dir)
	}
	out, err := node.Run(ctx, "sstablepartitions", "--csv", "--min-size", "0", dir)
	if err != nil {
		t.Fatalf("sstablepartitions: %v\n%s", err, out)
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("sstablepartitions output %q: %v", out, err)
	}
	if got := len(recs) - 1; got != rows {
		t.Errorf("sstablepartitions counts %d partitions, want %d:\n%s", got, rows, out)
	}
	if !strings.Contains(string(out), dir) {
		t.Errorf("sstablepartitions names no file under %s (paths not translated back):\n%s", dir, out)
	}
}

// TestContainerImageHonoursTheOfficialVariables starts cassandra:5.0 with the official image's
// environment variables set, and reads back from the node itself (system.local, the settings
// virtual table, the JVM's command line) that each took effect.
func TestContainerImageHonoursTheOfficialVariables(t *testing.T) {
	requireContainer(t)
	ctx, cancel := context.WithTimeout(context.Background(), nodecontainer.StartTimeout+time.Minute)
	defer cancel()
	n, err := nodecontainer.Start(ctx, Image, testcontainers.WithEnv(map[string]string{
		"CASSANDRA_CLUSTER_NAME":    "cqlsize env",
		"CASSANDRA_ENDPOINT_SNITCH": "GossipingPropertyFileSnitch",
		"CASSANDRA_DC":              "dc-probe",
		"CASSANDRA_RACK":            "rack-probe",
		"CASSANDRA_NUM_TOKENS":      "4",
		"MAX_HEAP_SIZE":             "512M",
		"HEAP_NEWSIZE":              "128M",
		"JVM_OPTS":                  "-Dcassandra.skip_wait_for_gossip_to_settle=0 -Dcqlsize.probe=yes",
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Remove() })
	c := n.Container()
	s, err := connect.Open(ctx, connect.Config{Hosts: []string{n.Endpoint}, Consistency: "ONE", Timeout: 30 * time.Second, ConnectTimeout: time.Minute, Direct: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var cluster, dc, rack string
	var tokens []string
	if err := s.Query(`SELECT cluster_name, data_center, rack, tokens FROM system.local`).Scan(&cluster, &dc, &rack, &tokens); err != nil {
		t.Fatal(err)
	}
	if cluster != "cqlsize env" || dc != "dc-probe" || rack != "rack-probe" || len(tokens) != 4 {
		t.Errorf("system.local: cluster %q, dc %q, rack %q, %d tokens; want \"cqlsize env\", dc-probe, rack-probe, 4", cluster, dc, rack, len(tokens))
	}
	var snitch string
	if err := s.Query(`SELECT value FROM system_views.settings WHERE name = 'endpoint_snitch'`).Scan(&snitch); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(snitch, "GossipingPropertyFileSnitch") {
		t.Errorf("endpoint_snitch %q", snitch)
	}
	code, r, err := c.Exec(ctx, []string{"cat", "/proc/1/cmdline"})
	if err != nil || code != 0 {
		t.Fatalf("read the JVM's command line: exit %d, %v", code, err)
	}
	var cmdline bytes.Buffer
	_, _ = cmdline.ReadFrom(r)
	args := strings.Split(cmdline.String(), "\x00")
	for _, want := range []string{"-Xmx512M", "-Xms512M", "-Dcqlsize.probe=yes"} {
		if !containsArg(args, want) {
			t.Errorf("the JVM runs without %s: %q", want, args)
		}
	}
}

func containsArg(args []string, want string) bool {
	for _, a := range args {
		if a == want {
			return true
		}
	}
	return false
}

// TestContainerSharedNode: on the container path the node is the one of this `go test` run,
// named after testcontainers' session and labelled with it, and while the go command runs a
// holder process keeps a connection to the session's reaper open (a socket on its file
// descriptor 3), so that the reaper removes the node only after the whole run.
func TestContainerSharedNode(t *testing.T) {
	requireContainer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sid := testcontainers.SessionID()
	info, err := ctr.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "/" + sharedName(sid); info.Name != want {
		t.Errorf("the test node is the container %s, want %s", info.Name, want)
	}
	if got := info.Config.Labels["org.testcontainers.sessionId"]; got != sid {
		t.Errorf("the test node's session label is %q, want %q", got, sid)
	}
	if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", os.Getppid())); strings.TrimSpace(string(comm)) != "go" {
		t.Skip("not run by the go command: no holder")
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var holders []string
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "cqlsize-test-session-"+sid+"\x00") {
			holders = append(holders, filepath.Dir(p))
		}
	}
	if len(holders) != 1 {
		t.Fatalf("%d holder processes for session %s, want 1: %v", len(holders), sid, holders)
	}
	if fd, err := os.Readlink(filepath.Join(holders[0], "fd", "3")); err != nil || !strings.HasPrefix(fd, "socket:") {
		t.Errorf("the holder %s has no socket on fd 3 (%q, %v)", holders[0], fd, err)
	}
}
