package cassandratest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/version"
)

// Tests that read the node's data files (flush, then sstablepartitions or tablehistograms)
// share one policy, LocalNode:
//
//   - the cluster is the project's own when it is scripts/cassandra's development node: one
//     node, cluster name cqlsize-dev, whose data_file_directories are on this machine under
//     the node directory scripts/cassandra keeps ($CQLSIZE_CACHE/cassandra-VERSION/node1).
//   - or when it is the container this package started and the engine runs on this machine:
//     the node's files are in the container's data volume (/var/lib/cassandra), whose
//     directory on this machine the engine names. The tools (nodetool, sstablepartitions)
//     then run inside the container: LocalNode sets CQLSIZE_NODE_CONTAINER, which
//     scripts/cassandra's tool commands follow, paths translated both ways.
//   - In both cases TableDir proves the files are this node's by finding the directory named
//     after the test table's id, which no other node can have.
//   - any other cluster is remote (a container on another machine's engine, CASSANDRA_HOSTS
//     elsewhere, a ring, another Cassandra on this machine): its files cannot be read from
//     here. Then the test fails when the node's files are required (nodeFilesRequired), and
//     is skipped with the reason only when they are not; the skip is also written to
//     $CQLSIZE_SKIP_LOG, which scripts/test prints at the end of its run, so it is never silent.
//
// The node's files are required on every cluster path whenever the cluster is
// (CQLSIZE_REQUIRE_CASSANDRA=1, which scripts/test sets, or CI): a run that requires the
// cluster never passes without the checks that read its files. CQLSIZE_REQUIRE_NODE_FILES=1
// requires them outside such a run, and =0 is the one way to skip them knowingly (a
// remote cluster).

// EnvNodeContainer names the container whose node scripts/cassandra's nodetool and
// sstablepartitions commands run in (docker exec) instead of the development node.
const EnvNodeContainer = "CQLSIZE_NODE_CONTAINER"

// EnvRequireNodeFiles, set to 1, turns a skip for want of the node's files into a failure;
// set to 0, it allows the skip where the cluster is required.
const EnvRequireNodeFiles = "CQLSIZE_REQUIRE_NODE_FILES"

// EnvSkipLog names a file each skip for want of the node's files is appended to, one line
// a test (scripts/test sets it and prints the file at the end).
const EnvSkipLog = "CQLSIZE_SKIP_LOG"

// nodeFilesRequired is the policy above, from the environment getenv reads.
func nodeFilesRequired(getenv func(string) string) bool {
	switch getenv(EnvRequireNodeFiles) {
	case "1":
		return true
	case "0":
		return false
	}
	return getenv("CI") != "" || getenv("CQLSIZE_REQUIRE_CASSANDRA") == "1"
}

// DevClusterName is the cluster name of scripts/cassandra's development node.
const DevClusterName = "cqlsize-dev"

// NodeFiles is the test node's data on this machine and the project's script that runs the
// Cassandra tools against it.
type NodeFiles struct {
	Script   string   // scripts/cassandra: nodetool and sstablepartitions for the node
	DataDirs []string // the node's data_file_directories
}

// nodeFacts is what LocalNode decides from, gathered apart so the policy is testable.
type nodeFacts struct {
	source      string   // where the cluster came from: CASSANDRA_HOSTS or "testcontainers ..."
	hosts       []string // its contact points
	clusterName string   // system.local cluster_name
	dataDirs    []string // system_views.settings data_file_directories
	devDir      string   // scripts/cassandra's development node directory on this machine
	volume      string   // the container's data volume on this machine (dataDirs are mapped into it)
	volumeWhy   string   // why the container's volume cannot be read here, when it cannot
	exists      func(path string) bool
}

// whyRemote returns why the node's files cannot be read here, or "" when the cluster is the
// project's own node and its files are.
func (f nodeFacts) whyRemote() string {
	root, where := f.devDir, "where scripts/cassandra keeps the development node (CQLSIZE_CACHE differs?)"
	if strings.HasPrefix(f.source, "testcontainers") {
		if f.volumeWhy != "" {
			return f.volumeWhy
		}
		root, where = f.volume, "the container's data volume"
	} else {
		switch {
		case len(f.hosts) != 1:
			return fmt.Sprintf("the cluster has %d contact points (%s): the check reads the files of scripts/cassandra's single development node", len(f.hosts), strings.Join(f.hosts, ","))
		case f.clusterName != DevClusterName:
			return fmt.Sprintf("the cluster at %s is %q, not scripts/cassandra's development node (%s): its data files are not this project's to read", f.hosts[0], f.clusterName, DevClusterName)
		}
	}
	if len(f.dataDirs) == 0 {
		return fmt.Sprintf("the node at %s does not say where its data files are (system_views.settings data_file_directories is empty)", f.hosts[0])
	}
	for _, d := range f.dataDirs {
		if !f.exists(d) {
			return fmt.Sprintf("the node at %s keeps its data in %s, which is not on this machine", f.hosts[0], d)
		}
		if rel, err := filepath.Rel(root, d); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Sprintf("the node at %s keeps its data in %s, outside %s %s", f.hosts[0], d, root, where)
		}
	}
	return ""
}

