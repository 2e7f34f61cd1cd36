package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/evolve"
)

// TestEvolvePlanLive reads the existing table from the node and counts its rows from
// system.size_estimates: 2,000 posts written, flushed and the estimates refreshed, the plan's
// row count must be within the estimate's error of 2,000.
func TestEvolvePlanLive(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	node := cassandratest.LocalNode(t, s)
	cassandratest.DDL(t, s, ks, `CREATE TABLE posts_by_id (post_id timeuuid PRIMARY KEY, user_id uuid, content text,
		hashtags frozen<set<text>>, created_at timestamp)`)
	const n = 2000
	for i := range n {
		if err := s.Query("INSERT INTO posts_by_id (post_id, content, hashtags) VALUES (?, 'x', {'go'})", gocql.TimeUUID()).Exec(); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, cmd := range [][]string{{"nodetool", "flush", ks, "posts_by_id"}, {"nodetool", "refreshsizeestimates"}} {
		if out, err := node.Run(ctx, cmd...); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, out)
		}
	}
	code, out, errOut := run(t, "evolve", "plan", "--hosts", strings.Join(cassandratest.Hosts(t), ","), "--from", ks+".posts_by_id",
		"--to", "../../examples/posts/testdata/evolve/posts_by_hashtag.cql", "--keep-from", "--copy-rate", "100", "--format", "json")
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var p evolve.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Backfill.SourceRows-n) > n/10 || !strings.Contains(p.Backfill.RowsFrom, "system.size_estimates") {
		t.Errorf("rows %v from %q: want about %d from system.size_estimates", p.Backfill.SourceRows, p.Backfill.RowsFrom, n)
	}
	if !strings.Contains(p.Backfill.Command, "--hosts "+strings.Join(cassandratest.Hosts(t), ",")+" -k "+ks+" ") {
		t.Errorf("command %q does not name the cluster and keyspace", p.Backfill.Command)
	}

	// The plan's commands are the real ones: after step 1, its backfill and its verify run
	// as printed and succeed, and every post is then in posts_by_hashtag.
	src, err := os.ReadFile("../../examples/posts/testdata/evolve/posts_by_hashtag.cql")
	if err != nil {
		t.Fatal(err)
	}
	cassandratest.DDL(t, s, ks, string(src))
	for _, command := range []string{p.Backfill.Command, p.Backfill.VerifyCommand} {
		args, err := shellWords(command)
		if err != nil || args[0] != "cqlsize" {
			t.Fatalf("command %q: %v", command, err)
		}
		if code, _, errOut := run(t, args[1:]...); code != ExitOK {
			t.Fatalf("%s: exit %d\n%s", command, code, errOut)
		}
	}
	var copied int
	if err := s.Query("SELECT COUNT(*) FROM posts_by_hashtag").Scan(&copied); err != nil || copied != n {
		t.Errorf("posts_by_hashtag holds %d rows after the plan's backfill (%v), want %d", copied, err, n)
	}
}
