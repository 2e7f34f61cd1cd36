package cli

import (
	"net"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/tlstest"
)

// tlsCase is one way of reaching a node: which node, by which address, with which flags,
// and what the command must then do. want nil: the command passes (its scenario's check);
// else it fails with exit 2 and every string of want on stderr.
type tlsCase struct {
	name string
	// setup: the case passes, so the node gets a keyspace prepared for the scenario.
	flags func(c tlsCtx) []string
	hosts func(c tlsCtx) string
	// node is the one the keyspace is made on when the case passes: server or mutual.
	mutual bool
	want   func(c tlsCtx) []string
}

// tlsCtx is what the cases are built from.
type tlsCtx struct {
	server, mutual               tlstest.Node
	otherCA, otherCert, otherKey string
	forward                      string // 127.0.0.1:port, copied to the TLS node
	plain                        string // the development node: no TLS
}

func caFlags(n tlstest.Node) []string { return []string{"--tls-ca", n.CA} }

func clientFlags(n tlstest.Node) []string {
	return []string{"--tls-ca", n.CA, "--tls-cert", n.ClientCert, "--tls-key", n.ClientKey}
}

var tlsCases = []tlsCase{
	{name: "right_CA",
		hosts: func(c tlsCtx) string { return c.server.Hosts[0] },
		flags: func(c tlsCtx) []string { return caFlags(c.server) }},
	{name: "another_CA",
		hosts: func(c tlsCtx) string { return c.server.Hosts[0] },
		flags: func(c tlsCtx) []string { return []string{"--tls-ca", c.otherCA} },
		want: func(c tlsCtx) []string {
			return []string{"x509: certificate signed by unknown authority", "not signed by a CA in " + c.otherCA,
				"issued by CN=cqlsize test CA tls", "hint: pass --tls-ca with the CA bundle that signed"}
		}},
	{name: "name_not_covered",
		hosts: func(c tlsCtx) string { return c.forward },
		flags: func(c tlsCtx) []string { return caFlags(c.server) },
		want: func(c tlsCtx) []string {
			return []string{"does not cover the address connected to, 127.0.0.1", "for " + c.server.Hosts[0],
				"hint: connect by a name the certificate covers, or pass --tls-server-name"}
		}},
	{name: "server_name",
		hosts: func(c tlsCtx) string { return c.forward },
		flags: func(c tlsCtx) []string { return append(caFlags(c.server), "--tls-server-name", c.server.Hosts[0]) }},
	{name: "plain_client_TLS_node",
		hosts: func(c tlsCtx) string { return c.server.Hosts[0] },
		flags: func(tlsCtx) []string { return nil },
		want: func(c tlsCtx) []string {
			return []string{"takes TLS connections only", "issued by CN=cqlsize test CA tls", "hint: pass --tls-ca"}
		}},
	{name: "plain_client_TLS_node_first_host_down",
		hosts: func(c tlsCtx) string { return "127.0.3.9," + c.server.Hosts[0] },
		flags: func(tlsCtx) []string { return nil },
		want: func(c tlsCtx) []string {
			return []string{"the node at " + c.server.Hosts[0] + ":9042 takes TLS connections only", "hint: pass --tls-ca"}
		}},
	{name: "TLS_client_plain_node",
		hosts: func(c tlsCtx) string { return c.plain },
		flags: func(c tlsCtx) []string { return caFlags(c.server) },
		want: func(tlsCtx) []string {
			return []string{"does not speak TLS on this port", "hint: this port takes plain connections: drop --tls-ca"}
		}},
	{name: "mutual_with_client_cert", mutual: true,
		hosts: func(c tlsCtx) string { return c.mutual.Hosts[0] },
		flags: func(c tlsCtx) []string { return clientFlags(c.mutual) }},
	{name: "mutual_without_client_cert",
		hosts: func(c tlsCtx) string { return c.mutual.Hosts[0] },
		flags: func(c tlsCtx) []string { return caFlags(c.mutual) },
		want: func(tlsCtx) []string {
			return []string{"requires a client certificate (mutual TLS) and none was given", "hint: pass --tls-cert and --tls-key"}
		}},
	{name: "mutual_client_cert_of_another_CA",
		hosts: func(c tlsCtx) string { return c.mutual.Hosts[0] },
		flags: func(c tlsCtx) []string {
			return append(caFlags(c.mutual), "--tls-cert", c.otherCert, "--tls-key", c.otherKey)
		},
		want: func(tlsCtx) []string {
			return []string{"requires a client certificate signed by a CA it trusts", "hint: pass --tls-cert and --tls-key"}
		}},
}

