package cli

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// On one node, one datacenter: migrate dcs reads its history through its own node and
// finds it whole (2 versions, as goodSet has); a keyspace that does not exist and a DC the
// cluster lacks are bad input (exit 2), not a DC to wait for (3). The loss and return of
// a DC is TestDCsOutage's (internal/dcsuite, make test-dcs).
func TestMigrateDCsOnOneNode(t *testing.T) {
	_, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	dir := migDir(t, goodSet)
	if code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks); code != ExitOK {
		t.Fatalf("up: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runEnv(t, env, "migrate", "dcs", "--keyspace", ks)
	if code != ExitOK || !strings.Contains(out, ": 2 versions recorded, schema agreed: whole") {
		t.Fatalf("dcs: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, _, errOut = runEnv(t, env, "migrate", "dcs", "--keyspace", ks+"_typo")
	if code != ExitBadInput || !strings.Contains(errOut, "does not exist") {
		t.Errorf("dcs of a keyspace that does not exist: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runEnv(t, env, "migrate", "dcs", "--keyspace", ks, "--local-dc", "nosuch")
	if code != ExitBadInput || !strings.Contains(errOut, "--local-dc nosuch: no such datacenter") {
		t.Errorf("dcs --local-dc nosuch: exit %d\n%s", code, errOut)
	}
}