// LocalNode returns the test node's files when the test cluster is the project's own
// development node (see the policy above); otherwise it skips t saying why, or fails it
// when CQLSIZE_REQUIRE_NODE_FILES=1. s is a session to the test cluster.
func LocalNode(t testing.TB, s *gocql.Session) *NodeFiles {
	t.Helper()
	hosts := Hosts(t)
	f := nodeFacts{source: source, hosts: hosts, exists: func(p string) bool { _, err := os.Stat(p); return err == nil }}
	f.devDir = filepath.Join(cacheDir(), "cassandra-"+version.Cassandra, "node1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	container := strings.HasPrefix(source, "testcontainers")
	if container {
		f.volume, f.volumeWhy = containerFiles(ctx, ctr)
	}
	if (container && f.volumeWhy == "") || (!container && len(hosts) == 1) {
		f.clusterName, f.dataDirs = nodeDataDirs(t, ctx, s)
	}
	if container && f.volumeWhy == "" {
		for i, d := range f.dataDirs {
			if rest, ok := strings.CutPrefix(d, dataVolume); ok {
				f.dataDirs[i] = filepath.Join(f.volume, rest)
			}
		}
		os.Setenv(EnvNodeContainer, ctr.GetContainerID())
	}
	if why := f.whyRemote(); why != "" {
		if nodeFilesRequired(os.Getenv) {
			t.Fatalf("the node's data files are needed, and %s (the cluster is required, so this is a failure: point CASSANDRA_HOSTS at scripts/cassandra's node, or set %s=0 to skip the tests that read its files)", why, EnvRequireNodeFiles)
		}
		logSkip(t, why)
		t.Skipf("skipped: this test reads the node's data files, and %s", why)
	}
	script, err := projectScript()
	if err != nil {
		t.Fatalf("node files: %v", err)
	}
	return &NodeFiles{Script: script, DataDirs: f.dataDirs}
}

// nodeDataDirs reads the node's cluster name and data_file_directories over s.
func nodeDataDirs(t testing.TB, ctx context.Context, s *gocql.Session) (string, []string) {
	t.Helper()
	var name, dirs string
	if err := s.Query(`SELECT cluster_name FROM system.local`).WithContext(ctx).Scan(&name); err != nil {
		t.Fatalf("node files: read system.local cluster_name: %v", err)
	}
	if err := s.Query(`SELECT value FROM system_views.settings WHERE name = 'data_file_directories'`).WithContext(ctx).Scan(&dirs); err != nil {
		t.Fatalf("node files: read data_file_directories from system_views.settings: %v", err)
	}
	var out []string
	for _, d := range strings.Split(strings.Trim(dirs, "[]"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return name, out
}

// logSkip appends the skip of t to $CQLSIZE_SKIP_LOG, when it names a file.
func logSkip(t testing.TB, why string) {
	t.Helper()
	p := os.Getenv(EnvSkipLog)
	if p == "" {
		return
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("node files: record the skip in %s=%s: %v", EnvSkipLog, p, err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s: not run: it reads the node's data files, and %s\n", t.Name(), why); err != nil {
		t.Fatalf("node files: record the skip in %s: %v", p, err)
	}
}

// cacheDir is where scripts/cassandra keeps its jars and nodes: $CQLSIZE_CACHE, else
// ~/.cache/cqlsize, as the script computes it.
func cacheDir() string {
	if c := os.Getenv("CQLSIZE_CACHE"); c != "" {
		return c
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "cqlsize-no-home")
	}
	return filepath.Join(home, ".cache", "cqlsize")
}

// projectScript finds scripts/cassandra from the module root above the working directory.
func projectScript() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/cqlsize/cqlsize\n")) {
			p := filepath.Join(d, "scripts", "cassandra")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("find scripts/cassandra: %w", err)
			}
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("find scripts/cassandra: no go.mod of github.com/cqlsize/cqlsize above the working directory")
		}
		d = parent
	}
}

// TableDir returns the data directory of keyspace.table, <data>/<keyspace>/<table>-<id>. It
// is also the proof that these files are the test cluster's: the id is the table's own, so
// when the directory is missing the node that answered is not the one whose files these are,
// and t fails.
func (n *NodeFiles) TableDir(t testing.TB, s *gocql.Session, keyspace, table string) string {
	t.Helper()
	var id gocql.UUID
	if err := s.Query(`SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, keyspace, table).Scan(&id); err != nil {
		t.Fatalf("node files: id of %s.%s: %v", keyspace, table, err)
	}
	name := table + "-" + strings.ReplaceAll(id.String(), "-", "")
	for _, d := range n.DataDirs {
		p := filepath.Join(d, keyspace, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("node files: no directory %s for %s.%s under %s: the node that answered is not the one whose files these are",
		name, keyspace, table, strings.Join(n.DataDirs, ", "))
	return ""
}

// KeyspaceDir returns the data directory of a keyspace after proving, as TableDir does, that
// its tables' directories are there.
func (n *NodeFiles) KeyspaceDir(t testing.TB, s *gocql.Session, keyspace string) string {
	t.Helper()
	iter := s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?`, keyspace).Iter()
	var table string
	var dir string
	for iter.Scan(&table) {
		dir = filepath.Dir(n.TableDir(t, s, keyspace, table))
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("node files: tables of %s: %v", keyspace, err)
	}
	if dir == "" {
		t.Fatalf("node files: keyspace %s has no tables to find on disk", keyspace)
	}
	return dir
}

// Run runs scripts/cassandra with args (nodetool ..., sstablepartitions ...) and returns its
// standard output; the error carries its standard error.
func (n *NodeFiles) Run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, n.Script, args...)
	// The development node, whatever mode the test's environment selects (a ring test sets
	// CQLSIZE_NODES=3).
	cmd.Env = append(os.Environ(), "CQLSIZE_NODES=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("scripts/cassandra %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}
