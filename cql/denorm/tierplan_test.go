package denorm

import (
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

const tierPlanSchema = `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.posts (post_id text PRIMARY KEY, created_at timestamp, tags set<text>, body text);
CREATE TABLE app.posts_by_post_id (post_id text PRIMARY KEY, created_at timestamp, tags set<text>, body text);
CREATE TABLE app.posts_by_tag (tag text, bucket text, shard int, created_at timestamp, post_id text, body text,
  PRIMARY KEY ((tag, bucket, shard), created_at, post_id)) WITH CLUSTERING ORDER BY (created_at DESC, post_id ASC);
CREATE TABLE app.posts_by_tag_tiers (tag text, since timestamp, tier text, bucket text, shards int,
  PRIMARY KEY ((tag), since)) WITH CLUSTERING ORDER BY (since DESC);
CREATE TABLE app.bad_tiers (tag text, since timestamp, tier text, bucket text, shards int,
  PRIMARY KEY ((tag), since));
`

func tierPlanEntry(tiers string) string {
	return `version: 1
entities:
  app.posts:
    - table: app.posts_by_tag
      derive:
        - tag=each(tags)
        - bucket=month(created_at)
        - shard=shard(post_id, 1)
      tiers: ` + tiers + `
    - table: app.posts_by_post_id
      source: true
      derive:
        - post_id=post_id
`
}

// TestWritePlanTiers reads a table's tiers as docs/denorm.md writes them: the default from
// the rules, a hot tier, the threshold, the columns the runtime needs.
func TestWritePlanTiers(t *testing.T) {
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(tierPlanSchema)); err != nil {
		t.Fatal(err)
	}
	plan, err := ParseWritePlan("writeplan.yaml", []byte(tierPlanEntry(
		"{table: app.posts_by_tag_tiers, default: {bucket: month}, hot: {bucket: hour, shards: 2}, promote_over: 200/day}")), s)
	if err != nil {
		t.Fatal(err)
	}
	tp := plan.TierPlan("posts_by_tag")
	if tp == nil {
		t.Fatal("no tier plan for posts_by_tag")
	}
	if tp.Table != "app.posts_by_tag_tiers" || tp.BucketColumn != "bucket" || tp.TimeColumn != "created_at" ||
		tp.ShardColumn != "shard" || tp.ShardSource != "post_id" || strings.Join(tp.KeyColumns, ",") != "tag" {
		t.Errorf("tier plan %+v", tp)
	}
	if d := tp.Default(); d.Scheme.Width().String() != "month" || d.Shards != 1 {
		t.Errorf("default %s, want month x 1", d)
	}
	if h, _ := tp.Tier("hot"); h.Scheme.Width().String() != "hour" || h.Shards != 2 {
		t.Errorf("hot %s, want hour x 2", h)
	}
	if got := tp.PromoteOver.PerSecond() * 86400; got < 199.999 || got > 200.001 {
		t.Errorf("promote_over %v a day, want 200", got)
	}
	if got := strings.Join(tp.Names(), ","); got != "default,hot" {
		t.Errorf("names %s", got)
	}
	// The default may be left to the rules.
	plan, err = ParseWritePlan("writeplan.yaml", []byte(tierPlanEntry("{table: app.posts_by_tag_tiers, hot: {bucket: 6h, shards: 3}}")), s)
	if err != nil {
		t.Fatal(err)
	}
	if d := plan.TierPlan("app.posts_by_tag").Default(); d.Scheme.Width().String() != "month" {
		t.Errorf("default %s, want the rule's month", d)
	}
}

