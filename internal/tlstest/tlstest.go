// Package tlstest hands the TestTLS... tests the real Cassandra nodes that require TLS
// from their clients, the certificates those nodes were made with, and what a test needs
// besides: a CA the nodes do not trust, with a client certificate of its own, and a TCP
// forwarder that reaches a node by an address its certificate does not cover.
//
// The nodes are the ones `CQLSIZE_TLS=1 scripts/cassandra up` (127.0.3.1, TLS required)
// and `CQLSIZE_TLS=mutual scripts/cassandra up` (127.0.4.1, client certificates required
// too) start; scripts/test starts them and exports their addresses and certificate
// folders. Without those variables a test is skipped, saying how to get the nodes, except
// with CQLSIZE_REQUIRE_TLS=1 (scripts/test sets it), where it fails.
package tlstest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
)

// Environment read by Server and Mutual.
const (
	EnvHosts       = "CQLSIZE_TLS_HOSTS"  // the TLS node
	EnvCerts       = "CQLSIZE_TLS_CERTS"  // its certificate folder (scripts/cassandra certs)
	EnvMutualHosts = "CQLSIZE_MTLS_HOSTS" // the mutual-TLS node
	EnvMutualCerts = "CQLSIZE_MTLS_CERTS"
	EnvRequire     = "CQLSIZE_REQUIRE_TLS" // 1: a missing node is a failure, not a skip
)

// Node is a TLS node and the files a client of it uses.
type Node struct {
	Hosts []string
	// CA is the CA bundle that signed the node's certificate; ClientCert and ClientKey a
	// client certificate from the same CA (the one the mutual node accepts).
	CA, ClientCert, ClientKey string
}

// Server returns the node that requires TLS (no client certificate), or skips.
func Server(t testing.TB) Node { return node(t, EnvHosts, EnvCerts, "1") }

// Mutual returns the node that requires a client certificate too, or skips.
func Mutual(t testing.TB) Node { return node(t, EnvMutualHosts, EnvMutualCerts, "mutual") }

func node(t testing.TB, hostsVar, certsVar, mode string) Node {
	t.Helper()
	hosts, dir := connect.SplitHosts(os.Getenv(hostsVar)), os.Getenv(certsVar)
	if len(hosts) == 0 || dir == "" {
		howTo := "no TLS node: run `CQLSIZE_TLS=" + mode + " scripts/cassandra up` and export " + hostsVar +
			"=$(CQLSIZE_TLS=" + mode + " scripts/cassandra hosts) " + certsVar + "=$(CQLSIZE_TLS=" + mode +
			" scripts/cassandra certs), or run `make test`"
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s (%s=1 is set, so this is a failure, not a skip)", howTo, EnvRequire)
		}
		t.Skip(howTo)
	}
	n := Node{Hosts: hosts, CA: filepath.Join(dir, "ca.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client.key")}
	for _, f := range []string{n.CA, n.ClientCert, n.ClientKey} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s=%s: %v", certsVar, dir, err)
		}
	}
	return n
}

// Config is a connection to n with its CA and, when mutual, its client certificate.
func (n Node) Config(mutual bool) connect.Config {
	c := connect.Config{Hosts: n.Hosts, Consistency: "ONE", Timeout: 30 * time.Second, CAFile: n.CA}
	if mutual {
		c.CertFile, c.KeyFile = n.ClientCert, n.ClientKey
	}
	return c
}

// OtherCA makes, in a folder of t's own, a CA no node trusts and a client certificate it
// signed, and returns the CA's path and the client certificate's and key's.
func OtherCA(t testing.TB) (ca, cert, key string) {
	t.Helper()
	dir := t.TempDir()
	caKey, caCert, caDER := newCert(t, nil, nil, &x509.Certificate{
		Subject: pkix.Name{CommonName: "cqlsize test other CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	})
	clientKey, _, clientDER := newCert(t, caKey, caCert, &x509.Certificate{
		Subject: pkix.Name{CommonName: "cqlsize test client of the other CA"}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	ca, cert, key = filepath.Join(dir, "other-ca.pem"), filepath.Join(dir, "other-client.pem"), filepath.Join(dir, "other-client.key")
	writePEM(t, ca, "CERTIFICATE", caDER)
	writePEM(t, cert, "CERTIFICATE", clientDER)
	der, err := x509.MarshalECPrivateKey(clientKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, key, "EC PRIVATE KEY", der)
	return ca, cert, key
}

// newCert signs tmpl with parentKey (itself when nil) and returns the new key, the parsed
// certificate and its DER bytes.
func newCert(t testing.TB, parentKey *ecdsa.PrivateKey, parent *x509.Certificate, tmpl *x509.Certificate) (*ecdsa.PrivateKey, *x509.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	signer, issuer := key, tmpl
	if parentKey != nil {
		signer, issuer = parentKey, parent
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, c, der
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Forward listens on 127.0.0.1 (an address no node's certificate covers) and copies every
// connection to target, both ways, until t ends. It returns the address to connect to.
func Forward(t testing.TB, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) { mu.Lock(); conns = append(conns, c); mu.Unlock() }
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			track(in)
			track(out)
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// Keyspace opens a session to n (mutual: with the client certificate), creates a keyspace
// of t's own there (replication factor 1, dropped when t ends) and returns the session in
// it and its name.
func (n Node) Keyspace(t testing.TB, mutual bool) (*gocql.Session, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := connect.Open(ctx, n.Config(mutual))
	if err != nil {
		t.Fatalf("connect to the TLS node %s: %v", strings.Join(n.Hosts, ","), err)
	}
	t.Cleanup(s.Close)
	name := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + name).Exec(); err != nil {
			t.Logf("drop test keyspace %s: %v", name, err)
		}
	})
	cctx, ccancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer ccancel()
	if err := cassandratest.CreateKeyspace(cctx, s, name, "{'class': 'SimpleStrategy', 'replication_factor': 1}"); err != nil {
		t.Fatalf("create test keyspace on the TLS node: %v", err)
	}
	cfg := n.Config(mutual)
	cfg.Keyspace = name
	ks, err := connect.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ks.Close)
	return ks, name
}
