package accuracy

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// TestBatchSizeMatchesCassandra writes one post to three tables in a logged batch large enough
// to pass batch_size_warn_threshold, reads the size Cassandra reports in its warning, and
// requires sizing.EstimateBatch to give the same number of bytes.
func TestBatchSizeMatchesCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("writes to Cassandra; skipped with -short")
	}
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks,
		`CREATE TABLE posts_by_user (user_id uuid, month text, post_id timeuuid, title text, content text, likes int,
			PRIMARY KEY ((user_id, month), post_id))`,
		`CREATE TABLE posts_by_hashtag (hashtag text, post_id timeuuid, user_id uuid, content text,
			PRIMARY KEY (hashtag, post_id)) WITH default_time_to_live = 86400`,
		`CREATE TABLE posts_by_id (post_id timeuuid PRIMARY KEY, user_id uuid, content text, hashtags set<text>, created_at timestamp)`,
	)
	// The rest of the test's time starts once the tables are there (DDL has its own budget).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.AwaitSchemaAgreement(ctx); err != nil {
		t.Fatal(err)
	}
	schema, err := liveschema.Read(ctx, s, ks)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Parse("batch.yaml", []byte(`
tables:
  posts_by_user: {rows: 1, avg: {month: 7, title: 40, content: 2000}, nulls: {likes: 1}}
  posts_by_hashtag: {rows: 1, avg: {hashtag: 9, content: 2000}}
  posts_by_id: {rows: 1, avg: {content: 2000}, items: {hashtags: {count: 3, size: 9}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	writes, err := sizing.BatchFromWorkloads(schema, w, ks+".posts_by_user", ks+".posts_by_hashtag", ks+".posts_by_id")
	if err != nil {
		t.Fatal(err)
	}
	est, err := sizing.EstimateBatch(writes, sizing.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}

	user, post := gocql.TimeUUID(), gocql.TimeUUID()
	content := strings.Repeat("c", 2000)
	// A batch sent as one CQL text: gocql returns the server's warnings of a query's result.
	iter := s.Query(`BEGIN BATCH
		INSERT INTO posts_by_user (user_id, month, post_id, title, content, likes) VALUES (?, ?, ?, ?, ?, ?);
		INSERT INTO posts_by_hashtag (hashtag, post_id, user_id, content) VALUES (?, ?, ?, ?);
		INSERT INTO posts_by_id (post_id, user_id, content, hashtags, created_at) VALUES (?, ?, ?, ?, ?);
		APPLY BATCH`,
		user, "2026-11", post, strings.Repeat("t", 40), content, nil,
		"cassandra", post, user, content,
		post, user, content, []string{"aaaaaaaaa", "bbbbbbbbb", "ccccccccc"}, time.Now()).WithContext(ctx).Iter()
	warnings := iter.Warnings()
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`Batch for \[.*\] is of size (\d+), exceeding specified threshold of (\d+)`)
	var got int
	for _, wmsg := range warnings {
		if m := re.FindStringSubmatch(wmsg); m != nil {
			got, _ = strconv.Atoi(m[1])
		}
	}
	if got == 0 {
		t.Fatalf("no batch size warning from Cassandra (warnings: %q); the model says %.0f bytes, %d mutations", warnings, est.Bytes, est.Mutations)
	}
	t.Logf("Cassandra: batch of %d bytes; sizing.EstimateBatch: %.0f bytes (%v)", got, est.Bytes, est.PerTable)
	if int(est.Bytes) != got {
		t.Errorf("EstimateBatch = %.0f bytes, Cassandra measured %d", est.Bytes, got)
	}
	if !est.Checked || est.Mutations != 3 || len(est.Findings) != 1 || est.Findings[0].Code != sizing.CodeBatchWarn {
		t.Errorf("estimate: checked %v, %d mutations, findings %v; want checked, 3, one SZ020", est.Checked, est.Mutations, est.Findings)
	}
}