// TestWritePlanTierErrors: every mistake in tiers: is named at its file:line:col.
func TestWritePlanTierErrors(t *testing.T) {
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(tierPlanSchema)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tiers, want string }{
		{"{table: app.posts_by_tag_tiers, default: {bucket: day}, hot: {bucket: hour}}", "writeplan.yaml:9:55: write plan: app.posts_by_tag: tiers: default bucket day, but the rule bucket=month(created_at) cuts month buckets"},
		{"{table: app.posts_by_tag_tiers, hot: {bucket: fortnight}}", "writeplan.yaml:9:60: write plan: app.posts_by_tag: tiers: tier hot: bucket: invalid width \"fortnight\""},
		{"{table: app.posts_by_tag_tiers, hot: {bucket: hour, shards: 0}}", "tier hot: shards \"0\": want a whole number from 1 to 1024"},
		{"{table: app.posts_by_tag_tiers, Hot: {bucket: hour}}", "writeplan.yaml:9:46: write plan: app.posts_by_tag: tiers: \"Hot\": a tier name is lower-case"},
		{"{table: app.posts_by_tag_tiers, hot: {bucket: hour, shard: 2}}", "tier hot: unknown field \"shard\" (want bucket, shards)"},
		{"{table: app.posts_by_tag_tiers, hot: {shards: 2}}", "tier hot: no bucket"},
		{"{table: app.posts_by_tag_tiers, hot: {bucket: hour}, promote_over: lots}", "promote_over: want a rate such as 50/day"},
		{"{table: app.nosuch_tiers, hot: {bucket: hour}}", "writeplan.yaml:9:22: write plan: app.posts_by_tag: tiers: tier table app.nosuch_tiers is not in the schema"},
		{"{table: app.bad_tiers, hot: {bucket: hour}}", "tier table app.bad_tiers does not cluster by since timestamp DESC; want CREATE TABLE app.bad_tiers (tag <type>, since timestamp, tier text, bucket text, shards int, PRIMARY KEY ((tag), since)) WITH CLUSTERING ORDER BY (since DESC)"},
		{"{table: app.posts_by_tag_tiers}", "no tier besides the default"},
		{"{hot: {bucket: hour}}", "want table: the tier table (keyspace.posts_by_tag_tiers)"},
		{"[hot]", "tiers: want a mapping"},
	} {
		_, err := ParseWritePlan("writeplan.yaml", []byte(tierPlanEntry(tc.tiers)), s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("tiers %s:\n error %v\n want %q", tc.tiers, err, tc.want)
		}
	}
	// A hot tier with shards on a table without a shard column.
	noShard := strings.Replace(tierPlanEntry("{table: app.posts_by_tag_tiers, hot: {bucket: hour, shards: 2}}"), "        - shard=shard(post_id, 1)\n", "", 1)
	s2 := cql.NewSchema()
	src := strings.Replace(strings.Replace(tierPlanSchema, "shard int, created_at", "created_at", 1), "(tag, bucket, shard)", "(tag, bucket)", 1)
	if err := s2.ApplyFile("schema.cql", []byte(src)); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseWritePlan("writeplan.yaml", []byte(noShard), s2); err == nil || !strings.Contains(err.Error(), "tier hot has 2 shards, but the table has no shard column") {
		t.Errorf("error %v, want the missing shard column", err)
	}
}

// TestTieredMappingNeedsTiers: a table on tiers refuses to write without its tiers, rather
// than write a hot key's rows where its readers do not look.
func TestTieredMappingNeedsTiers(t *testing.T) {
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(tierPlanSchema)); err != nil {
		t.Fatal(err)
	}
	plan, err := ParseWritePlan("writeplan.yaml", []byte(tierPlanEntry("{table: app.posts_by_tag_tiers, hot: {bucket: hour, shards: 2}}")), s)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New[Values](nil, s, Options{AllowCollectionTombstones: true}, plan.Entity("app.posts").Mappings()...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.PlanInsert(&Values{"post_id": "p1", "created_at": time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC), "tags": []string{"go"}})
	if err == nil || !strings.Contains(err.Error(), "app.posts_by_tag is on tiers (app.posts_by_tag_tiers): pass its *Tiers (NewTiers) to Mappings") {
		t.Errorf("error %v", err)
	}
}
