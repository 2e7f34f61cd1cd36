package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/authtest"
)

// runAuth runs cqlsize in-process with getenv as its whole environment.
func runAuth(t *testing.T, getenv func(string) string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = DoContext(context.Background(), args, strings.NewReader(""), &out, &errb, getenv)
	return code, out.String(), errb.String()
}

// authEvents creates, as the superuser on the authentication node, a keyspace with a table
// events holding 50 rows in 5 partitions.
func authEvents(t *testing.T) (admin *gocql.Session, ks string) {
	t.Helper()
	admin, ks = authtest.Keyspace(t)
	fillEvents(t, admin, ks)
	return admin, ks
}

// fillEvents creates the events table in the session's keyspace ks with 50 rows in 5 partitions.
func fillEvents(t *testing.T, s *gocql.Session, ks string) {
	t.Helper()
	cassandratest.DDL(t, s, ks, "CREATE TABLE events (id int, seq int, body text, PRIMARY KEY (id, seq))")
	for i := 0; i < 50; i++ {
		if err := s.Query("INSERT INTO events (id, seq, body) VALUES (?, ?, ?)", i%5, i, fmt.Sprint("body ", i)).Exec(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAuthProfileNoSelect: a role that may log in and read the schema but not the table gets
// exit 2 and the node's own words naming the role, the permission and the table, the GRANT
// that would allow it, and nothing on stdout in any format; granted SELECT, the same command
// profiles the table.
func TestAuthProfileNoSelect(t *testing.T) {
	admin, ks := authEvents(t)
	reader, pw := authtest.Role(t, admin, "reader")
	env := authtest.Env(t, reader, pw)
	want := fmt.Sprintf("User %s has no SELECT permission on <table %s.events>", reader, ks)
	hint := fmt.Sprintf("GRANT SELECT ON KEYSPACE %s TO %s", ks, reader)
	for _, format := range []string{"workload", "json", "markdown"} {
		code, out, errOut := runAuth(t, env, "profile", "--keyspace", ks, "--format", format, "--sample", "10")
		if code != ExitBadInput || !strings.Contains(errOut, want) || !strings.Contains(errOut, "profile "+ks+".events") ||
			!strings.Contains(errOut, hint) || out != "" {
			t.Errorf("--format %s without SELECT: exit %d, stdout %q, stderr %q; want 2, nothing on stdout, %q", format, code, out, errOut, want)
		}
	}
	authtest.Grant(t, admin, "SELECT", "TABLE "+ks+".events", reader)
	code, out, errOut := runAuth(t, env, "profile", "--keyspace", ks, "--sample", "10", "--seed", "1")
	if code != ExitOK || !strings.Contains(out, "events") {
		t.Errorf("with SELECT granted: exit %d, stdout %.300q, stderr %q; want 0 and a workload", code, out, errOut)
	}
}

// TestAuthEstimateLiveNoViews: estimate --live needs the schema (every role may read
// system_schema) and shows the node's figures beside it when the role may read them; a
// role that may not gets the estimate, exit 0, and a note naming what the node refused.
func TestAuthEstimateLiveNoViews(t *testing.T) {
	admin, ks := authEvents(t)
	reader, pw := authtest.Role(t, admin, "reader")
	code, out, errOut := runAuth(t, authtest.Env(t, reader, pw), "estimate", "--live", "--keyspace", ks, "--table", "events", "--rows", "10")
	want := fmt.Sprintf("no cluster figures from %s: system_views.max_partition_size: User %s has no SELECT permission on <table system_views.max_partition_size>",
		strings.Join(authtest.Hosts(t), ","), reader)
	if code != ExitOK || !strings.Contains(out, ks+".events") || !strings.Contains(out, want) || !strings.Contains(errOut, want) {
		t.Errorf("estimate --live without the views: exit %d\nstdout: %s\nstderr: %s\nwant 0, the estimate and a note %q (in the report and on stderr)", code, out, errOut, want)
	}
	code, out, _ = runAuth(t, authtest.Env(t, reader, pw), "estimate", "--live", "--keyspace", ks, "--table", "events", "--rows", "10", "--format", "json")
	if code != ExitOK || !strings.Contains(out, `"notes"`) || !strings.Contains(out, "no cluster figures from") {
		t.Errorf("--format json: exit %d, the note missing:\n%s", code, out)
	}
	// The superuser may read everything: the figures are there and there is no such note.
	code, out, errOut = runAuth(t, authtest.Env(t, authtest.SuperUser, authtest.SuperPassword), "estimate", "--live", "--keyspace", ks, "--table", "events", "--rows", "10")
	if code != ExitOK || strings.Contains(out, "no cluster figures") {
		t.Errorf("as the superuser: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// TestAuthLoginRefused: a wrong password, or none where the node requires one, is bad input
// (2): running again unchanged meets the same refusal. The message names the user and the
// hosts and never the password.
func TestAuthLoginRefused(t *testing.T) {
	admin, ks := authEvents(t)
	reader, _ := authtest.Role(t, admin, "reader")
	hosts := strings.Join(authtest.Hosts(t), ",")
	const badPassword = "not-the-password-42"
	dir := migDir(t, map[string]string{"0001_a.cql": "CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\n"})
	for _, args := range [][]string{
		{"profile", "--keyspace", ks},
		{"estimate", "--live", "--keyspace", ks, "--table", "events", "--rows", "10"},
		{"migrate", "status", "--keyspace", ks, "--dir", dir},
		{"migrate", "up", "--keyspace", ks, "--dir", dir},
	} {
		code, out, errOut := runAuth(t, authtest.Env(t, reader, badPassword), args...)
		if code != ExitBadInput || out != "" || !strings.Contains(errOut, "Provided username "+reader+" and/or password are incorrect") ||
			!strings.Contains(errOut, hosts) || strings.Contains(errOut, badPassword) {
			t.Errorf("%v with a wrong password: exit %d, stdout %q, stderr %q; want 2 naming %s and %s, not the password", args[:2], code, out, errOut, reader, hosts)
		}
		code, out, errOut = runAuth(t, authtest.Env(t, "", ""), args...)
		if code != ExitBadInput || out != "" || !strings.Contains(errOut, "authentication required") || !strings.Contains(errOut, hosts) {
			t.Errorf("%v with no credentials: exit %d, stdout %q, stderr %q; want 2, authentication required, %s", args[:2], code, out, errOut, hosts)
		}
	}
}