// TestTLSCommands runs every command that connects (one row of commandScenarios each)
// against the TLS nodes in every way of tlsCases: with the right settings it does its work;
// with wrong ones it fails with exit 2 at once, saying the likely cause and the flag to use.
func TestTLSCommands(t *testing.T) {
	c := tlsCtx{server: tlstest.Server(t), mutual: tlstest.Mutual(t)}
	c.otherCA, c.otherCert, c.otherKey = tlstest.OtherCA(t)
	c.plain = cassandratest.Hosts(t)[0]
	c.forward = tlstest.Forward(t, net.JoinHostPort(c.server.Hosts[0], "9042"))
	forEachCommand(t, func(t *testing.T, cr CommandRights, sc commandScenario) {
		for _, tc := range tlsCases {
			t.Run(tc.name, func(t *testing.T) { runTLSCase(t, c, sc, tc) })
		}
	})
}

func runTLSCase(t *testing.T, c tlsCtx, sc commandScenario, tc tlsCase) {
	env := credEnv(tc.hosts(c), "", "")
	flags := tc.flags(c)
	if tc.want == nil {
		node := c.server
		if tc.mutual {
			node = c.mutual
		}
		admin, ks := node.Keyspace(t, tc.mutual)
		fillEvents(t, admin, ks)
		direct := credEnv(node.Hosts[0], "", "")
		setupFlags := caFlags(node)
		if tc.mutual {
			setupFlags = clientFlags(node)
		}
		dir := scenarioSetup(t, admin, ks, direct, setupFlags, sc)
		code, out, errOut := runAuth(t, env, append(sc.args(ks, dir), flags...)...)
		if !sc.passed(code, out, errOut) {
			t.Errorf("flags %q: exit %d\nstdout: %s\nstderr: %s", flags, code, out, errOut)
		}
		return
	}
	folder := rightsFiles
	if sc.folder != nil {
		folder = sc.folder
	}
	args := append(sc.args("tls_nowhere", migDir(t, folder)), flags...)
	code, out, errOut := runAuth(t, env, args...)
	// A node that answers nothing within the command's connect budget gives no verdict on
	// the diagnosis: the TLS alert that names the trouble is the node's answer, and a node
	// starved of CPU may send it late. Such a run is made again; any answer it does give is
	// judged as it is.
	for try := 1; try < 3 && noAnswer(code, errOut); try++ {
		t.Logf("try %d: the node did not answer within the connect budget; again:\n%s", try, errOut)
		code, out, errOut = runAuth(t, env, args...)
	}
	want := tc.want(c)
	bad := code != ExitBadInput || out != ""
	for _, w := range want {
		bad = bad || !strings.Contains(errOut, w)
	}
	if bad {
		t.Errorf("flags %q: exit %d\nstdout: %s\nstderr: %s\nwant exit 2, nothing on stdout and on stderr %q", flags, code, out, errOut, want)
	}
}

// noAnswer reports whether a command gave up because the node sent nothing back in time
// (exit 3 on a connection timeout), rather than because of anything the node said.
func noAnswer(code int, stderr string) bool {
	if code != ExitRetry {
		return false
	}
	for _, m := range []string{"no response to connection startup within timeout", "i/o timeout", "context deadline exceeded", "no session within"} {
		if strings.Contains(stderr, m) {
			return true
		}
	}
	return false
}
