// Package authtest hands the TestAuth... tests a real Cassandra node with authentication
// and authorization on (PasswordAuthenticator, CassandraAuthorizer), the superuser's
// session on it, and roles made for one test, so that what a user without permission sees
// is checked against the node's own refusals, never an error built by hand.
//
// The node is the one `CQLSIZE_AUTH=1 scripts/cassandra up` starts (127.0.2.1); scripts/test
// starts it and exports its address as CQLSIZE_AUTH_HOSTS. Without that variable a test is
// skipped, saying how to get the node, except with CQLSIZE_REQUIRE_AUTH=1 (scripts/test sets
// it), where it fails: a run that has the node must not pass without the checks.
package authtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
)

// Environment read by Hosts.
const (
	EnvHosts   = "CQLSIZE_AUTH_HOSTS"   // host[:port],... of the authentication node
	EnvRequire = "CQLSIZE_REQUIRE_AUTH" // 1: a missing node is a failure, not a skip
)

// The default superuser CassandraRoleManager creates on a new cluster.
const (
	SuperUser     = "cassandra"
	SuperPassword = "cassandra"
)

const howTo = "no authentication node: run `CQLSIZE_AUTH=1 scripts/cassandra up` and export " +
	EnvHosts + "=$(CQLSIZE_AUTH=1 scripts/cassandra hosts), or run `make test`"

// Hosts returns the authentication node's contact points, or skips (fails with
// CQLSIZE_REQUIRE_AUTH=1) when there is none.
func Hosts(t testing.TB) []string {
	t.Helper()
	if h := connect.SplitHosts(os.Getenv(EnvHosts)); len(h) > 0 {
		return h
	}
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("%s (%s=1 is set, so this is a failure, not a skip)", howTo, EnvRequire)
	}
	t.Skip(howTo)
	return nil
}

// Config is a connection to the authentication node as user with password.
func Config(t testing.TB, user, password string) connect.Config {
	t.Helper()
	return connect.Config{Hosts: Hosts(t), Source: EnvHosts, Consistency: "ONE", Timeout: 30 * time.Second,
		Username: user, Password: password}
}

// Open connects as user; the session is closed when t ends.
func Open(t testing.TB, user, password, keyspace string) *gocql.Session {
	t.Helper()
	cfg := Config(t, user, password)
	cfg.Keyspace = keyspace
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("connect to the authentication node as %s: %v", user, err)
	}
	t.Cleanup(s.Close)
	return s
}

// Keyspace creates a keyspace of t's own as the superuser (replication factor 1, dropped
// when t ends) and returns the superuser's session in it and its name.
func Keyspace(t testing.TB) (*gocql.Session, string) {
	t.Helper()
	admin := Open(t, SuperUser, SuperPassword, "")
	name := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() {
		if err := admin.Query("DROP KEYSPACE IF EXISTS " + name).Exec(); err != nil {
			t.Logf("drop test keyspace %s: %v", name, err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := cassandratest.CreateKeyspace(ctx, admin, name, "{'class': 'SimpleStrategy', 'replication_factor': 1}"); err != nil {
		t.Fatalf("create test keyspace on the authentication node: %v", err)
	}
	return Open(t, SuperUser, SuperPassword, name), name
}

// Role creates a role that can log in and holds no permission at all, named prefix plus a
// random suffix so that tests running at once never share one; it is dropped when t ends.
// It returns the name and the password.
func Role(t testing.TB, admin *gocql.Session, prefix string) (name, password string) {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	name = strings.ToLower(prefix) + "_" + hex.EncodeToString(b[:])
	password = "pw-" + hex.EncodeToString(b[:]) + "-secret"
	if err := admin.Query(fmt.Sprintf("CREATE ROLE %s WITH PASSWORD = '%s' AND LOGIN = true", name, password)).Exec(); err != nil {
		t.Fatalf("create role %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := admin.Query("DROP ROLE IF EXISTS " + name).Exec(); err != nil {
			t.Logf("drop role %s: %v", name, err)
		}
	})
	return name, password
}

// Grant runs GRANT what ON on TO role as the superuser (say "SELECT", "TABLE ks.t").
func Grant(t testing.TB, admin *gocql.Session, what, on, role string) {
	t.Helper()
	if err := admin.Query(fmt.Sprintf("GRANT %s ON %s TO %s", what, on, role)).Exec(); err != nil {
		t.Fatalf("GRANT %s ON %s TO %s: %v", what, on, role, err)
	}
}

// Env is the environment a cqlsize command run in-process sees: the authentication node
// and the credentials of user.
func Env(t testing.TB, user, password string) func(string) string {
	t.Helper()
	m := map[string]string{
		connect.EnvHosts:    strings.Join(Hosts(t), ","),
		connect.EnvUsername: user,
		connect.EnvPassword: password,
	}
	return func(k string) string { return m[k] }
}
