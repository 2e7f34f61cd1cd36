package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// --local-dc reads one DC only: a consistency that reaches other DCs is refused before
// anything connects.
func TestProfileLocalDCConsistency(t *testing.T) {
	for _, cons := range []string{"ONE", "QUORUM", "EACH_QUORUM", "ALL"} {
		code, out, errOut := run(t, "profile", "--hosts", "127.0.0.1", "-k", "app", "--local-dc", "dc1", "--consistency", cons)
		if code != ExitBadInput || out != "" || !strings.Contains(errOut, "--consistency "+cons+" with --local-dc dc1: that level reads replicas outside dc1") {
			t.Errorf("--consistency %s: exit %d, stderr %q", cons, code, errOut)
		}
	}
}

// A data center the cluster does not have is refused, naming the ones it has: the driver
// would otherwise route to them and the profile claim a DC it never read.
func TestProfileLocalDCUnknown(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	loadProfiled(t, s, ks)
	var out, errOut bytes.Buffer
	code := DoContext(context.Background(), []string{"profile", "--keyspace", ks, "--sample", "10", "--local-dc", "nowhere"},
		strings.NewReader(""), &out, &errOut, hostsEnv(t))
	if code != ExitBadInput || out.Len() != 0 || !strings.Contains(errOut.String(), "--local-dc nowhere: the cluster at ") ||
		!strings.Contains(errOut.String(), "has no such data center (it has datacenter1)") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	code = DoContext(context.Background(), []string{"profile", "--keyspace", ks, "--sample", "10", "--seed", "3", "--local-dc", "datacenter1"},
		strings.NewReader(""), &out, &errOut, hostsEnv(t))
	if code != ExitOK || !strings.Contains(out.String(), "# Sampled in data center datacenter1 only (--local-dc: every read routed there, at LOCAL_ONE)") {
		t.Errorf("exit %d, stderr %q, workload:\n%s", code, errOut.String(), out.String())
	}
}
