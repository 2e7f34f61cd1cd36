package dctest

import "testing"

// seenDown reads scripts/cassandra status lines as the script writes them (copied here).
func TestSeenDown(t *testing.T) {
	status := `node 1: up, pid 1, CQL 127.0.5.1:9042, but does not see node(s) 3 4 UP
node 2: up, pid 2, CQL 127.0.5.2:9042, but does not see node(s) 3 4 UP
node 3: down, CQL 127.0.6.1:9042, dir /x/node3
node 4: down, CQL 127.0.6.2:9042, dir /x/node4`
	if !seenDown(status, []string{"3", "4"}) {
		t.Error("every node up says it does not see 3 and 4: want seen down")
	}
	partly := `node 1: up, pid 1, CQL 127.0.5.1:9042, but does not see node(s) 3 UP
node 2: up, pid 2, CQL 127.0.5.2:9042, but does not see node(s) 3 4 UP`
	if seenDown(partly, []string{"3", "4"}) {
		t.Error("node 1 still sees node 4 UP: want not seen down")
	}
	whole := `node 1: up, pid 1, CQL 127.0.5.1:9042, dc1, JMX 127.0.0.1:7801, dir /x/node1`
	if seenDown(whole, []string{"3"}) {
		t.Error("node 1 sees everyone: want not seen down")
	}
}
