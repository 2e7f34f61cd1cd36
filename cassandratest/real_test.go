package cassandratest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/version"
)

// TestClusterIsRealCassandra5 proves the harness hands out a real Cassandra 5.0: it reads
// the server's own version, round-trips a row, and has the server reject a query that
// needs ALLOW FILTERING with an invalid-request error. No mock could pass all three.
func TestClusterIsRealCassandra5(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)

	var release string
	if err := s.Query("SELECT release_version FROM system.local").Scan(&release); err != nil {
		t.Fatalf("read release_version: %v", err)
	}
	if !strings.HasPrefix(release, "5.0.") {
		t.Fatalf("release_version = %q, want 5.0.x", release)
	}
	if want := version.Cassandra; release != want {
		t.Logf("cluster runs %s; the project pins and is tested against %s", release, want)
	}

	cassandratest.DDL(t, s, ks, `CREATE TABLE posts_by_user (
		user_id uuid, month text, post_id timeuuid, content text,
		PRIMARY KEY ((user_id, month), post_id)) WITH CLUSTERING ORDER BY (post_id DESC)`)
	user, post := gocql.TimeUUID(), gocql.TimeUUID()
	if err := s.Query(`INSERT INTO posts_by_user (user_id, month, post_id, content) VALUES (?, ?, ?, ?)`,
		user, "2026-11", post, "hello").Exec(); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var content string
	var gotPost gocql.UUID
	if err := s.Query(`SELECT post_id, content FROM posts_by_user WHERE user_id = ? AND month = ?`,
		user, "2026-11").Scan(&gotPost, &content); err != nil {
		t.Fatalf("select: %v", err)
	}
	if gotPost != post || content != "hello" {
		t.Fatalf("read back (%v, %q), want (%v, %q)", gotPost, content, post, "hello")
	}

	// A filter on a regular column needs ALLOW FILTERING; Cassandra refuses it as invalid.
	err := s.Query(`SELECT * FROM posts_by_user WHERE content = 'hello'`).Exec()
	var reqErr gocql.RequestError
	if !errors.As(err, &reqErr) || reqErr.Code() != gocql.ErrCodeInvalid {
		t.Fatalf("SELECT needing ALLOW FILTERING: err = %v, want an invalid-request error (code 0x%04x)", err, gocql.ErrCodeInvalid)
	}
	if !strings.Contains(err.Error(), "ALLOW FILTERING") {
		t.Errorf("rejection does not mention ALLOW FILTERING: %v", err)
	}
	// With ALLOW FILTERING the same query is accepted.
	if err := s.Query(`SELECT * FROM posts_by_user WHERE content = 'hello' ALLOW FILTERING`).Exec(); err != nil {
		t.Fatalf("SELECT ... ALLOW FILTERING: %v", err)
	}
}
