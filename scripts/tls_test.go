package scripts

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/internal/tlstest"
)

// The TLS modes are their own nodes: addresses apart from the others, and settings that
// would select two nodes at once are refused.
func TestTLSModes(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		args []string
		code int
		want string
	}{
		{[]string{"CQLSIZE_TLS=1"}, []string{"hosts"}, 0, "127.0.3.1"},
		{[]string{"CQLSIZE_TLS=mutual"}, []string{"hosts"}, 0, "127.0.4.1"},
		{[]string{"CQLSIZE_TLS=2"}, []string{"hosts"}, 2, "CQLSIZE_TLS=2: want 0, 1 or mutual"},
		{[]string{"CQLSIZE_TLS=1", "CQLSIZE_AUTH=1"}, []string{"hosts"}, 2, "select different nodes"},
		{[]string{"CQLSIZE_TLS=1", "CQLSIZE_NODES=3"}, []string{"hosts"}, 2, "is one node"},
		{[]string{"CQLSIZE_TLS=0", "CQLSIZE_NODES=1"}, []string{"certs"}, 2, "only the TLS nodes have certificates"},
	} {
		out, code := script(t, tc.env, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v cassandra %v: exit %d, output %q; want %d and %q", tc.env, tc.args, code, out, tc.code, tc.want)
		}
	}
}

// TestTLSNodeCertificates reads the certificates scripts/cassandra made for each TLS node
// with Go's own x509 (not openssl, which made them): the node's certificate is signed by
// the CA and covers the node's address and nothing else; the client certificate is signed
// by the same CA for client authentication.
func TestTLSNodeCertificates(t *testing.T) {
	for name, node := range map[string]tlstest.Node{"server": tlstest.Server(t), "mutual": tlstest.Mutual(t)} {
		dir := filepath.Dir(node.CA)
		roots := x509.NewCertPool()
		roots.AddCert(readCert(t, node.CA))
		nodeCert := readCert(t, filepath.Join(dir, "node.pem"))
		host := node.Hosts[0]
		if _, err := nodeCert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("%s node certificate for %s: %v", name, host, err)
		}
		if len(nodeCert.IPAddresses) != 1 || !nodeCert.IPAddresses[0].Equal(net.ParseIP(host)) || len(nodeCert.DNSNames) != 0 {
			t.Errorf("%s node certificate names: IPs %v, DNS %v; want only %s", name, nodeCert.IPAddresses, nodeCert.DNSNames, host)
		}
		client := readCert(t, node.ClientCert)
		if _, err := client.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("%s client certificate: %v", name, err)
		}
	}
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s: no PEM block", path)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}
