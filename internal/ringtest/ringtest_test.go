package ringtest

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// A listener that accepts and never answers (what a SIGSTOPped node looks like from
// outside) must not count as answering; a closed port neither.
func TestAnswersNeedsAReply(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, say nothing
		}
	}()
	if Answers(l.Addr().String(), 300*time.Millisecond) {
		t.Error("a silent listener counted as a CQL node")
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := closed.Addr().String()
	closed.Close()
	if Answers(addr, 300*time.Millisecond) {
		t.Error("a closed port counted as a CQL node")
	}
}

// A real node answers the OPTIONS probe. The node is the test cluster's (cassandratest), so
// where a cluster is required this runs or fails, never skips for want of CASSANDRA_HOSTS.
func TestAnswersRealNode(t *testing.T) {
	host := cassandratest.Hosts(t)[0]
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, "9042")
	}
	if !Answers(host, 3*time.Second) {
		t.Errorf("the node at %s does not answer OPTIONS", host)
	}
}

func TestHostsSkipsOrFails(t *testing.T) {
	t.Setenv(EnvHosts, "127.0.1.1, 127.0.1.2,127.0.1.3")
	if got := Hosts(t); len(got) != 3 || got[1] != "127.0.1.2" {
		t.Errorf("Hosts = %q", got)
	}
	if a := Addr(t, 2); a != "127.0.1.2:9042" {
		t.Errorf("Addr(2) = %q", a)
	}
}

func TestRoot(t *testing.T) {
	if _, err := os.Stat(Root() + "/scripts/cassandra"); err != nil {
		t.Errorf("Root() = %s: %v", Root(), err)
	}
}

func TestSeenDownByAll(t *testing.T) {
	status := `node 1: up, pid 1, CQL 127.0.1.1:9042, but does not see node(s) 3 UP
node 2: up, pid 2, CQL 127.0.1.2:9042, but does not see node(s) 3 UP
node 3: paused (SIGSTOP), pid 3, CQL 127.0.1.3:9042 accepts connections but does not answer`
	if !seenDownByAll(status, 3, 3) {
		t.Error("both others see node 3 down")
	}
	status = `node 1: up, pid 1, CQL 127.0.1.1:9042, but does not see node(s) 3 UP
node 2: up, pid 2, CQL 127.0.1.2:9042, JMX 127.0.0.1:7402, dir x
node 3: paused (SIGSTOP), pid 3`
	if seenDownByAll(status, 3, 3) {
		t.Error("node 2 still sees node 3 UP")
	}
	if seenDownByAll("node 1: up, but does not see node(s) 13 UP\nnode 2: up, but does not see node(s) 13 UP", 3, 3) {
		t.Error("13 is not 3")
	}
}

// CQLSIZE_RING_RUNS and the like: unset is the default; 1 to 100 is taken; anything else is
// refused, naming the variable.
func TestParseCount(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{{"", 1, true}, {"1", 1, true}, {"3", 3, true}, {"100", 100, true}, {"0", 0, false}, {"101", 0, false}, {"-2", 0, false}, {"three", 0, false}, {" 3", 0, false}} {
		got, err := parseCount(EnvRuns, c.in, 1)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseCount(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), EnvRuns) {
			t.Errorf("parseCount(%q): %v does not name %s", c.in, err, EnvRuns)
		}
	}
	if got, err := parseCount("X", "", 3); got != 3 || err != nil {
		t.Errorf("unset with default 3: %d, %v", got, err)
	}
}
