package connect_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/tlstest"
)

// TestDiagnoseFromDriverLines: when the driver's error names the contact point that is
// down, the TLS node's own failure, logged by the driver per contact point, still gives
// the diagnosis, and only that line does. The lines are the driver's (gocql v1.7.0) as a
// plain client met 127.0.3.9 down and the TLS node.
func TestDiagnoseFromDriverLines(t *testing.T) {
	node := tlstest.Server(t)
	hp := node.Hosts[0] + ":9042"
	c := connect.Config{Hosts: []string{"127.0.3.9", node.Hosts[0]}}
	refused := "gocql: unable to dial control conn 127.0.3.9:9042: dial tcp 127.0.3.9:9042: connect: connection refused\n"
	reset := "gocql: unable to dial control conn " + hp + ": read tcp 127.0.0.1:55478->" + hp + ": read: connection reset by peer\n"
	err := errors.New("unable to connect to initial hosts: dial tcp 127.0.3.9:9042: connect: connection refused")
	ctx := context.Background()
	trouble := connect.DiagnoseAttempt(ctx, c, err, []string{refused, reset})
	if trouble == nil || trouble.Kind != connect.NodeWantsTLS || trouble.Host != hp {
		t.Fatalf("with the TLS node's line: %+v, want NodeWantsTLS at %s", trouble, hp)
	}
	if trouble := connect.DiagnoseAttempt(ctx, c, err, []string{refused}); trouble != nil {
		t.Errorf("with the down host's line only: %+v, want no TLS diagnosis", trouble)
	}
}

// TestPlainClientTLSNodeFirstHostDown: a plain client given a contact point that is down
// and then the TLS node is told the TLS node wants TLS, open after open. The driver tries
// the contact points in a random order and its error names the last one only, so every
// attempt of one open can end on the down host. Almost every open must tell at its first
// attempt, whatever order the driver took: a diagnosis that read the error alone would
// need another attempt about half the time (30 opens would then have about one chance in
// 6,000 to reach 25 firsts).
func TestPlainClientTLSNodeFirstHostDown(t *testing.T) {
	node := tlstest.Server(t)
	want := "the node at " + node.Hosts[0] + ":9042 takes TLS connections only"
	const opens, wantFirst = 30, 25
	first := 0
	for i := range opens {
		c := connect.Config{Hosts: []string{"127.0.3.9", node.Hosts[0]}, ConnectTimeout: 10 * time.Second}
		start := time.Now()
		s, err := connect.Open(context.Background(), c)
		if err == nil {
			s.Close()
			t.Fatalf("open %d: a plain client connected to a TLS-only node", i)
		}
		trouble, ok := connect.AsTLSTrouble(err)
		if !ok || !strings.Contains(trouble.Explain(), want) {
			t.Fatalf("open %d: %v\nwant a TLS diagnosis: %q", i, err, want)
		}
		var u *connect.UnreachableError
		if errors.As(err, &u) && u.Attempts == 1 {
			first++
		} else {
			t.Logf("open %d: diagnosed after %v attempts (%s)", i, u.Attempts, time.Since(start))
		}
	}
	if first < wantFirst {
		t.Errorf("%d of %d opens diagnosed at their first attempt, want at least %d", first, opens, wantFirst)
	}
}
