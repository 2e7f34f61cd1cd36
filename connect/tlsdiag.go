package connect

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// TLSKind says why a connection failed for a TLS reason. The driver flattens the
// handshake's errors into text, so the kind is read from that text and, where a name or an
// issuer helps, from a second handshake made only to look at the node's certificate.
type TLSKind int

const (
	// NodeWantsTLS: the client spoke plain CQL and the node closed the connection; a TLS
	// handshake with it shows a certificate, so the node accepts TLS clients only.
	NodeWantsTLS TLSKind = iota + 1
	// NodeNotTLS: the client started a TLS handshake and the node answered in plain CQL.
	NodeNotTLS
	// UnknownAuthority: the node's certificate is not signed by a CA the client trusts.
	UnknownAuthority
	// NameMismatch: the node's certificate does not cover the address connected to.
	NameMismatch
	// Expired: the node's certificate is outside its validity period.
	Expired
	// ClientCertRequired: the node requires a client certificate and got none it accepts
	// (the client sends none when its certificate's CA is not one the node asks for).
	ClientCertRequired
	// ClientCertRejected: the node refused the client certificate it got.
	ClientCertRejected
)

// TLSTrouble is what is known about a connection that failed for a TLS reason.
type TLSTrouble struct {
	Kind TLSKind
	Host string // host:port the second handshake reached
	// Of the node's certificate, when the second handshake saw one.
	Subject, Issuer string
	Names           []string // the names it covers: DNS names and IP addresses
	ClientCert      bool     // the client had a certificate to offer
	CAFile          string   // the CA bundle the client trusted, if one was given
}

// Explain says what happened in words that name no program flag.
func (t *TLSTrouble) Explain() string {
	cert := ""
	if t.Subject != "" {
		cert = fmt.Sprintf(" (its certificate: %s, issued by %s, for %s)", t.Subject, t.Issuer, namesOrNone(t.Names))
	}
	switch t.Kind {
	case NodeWantsTLS:
		return fmt.Sprintf("the node at %s takes TLS connections only%s; connect with TLS, trusting the CA that signs the nodes' certificates", t.Host, cert)
	case NodeNotTLS:
		return fmt.Sprintf("the node at %s does not speak TLS on this port: it answered the TLS handshake in plain CQL", t.Host)
	case UnknownAuthority:
		trusted := "the system's CAs"
		if t.CAFile != "" {
			trusted = t.CAFile
		}
		return fmt.Sprintf("the node's certificate is not signed by a CA in %s%s", trusted, cert)
	case NameMismatch:
		return fmt.Sprintf("the node's certificate does not cover the address connected to, %s%s", hostOnly(t.Host), cert)
	case Expired:
		return fmt.Sprintf("the node's certificate is expired or not yet valid%s", cert)
	case ClientCertRequired:
		if t.ClientCert {
			return "the node requires a client certificate signed by a CA it trusts, and the client's certificate is not signed by one (so it was not offered)"
		}
		return "the node requires a client certificate (mutual TLS) and none was given"
	case ClientCertRejected:
		return "the node refused the client certificate"
	}
	return "TLS handshake failed"
}

func namesOrNone(names []string) string {
	if len(names) == 0 {
		return "no name"
	}
	return strings.Join(names, ", ")
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// tlsKindOf reads the kind of TLS trouble from a session error's text; ok is false when it
// is not a TLS matter (a plain client's reset is NodeWantsTLS only once a probe proves it).
func tlsKindOf(msg string, tlsOn bool) (TLSKind, bool) {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "does not look like a tls handshake"):
		return NodeNotTLS, true
	case strings.Contains(m, "signed by unknown authority"):
		return UnknownAuthority, true
	case strings.Contains(m, "x509: certificate is valid for"), strings.Contains(m, "doesn't contain any ip sans"),
		strings.Contains(m, "x509: certificate is not valid for any names"):
		return NameMismatch, true
	case strings.Contains(m, "certificate has expired or is not yet valid"):
		return Expired, true
	case strings.Contains(m, "tls: certificate required"):
		return ClientCertRequired, true
	case strings.Contains(m, "tls: bad certificate"), strings.Contains(m, "tls: unknown certificate authority"),
		strings.Contains(m, "tls: certificate revoked"), strings.Contains(m, "tls: unsupported certificate"):
		return ClientCertRejected, true
	case !tlsOn && (strings.Contains(m, "connection reset") || strings.Contains(m, "eof") ||
		strings.Contains(m, "broken pipe") || strings.Contains(m, "connection closed")):
		return NodeWantsTLS, true
	}
	return 0, false
}

