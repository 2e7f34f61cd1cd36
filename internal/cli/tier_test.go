package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// tierFiles writes a schema (entities and a table on tiers, in keyspace ks) and its write
// plan, and returns their paths.
func tierFiles(t *testing.T, ks string) (schema, plan string) {
	t.Helper()
	dir := t.TempDir()
	schema = writeIn(t, dir, "schema.cql", strings.ReplaceAll(`
CREATE KEYSPACE IF NOT EXISTS KS WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE KS.posts (post_id text PRIMARY KEY, created_at timestamp, tags frozen<set<text>>);
CREATE TABLE KS.posts_by_post_id (post_id text PRIMARY KEY, created_at timestamp, tags frozen<set<text>>);
CREATE TABLE KS.posts_by_tag (tag text, bucket text, shard int, created_at timestamp, post_id text,
  PRIMARY KEY ((tag, bucket, shard), created_at, post_id)) WITH CLUSTERING ORDER BY (created_at DESC, post_id DESC);
CREATE TABLE KS.posts_by_tag_tiers (tag text, since timestamp, tier text, bucket text, shards int,
  PRIMARY KEY ((tag), since)) WITH CLUSTERING ORDER BY (since DESC);
`, "KS", ks))
	plan = writeIn(t, dir, "writeplan.yaml", strings.ReplaceAll(`version: 1
entities:
  KS.posts:
    - table: KS.posts_by_tag
      derive:
        - tag=each(tags)
        - bucket=month(created_at)
        - shard=shard(post_id, 1)
      tiers: {table: KS.posts_by_tag_tiers, default: {bucket: month}, hot: {bucket: hour, shards: 2}, promote_over: 200/day}
    - table: KS.posts_by_post_id
      source: true
      derive:
        - post_id=post_id
`, "KS", ks))
	return schema, plan
}

// TestTierBadFlagsExitTwo: every mistake is exit 2 with a message that names it, before
// any cluster is asked.
func TestTierBadFlagsExitTwo(t *testing.T) {
	schema, plan := tierFiles(t, "app")
	base := []string{"--plan", plan, "--schema", schema, "--table", "posts_by_tag"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "--schema", schema, "--table", "posts_by_tag", "--key", "go"}, "--plan is required"},
		{[]string{"show", "--plan", plan, "--table", "posts_by_tag", "--key", "go"}, "--schema is required"},
		{[]string{"show", "--plan", plan, "--schema", schema, "--key", "go"}, "--table is required"},
		{append([]string{"show"}, base...), "--key is required"},
		{append(append([]string{"promote"}, base...), "--key", "go"), "--tier is required"},
		{append(append([]string{"promote"}, base...), "--key", "go", "--tier", "blazing"), `--tier "blazing": app.posts_by_tag has tiers default, hot`},
		{append(append([]string{"show"}, base...), "--key", "go", "--key", "db"), "--key given 2 times: app.posts_by_tag's key is (tag): one --key per column, in that order"},
		{append(append([]string{"show"}, base...), "--key", "go", "--format", "yaml"), `--format "yaml": want text or json`},
		{[]string{"show", "--plan", plan, "--schema", schema, "--table", "posts", "--key", "go"}, "--table posts: not on tiers in " + plan + " (tables on tiers: app.posts_by_tag)"},
		{[]string{"show", "--plan", plan, "--schema", schema + ".nosuch", "--table", "posts_by_tag", "--key", "go"}, "--schema " + schema + ".nosuch"},
		{[]string{"show", "--plan", plan + ".nosuch", "--schema", schema, "--table", "posts_by_tag", "--key", "go"}, "read write plan"},
		{append(append([]string{"show"}, base...), "--key", "go"), "no cluster: pass --hosts or set $CASSANDRA_HOSTS"},
	} {
		code, out, errOut := runEnv(t, map[string]string{}, append([]string{"tier"}, tc.args...)...)
		if code != ExitBadInput || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("tier %v: exit %d\nstdout: %s\nstderr: %s\nwant exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestTierPromoteAndShowOnTheNode promotes a key, promotes it again (nothing written), shows
// it, and demotes it; the tier table is read with plain CQL to check what was written.
func TestTierPromoteAndShowOnTheNode(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	schema, plan := tierFiles(t, ks)
	cassandratest.DDL(t, s, ks,
		"CREATE TABLE posts_by_tag_tiers (tag text, since timestamp, tier text, bucket text, shards int, PRIMARY KEY ((tag), since)) WITH CLUSTERING ORDER BY (since DESC)",
	)
	args := []string{"--plan", plan, "--schema", schema, "--table", ks + ".posts_by_tag", "--key", "cassandra"}
	before := time.Now().UTC()
	code, out, errOut := sweepStep(t, append(append([]string{"tier", "promote"}, args...), "--tier", "hot")...)
	if code != ExitOK {
		t.Fatalf("promote: exit %d\n%s%s", code, out, errOut)
	}
	// The first month boundary at least 2 minutes ahead, by hand.
	want := time.Date(before.Year(), before.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	if after := time.Date(before.Year(), before.Month(), 1, 0, 0, 0, 0, time.UTC); !after.Before(before.Add(2 * time.Minute)) {
		want = after
	}
	if !strings.Contains(out, "Promoted "+ks+".posts_by_tag [cassandra] to hot (hour x 2 shards) from "+want.Format(time.RFC3339)) {
		t.Errorf("promote says:\n%s", out)
	}
	var since time.Time
	var tier, width string
	var shards int
	if err := s.Query("SELECT since, tier, bucket, shards FROM posts_by_tag_tiers WHERE tag = 'cassandra'").Scan(&since, &tier, &width, &shards); err != nil {
		t.Fatal(err)
	}
	if !since.Equal(want) || tier != "hot" || width != "hour" || shards != 2 {
		t.Errorf("tier row: %s %s %s %d, want %s hot hour 2", since, tier, width, shards, want)
	}
	code, out, errOut = sweepStep(t, append(append([]string{"tier", "promote"}, args...), "--tier", "hot", "--format", "json")...)
	var rep tierReport
	if code != ExitOK || json.Unmarshal([]byte(out), &rep) != nil || rep.Promoted == nil || rep.Promoted.Applied || len(rep.Changes) != 1 {
		t.Errorf("promote again: exit %d, %+v\n%s%s", code, rep, out, errOut)
	}
	code, out, _ = sweepStep(t, append([]string{"tier", "show"}, args...)...)
	if code != ExitOK || !strings.Contains(strings.Join(strings.Fields(out), " "), want.Format(time.RFC3339)+" hot (hour x 2 shards)") || !strings.Contains(out, "Rows written now go to default (month).") {
		t.Errorf("show: exit %d\n%s", code, out)
	}
	// Demote: the next boundary of hour and month after the promotion is the month after.
	code, out, errOut = sweepStep(t, append(append([]string{"tier", "promote"}, args...), "--tier", "default")...)
	if next := want.AddDate(0, 1, 0); code != ExitOK || !strings.Contains(out, "to default (month) from "+next.Format(time.RFC3339)) {
		t.Errorf("demote: exit %d\n%s%s", code, out, errOut)
	}
	if n := countRows(t, s, "SELECT COUNT(*) FROM "+ks+".posts_by_tag_tiers WHERE tag = 'cassandra'"); n != 2 {
		t.Errorf("%d tier rows, want 2", n)
	}
}
