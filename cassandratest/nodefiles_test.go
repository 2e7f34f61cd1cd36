package cassandratest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNodeFilesPolicy: the one rule for tests that read the node's data files. Only
// scripts/cassandra's development node, with its files on this machine under the node
// directory the script keeps, and this package's container, with its files in its data
// volume on this machine, are read; everything else is remote, with a reason that says why.
func TestNodeFilesPolicy(t *testing.T) {
	dev := "/home/u/.cache/cqlsize/cassandra-5.0.9/node1"
	here := map[string]bool{dev + "/data": true, "/var/lib/cassandra/data": true, "/home/u/.cache/cqlsize/cassandra-5.0.9/node1-old/data": true}
	local := nodeFacts{source: "CASSANDRA_HOSTS", hosts: []string{"127.0.0.1"}, clusterName: DevClusterName,
		dataDirs: []string{dev + "/data"}, devDir: dev, exists: func(p string) bool { return here[p] }}
	with := func(change func(*nodeFacts)) nodeFacts {
		f := local
		change(&f)
		return f
	}
	for _, tc := range []struct {
		name  string
		facts nodeFacts
		want  string // "" = the files are read; else part of the reason
	}{
		{"the development node", local, ""},
		{"the development node named by host name", with(func(f *nodeFacts) { f.hosts = []string{"localhost:9042"} }), ""},
		{"a container on another machine's engine", with(func(f *nodeFacts) {
			f.source, f.clusterName, f.volumeWhy = "testcontainers cassandra:5.0", "", "the cassandra:5.0 container's data volume is at /x on the engine's machine, which is not this one"
		}), "not this one"},
		{"a container whose volume is here", with(func(f *nodeFacts) {
			f.source, f.clusterName, f.volume, f.dataDirs = "testcontainers cassandra:5.0", "Test Cluster", "/var/lib/docker/volumes/v1/_data", []string{"/var/lib/docker/volumes/v1/_data/data"}
			f.exists = func(string) bool { return true }
		}), ""},
		{"a container whose data is outside its volume", with(func(f *nodeFacts) {
			f.source, f.volume, f.dataDirs = "testcontainers cassandra:5.0", "/var/lib/docker/volumes/v1/_data", []string{"/var/lib/cassandra/data"}
		}), "outside /var/lib/docker/volumes/v1/_data the container's data volume"},
		{"a ring", with(func(f *nodeFacts) { f.hosts = []string{"127.0.1.1", "127.0.1.2", "127.0.1.3"} }), "3 contact points"},
		{"another cluster", with(func(f *nodeFacts) { f.hosts = []string{"10.0.0.5"}; f.clusterName = "prod" }), `the cluster at 10.0.0.5 is "prod", not scripts/cassandra's development node`},
		{"a node elsewhere named like ours", with(func(f *nodeFacts) { f.dataDirs = []string{"/srv/cassandra/data"} }), "/srv/cassandra/data, which is not on this machine"},
		{"a Cassandra on this machine outside the node directory", with(func(f *nodeFacts) { f.dataDirs = []string{"/var/lib/cassandra/data"} }), "outside " + dev},
		{"a sibling directory is not inside", with(func(f *nodeFacts) { f.dataDirs = []string{dev + "-old/data"} }), "outside " + dev},
		{"no data directories", with(func(f *nodeFacts) { f.dataDirs = nil }), "does not say where its data files are"},
	} {
		got := tc.facts.whyRemote()
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: remote (%s), want the files read", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: reason %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestNodeFilesRequired: wherever the cluster is required, so are the node's files, on
// every cluster path; only CQLSIZE_REQUIRE_NODE_FILES=0 allows the skip there.
func TestNodeFilesRequired(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"CQLSIZE_REQUIRE_NODE_FILES": "1"}, true},
		{map[string]string{"CQLSIZE_REQUIRE_CASSANDRA": "1"}, true},
		{map[string]string{"CI": "true"}, true},
		{map[string]string{"CI": "true", "CQLSIZE_REQUIRE_NODE_FILES": "0"}, false},
		{map[string]string{"CQLSIZE_REQUIRE_CASSANDRA": "1", "CQLSIZE_REQUIRE_NODE_FILES": "0"}, false},
		{map[string]string{"CQLSIZE_REQUIRE_CASSANDRA": "0"}, false},
	} {
		if got := nodeFilesRequired(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: required %v, want %v", tc.env, got, tc.want)
		}
	}
}

// TestLogSkip: a skip for want of the node's files is written where scripts/test prints it.
func TestLogSkip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "skips")
	t.Setenv(EnvSkipLog, p)
	logSkip(t, "the cluster is a container")
	logSkip(t, "again")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "TestLogSkip: not run: it reads the node's data files, and the cluster is a container\nTestLogSkip: not run: it reads the node's data files, and again\n"; string(b) != want {
		t.Errorf("skip log %q, want %q", b, want)
	}
}

// TestLocalNodeFindsTheTable: on the development node the helper hands out the node's files
// and finds a fresh table's directory by its id, after a flush its sstables; on any other
// cluster it skips (or fails under CQLSIZE_REQUIRE_NODE_FILES=1) saying why.
func TestLocalNodeFindsTheTable(t *testing.T) {
	s, ks := Keyspace(t)
	DDL(t, s, ks, `CREATE TABLE probe (k int PRIMARY KEY, v text)`)
	if err := s.Query(`INSERT INTO probe (k, v) VALUES (1, 'x')`).Exec(); err != nil {
		t.Fatal(err)
	}
	node := LocalNode(t, s)
	dir := node.TableDir(t, s, ks, "probe")
	if got := node.KeyspaceDir(t, s, ks); got != filepath.Dir(dir) {
		t.Errorf("KeyspaceDir = %s, want %s", got, filepath.Dir(dir))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := node.Run(ctx, "nodetool", "flush", ks, "probe"); err != nil {
		t.Fatalf("flush: %v\n%s", err, out)
	}
	data, _ := filepath.Glob(filepath.Join(dir, "*-Data.db"))
	if len(data) == 0 {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("no Data.db in %s after a flush (%d entries)", dir, len(entries))
	}
}