// diagnoseAttempt is diagnoseTLS for a session attempt: its error first, then each contact
// point's failure the driver logged (hostFailures), each kind of trouble once.
func diagnoseAttempt(ctx context.Context, c Config, err error, failures []string) *TLSTrouble {
	if t := diagnoseTLS(ctx, c, err); t != nil {
		return t
	}
	tried := map[TLSKind]bool{}
	for _, l := range failures {
		k, ok := tlsKindOf(l, c.tlsOn())
		if !ok || tried[k] {
			continue
		}
		tried[k] = true
		if t := diagnoseTLS(ctx, c, errors.New(l)); t != nil {
			return t
		}
	}
	return nil
}

// diagnoseTLS explains a failed session attempt when TLS is the cause, or returns nil.
// A plain client's reset counts only when a TLS handshake with the node then shows a
// certificate: a node that is restarting resets connections too.
func diagnoseTLS(ctx context.Context, c Config, err error) *TLSTrouble {
	tlsOn := c.tlsOn()
	kind, ok := tlsKindOf(err.Error(), tlsOn)
	if !ok {
		return nil
	}
	t := &TLSTrouble{Kind: kind, Host: c.firstHostPort(), ClientCert: c.CertFile != "", CAFile: c.CAFile}
	if kind == NodeNotTLS || kind == ClientCertRequired || kind == ClientCertRejected {
		return t
	}
	// The first contact point that shows a certificate: the first may be the one down.
	var cert *x509.Certificate
	for _, hp := range c.hostPorts() {
		if cert = peekCertificate(ctx, hp); cert != nil {
			t.Host = hp
			break
		}
	}
	if cert == nil {
		if kind == NodeWantsTLS {
			return nil
		}
		return t
	}
	t.Subject, t.Issuer = cert.Subject.String(), cert.Issuer.String()
	t.Names = append(t.Names, cert.DNSNames...)
	for _, ip := range cert.IPAddresses {
		t.Names = append(t.Names, ip.String())
	}
	return t
}

// peekCertificate makes a TLS handshake with hostport that trusts anything, only to read the
// node's certificate; nothing is sent over it. Nil when there is no handshake (a plain node).
func peekCertificate(ctx context.Context, hostport string) *x509.Certificate {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var seen *x509.Certificate
	d := tls.Dialer{Config: &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // reads the certificate to name it in an error; never used for data
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) > 0 {
				seen, _ = x509.ParseCertificate(raw[0])
			}
			return nil
		},
	}}
	conn, err := d.DialContext(ctx, "tcp", hostport)
	if err == nil {
		conn.Close()
	}
	return seen
}

func (c Config) tlsOn() bool {
	return c.CAFile != "" || c.CertFile != "" || c.InsecureTLS || c.ServerName != ""
}

// firstHostPort is the first contact point with its port.
func (c Config) firstHostPort() string {
	if hp := c.hostPorts(); len(hp) > 0 {
		return hp[0]
	}
	return ""
}

// hostPorts are the contact points, each with its port.
func (c Config) hostPorts() []string {
	port := c.Port
	if port == 0 {
		port = 9042
	}
	var out []string
	for _, h := range c.Hosts {
		if _, _, err := net.SplitHostPort(h); err == nil {
			out = append(out, h)
		} else {
			out = append(out, net.JoinHostPort(h, strconv.Itoa(port)))
		}
	}
	return out
}

// AsTLSTrouble returns the TLS trouble behind err, if a connection failed for a TLS reason.
func AsTLSTrouble(err error) (*TLSTrouble, bool) {
	var u *UnreachableError
	if errors.As(err, &u) && u.TLS != nil {
		return u.TLS, true
	}
	return nil, false
}
