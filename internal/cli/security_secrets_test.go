package cli

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/internal/authtest"
	"github.com/cqlsize/cqlsize/internal/tlstest"
)

// secretRun is one run of a command whose output must hold no secret.
type secretRun struct {
	what string
	env  func(string) string
	args []string
}

// TestAuthSecretsNeverShown runs every command that connects (one row of commandScenarios
// each), in every output format and verbose, with a sentinel password: on the
// authentication node as a role whose password it is (the command works), and with it as a
// wrong password (the login is refused); and on the mutual-TLS node with it in the
// environment and a client key. Neither the password nor the private key's text may appear
// in stdout, stderr (error text included) or any file the run writes.
func TestAuthSecretsNeverShown(t *testing.T) {
	authtest.Hosts(t)
	mutual := tlstest.Mutual(t)
	key, err := os.ReadFile(mutual.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	// A line of the key's base64 body: any part of the key showing is a leak.
	keyLine := strings.Split(strings.TrimSpace(string(key)), "\n")[1]
	forEachCommand(t, func(t *testing.T, cr CommandRights, sc commandScenario) {
		sentinel := fmt.Sprintf("Sentinel-pw-%s-%d", strings.ReplaceAll(cr.Command, " ", ""), os.Getpid())
		admin, ks, dir := rightsSetup(t, sc)
		// A superuser, so every command works: what is tested is what it prints.
		role := "secret_" + strings.ToLower(strings.NewReplacer(" ", "_", "-", "_").Replace(cr.Command))
		if err := admin.Query(fmt.Sprintf("CREATE ROLE IF NOT EXISTS %s WITH PASSWORD = '%s' AND LOGIN = true AND SUPERUSER = true", role, sentinel)).Exec(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.Query("DROP ROLE IF EXISTS " + role).Exec() })
		tlsAdmin, tlsKs := mutual.Keyspace(t, true)
		fillEvents(t, tlsAdmin, tlsKs)
		tlsDir := scenarioSetup(t, tlsAdmin, tlsKs, credEnv(mutual.Hosts[0], "", ""), clientFlags(mutual), sc)
		runs := []secretRun{
			{"right password", authtest.Env(t, role, sentinel), sc.args(ks, dir)},
			{"wrong password", authtest.Env(t, role, sentinel+"-wrong"), sc.args(ks, dir)},
			{"wrong user", authtest.Env(t, "nobody_"+role, sentinel), sc.args(ks, dir)},
			{"mutual TLS", credEnv(mutual.Hosts[0], role, sentinel), append(sc.args(tlsKs, tlsDir), clientFlags(mutual)...)},
		}
		for _, r := range runs {
			for i, args := range secretVariants(sc, r.args) {
				code, out, errOut, files := runCapturingFiles(t, r.env, args)
				if i == 0 && (strings.HasPrefix(r.what, "right") || strings.HasPrefix(r.what, "mutual")) {
					// The run must have done its work, or the sentinel never met the code that could leak it.
					if !sc.passed(code, out, errOut) {
						t.Errorf("%s, %q: exit %d\nstdout: %s\nstderr: %s", r.what, args, code, out, errOut)
					}
				}
				for what, text := range map[string]string{"stdout": out, "stderr": errOut, "files written": files} {
					if strings.Contains(text, sentinel) {
						t.Errorf("%s, %q: the password shows in %s:\n%s", r.what, args, what, text)
					}
					if strings.Contains(text, keyLine) {
						t.Errorf("%s, %q: the client key shows in %s:\n%s", r.what, args, what, text)
					}
				}
			}
		}
	})
}

// credEnv is an environment with the cluster and, when user is set, credentials.
func credEnv(hosts, user, password string) func(string) string {
	m := map[string]string{"CASSANDRA_HOSTS": hosts, "CASSANDRA_USERNAME": user, "CASSANDRA_PASSWORD": password}
	return func(k string) string { return m[k] }
}

// secretVariants are args as given, with each of the scenario's further formats, with -v
// when the command takes it, and writing to a file with -o where the command can.
func secretVariants(sc commandScenario, args []string) [][]string {
	out := [][]string{args}
	for _, f := range sc.formats {
		out = append(out, withFlag(args, "--format", f))
	}
	if sc.verbose {
		out = append(out, append(append([]string{}, args...), "-v"))
	}
	return out
}

// withFlag returns args with flag's value replaced by (or, if absent, set to) value.
func withFlag(args []string, flag, value string) []string {
	out := append([]string{}, args...)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == flag {
			out[i+1] = value
			return out
		}
	}
	return append(out, flag, value)
}

// runCapturingFiles runs args in a fresh working folder (where -o files and anything else
// written relative to it land) and returns stdout, stderr and the text of every file the
// folder holds afterwards.
func runCapturingFiles(t *testing.T, env func(string) string, args []string) (code int, stdout, stderr, files string) {
	t.Helper()
	dir := t.TempDir()
	for i := range args {
		if args[i] == "--format" && i+1 < len(args) && args[i+1] == "html" {
			args = append(append([]string{}, args...), "-o", dir+"/out.html")
			break
		}
	}
	code, stdout, stderr = runAuth(t, env, args...)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, e := range entries {
		data, err := os.ReadFile(dir + "/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return code, stdout, stderr, b.String()
}
