package connect

import "testing"

// TestTLSKindOf: the driver's flattened handshake errors (texts as gocql 1.7 and Go's
// crypto/tls print them, seen against the TLS test nodes) map to their kinds; a plain
// client's reset is a candidate only without TLS, and other trouble is not TLS.
func TestTLSKindOf(t *testing.T) {
	const pre = "gocql: unable to create session: unable to connect to initial hosts: "
	for _, tc := range []struct {
		msg   string
		tlsOn bool
		want  TLSKind
		ok    bool
	}{
		{pre + "read tcp 127.0.0.1:50370->127.0.3.1:9042: read: connection reset by peer", false, NodeWantsTLS, true},
		{pre + "read tcp 127.0.0.1:50370->127.0.3.1:9042: read: connection reset by peer", true, 0, false},
		{pre + "EOF", false, NodeWantsTLS, true},
		{pre + "tls: first record does not look like a TLS handshake", true, NodeNotTLS, true},
		{pre + "tls: failed to verify certificate: x509: certificate signed by unknown authority", true, UnknownAuthority, true},
		{pre + "tls: failed to verify certificate: x509: certificate is valid for 127.0.3.1, not 127.0.0.1", true, NameMismatch, true},
		{pre + "tls: failed to verify certificate: x509: cannot validate certificate for 10.0.0.1 because it doesn't contain any IP SANs", true, NameMismatch, true},
		{pre + "tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time ...", true, Expired, true},
		{pre + "remote error: tls: certificate required", true, ClientCertRequired, true},
		{pre + "remote error: tls: bad certificate", true, ClientCertRejected, true},
		{pre + "Provided username x and/or password are incorrect", false, 0, false},
		{pre + "dial tcp 127.0.0.9:9042: connect: connection refused", false, 0, false},
	} {
		got, ok := tlsKindOf(tc.msg, tc.tlsOn)
		if got != tc.want || ok != tc.ok {
			t.Errorf("tlsKindOf(%q, tls %v) = %v, %v; want %v, %v", tc.msg, tc.tlsOn, got, ok, tc.want, tc.ok)
		}
	}
}
