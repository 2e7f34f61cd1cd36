package cli

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql"
)

// hints says what to change after a failed run, one line each: for a connection refused
// for a TLS reason, the flag that fixes it; for a permission the node refused, the GRANT
// that allows it. The error itself says what happened; these say what to do.
func hints(err error) []string {
	if err == nil {
		return nil
	}
	if t, ok := connect.AsTLSTrouble(err); ok {
		return []string{tlsHint(t)}
	}
	if g := grantFor(err.Error()); g != "" && !strings.Contains(err.Error(), "GRANT ") {
		return []string{"the role lacks a permission; as a superuser (or a role that may grant it): " + g}
	}
	return nil
}

func tlsHint(t *connect.TLSTrouble) string {
	switch t.Kind {
	case connect.NodeWantsTLS:
		return "pass --tls-ca with the CA bundle (PEM) that signs the nodes' certificates (and --tls-cert, --tls-key if the nodes require client certificates)"
	case connect.NodeNotTLS:
		return "this port takes plain connections: drop --tls-ca, --tls-cert, --tls-key and --tls-server-name, or connect to the port the nodes serve TLS on"
	case connect.UnknownAuthority:
		return "pass --tls-ca with the CA bundle that signed the nodes' certificates (the issuer named above)"
	case connect.NameMismatch:
		return "connect by a name the certificate covers, or pass --tls-server-name with one of them (the chain is still verified)"
	case connect.Expired:
		return "the node's certificate must be renewed (or this machine's clock is wrong)"
	case connect.ClientCertRequired, connect.ClientCertRejected:
		return "pass --tls-cert and --tls-key with a client certificate signed by a CA the nodes trust"
	}
	return ""
}

// unauthorized is how Cassandra words a missing permission.
var unauthorizedRE = regexp.MustCompile(`User (\S+) has no (\w+) permission on <([^>]+)>`)

// grantFor returns the GRANT statement that gives the permission a node's Unauthorized
// answer in msg names, or "" when msg holds none.
func grantFor(msg string) string {
	m := unauthorizedRE.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	role, perm, resource := m[1], m[2], m[3]
	var on string
	switch {
	case resource == "all keyspaces":
		on = "ALL KEYSPACES"
	case strings.HasPrefix(resource, "all tables in "):
		on = "KEYSPACE " + cql.QuoteName(strings.TrimPrefix(resource, "all tables in "))
	case strings.HasPrefix(resource, "keyspace "):
		on = "KEYSPACE " + cql.QuoteName(strings.TrimPrefix(resource, "keyspace "))
	case strings.HasPrefix(resource, "table "):
		// The node names the table as keyspace.table, each part as stored; neither part
		// can hold a dot.
		ks, table, _ := strings.Cut(strings.TrimPrefix(resource, "table "), ".")
		on = "TABLE " + cql.QuoteName(ks) + "." + cql.QuoteName(table)
	default:
		return ""
	}
	return fmt.Sprintf("GRANT %s ON %s TO %s;", perm, on, cql.QuoteName(role))
}
