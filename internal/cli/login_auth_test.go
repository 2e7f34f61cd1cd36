package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cqlsize/cqlsize/connect"
)

// TestLoginRefusedExitStatus: connect.Open reports a refused login as an UnreachableError,
// as it does an unreachable cluster; classify tells them apart (2 against 3). The messages
// are the ones gocql and Cassandra 5.0 give (TestAuthLoginRefused sees them on a real node).
func TestLoginRefusedExitStatus(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want int
	}{
		{"gocql: unable to create session: unable to connect to initial hosts: Provided username app and/or password are incorrect", ExitBadInput},
		{`gocql: unable to create session: unable to connect to initial hosts: authentication required (using "org.apache.cassandra.auth.PasswordAuthenticator")`, ExitBadInput},
		{"gocql: unable to create session: unable to connect to initial hosts: tls: failed to verify certificate: x509: certificate signed by unknown authority", ExitBadInput},
		{"gocql: unable to create session: unable to connect to initial hosts: dial tcp 127.0.0.9:9042: connect: connection refused", ExitRetry},
		{"no session within 10s", ExitRetry},
	} {
		err := fmt.Errorf("open: %w", &connect.UnreachableError{Hosts: []string{"10.0.0.1"}, Source: "--hosts", Err: errors.New(tc.msg)})
		if got := exitCode(InputErr(err)); got != tc.want {
			t.Errorf("%q: exit %d, want %d", tc.msg, got, tc.want)
		}
	}
}
