package posts_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/evolve"
	"github.com/cqlsize/cqlsize/evolve/backfill"
	"github.com/cqlsize/cqlsize/examples/posts"
	"github.com/cqlsize/cqlsize/migrations"
)

// evolveTags are the hashtags of the scenario's posts: few enough that each partition of
// posts_by_hashtag holds many posts.
var evolveTags = []string{"go", "cassandra", "nosql", "cql", "k8s", "linux", "rust", "sre", "db", "ops"}

// evolveService is the posts service at one stage of adding posts_by_hashtag.
func evolveService(t *testing.T, s *gocql.Session, ks string, stage denorm.Stage) *posts.Store {
	t.Helper()
	st, err := posts.NewStore(s, ks, denorm.Options{Transitions: []denorm.Transition{{New: posts.HashtagTable, Stage: stage}}}, []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestEvolveAddHashtagTable runs the whole sequence on the node for a service that had only
// posts_by_id and posts_by_user and adds hashtag timelines: the plan (evolve.Build, offline,
// from the migration files), the migration creating posts_by_hashtag, dual writes, the
// backfill with the plan's rules while the service keeps creating, editing and deleting
// posts, a full verification, reads switched by configuration, and a later migration that
// drops the backfill's bookkeeping and nothing else. An independent reader then checks,
// with plain queries and its own month arithmetic, that every post is findable by each of
// its hashtags and that posts_by_hashtag holds nothing else (no deleted post, no removed
// hashtag brought back).
func TestEvolveAddHashtagTable(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx := context.Background()
	dir := t.TempDir()
	copyFile(t, "testdata/evolve/migrations/0001_posts.cql", filepath.Join(dir, "0001_posts.cql"))
	migrate(t, s, ks, dir)

	// The service as it was: hashtags stored with the post, no table serves them.
	v1 := evolveService(t, s, ks, denorm.OldOnly)
	before := createPosts(t, v1, 1500)
	if _, err := v1.HashtagTimeline(ctx, "go", 10, ""); !errors.Is(err, posts.ErrNotServed) {
		t.Fatalf("old-only hashtag timeline: %v, want ErrNotServed", err)
	}

	// The plan, from the same files: which migration to add and how to backfill.
	set, err := migrations.LoadSetDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := set.Schema(ks)
	if err != nil {
		t.Fatal(err)
	}
	plan := planHashtags(t, schema, ks, dir)
	copyFile(t, "testdata/evolve/posts_by_hashtag.cql", plan.Steps[0].File)
	migrate(t, s, ks, dir)

	// Dual writes, then the backfill while the service writes, edits and deletes.
	v2 := evolveService(t, s, ks, denorm.DualWrite)
	if _, err := v2.HashtagTimeline(ctx, "go", 10, ""); !errors.Is(err, posts.ErrNotServed) {
		t.Fatalf("dual-write hashtag timeline: %v, want ErrNotServed", err)
	}
	if set, err = migrations.LoadSetDir(dir); err != nil {
		t.Fatal(err)
	}
	if schema, err = set.Schema(ks); err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, d := range plan.Derive {
		rules = append(rules, d.Rule())
	}
	prog, err := denorm.Derive(schema, "posts_by_id", posts.HashtagTable, rules...)
	if err != nil {
		t.Fatal(err)
	}
	// The service's writes count only while the backfill reads ranges (from its first
	// progress with rows read until it returns), so the test knows the race happened. The
	// backfill is rate-limited to spread its reads over a few seconds.
	var reading atomic.Bool
	stop := make(chan struct{})
	churn := startChurn(t, v2, before, stop, &reading)
	res, err := backfill.Run(ctx, s, prog, backfill.Options{Workers: 2, Ranges: 64, Rate: 400,
		Progress: func(p backfill.Progress) { reading.Store(reading.Load() || p.Rows > 0) }})
	reading.Store(false)
	close(stop)
	ops := churn()
	if err != nil {
		t.Fatalf("backfill: %v", err)
	}
	t.Logf("backfill: %d source rows, %d target rows in %.1fs; while it read, the service created %d, edited %d and deleted %d posts",
		res.Rows, res.TargetRows, res.ElapsedSeconds, ops.created, ops.edited, ops.deleted)
	if ops.edited == 0 || ops.deleted == 0 {
		t.Fatalf("the service edited %d and deleted %d posts while the backfill read: no race tested", ops.edited, ops.deleted)
	}
	vr, err := backfill.Verify(ctx, s, prog, backfill.VerifyOptions{Full: true})
	if err != nil || !vr.OK() {
		t.Fatalf("verify: %+v, %v", vr, err)
	}

	// Reads switched by configuration, then the later migration.
	v3 := evolveService(t, s, ks, denorm.ReadNew)
	writeFile(t, filepath.Join(dir, "0003_drop_backfill_bookkeeping.cql"),
		"-- The backfill is done: its checkpoint and leases go. Nothing the service reads is dropped.\n"+
			"DROP TABLE IF EXISTS "+backfill.ProgressTable+";\nDROP TABLE IF EXISTS "+backfill.LeaseTable+";\n")
	migrate(t, s, ks, dir)
	tables := liveTables(t, s, ks)
	if !slices.Equal(tables, []string{"posts_by_hashtag", "posts_by_id", "posts_by_user"}) {
		t.Fatalf("after the last migration the keyspace has %v: want the three posts tables and nothing else", tables)
	}

	want := independentHashtags(t, s, ks)
	if len(want) == 0 {
		t.Fatal("no post with a hashtag")
	}
	// Every hashtag timeline, read through the service at read-new, lists its posts.
	for _, tag := range evolveTags {
		var got []string
		token := ""
		for {
			page, err := v3.HashtagTimeline(ctx, tag, 100, token)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range page.Posts {
				got = append(got, p.ID.String())
			}
			if token = page.Next; token == "" {
				break
			}
		}
		sort.Strings(got)
		if !slices.Equal(got, want[tag]) {
			t.Errorf("#%s timeline: %d posts, the independent reader finds %d", tag, len(got), len(want[tag]))
		}
	}
}

// Before read-new a hashtag timeline is a 503 that says why, with nothing read (the store
// here has no session at all).
func TestHashtagTimelineNotServedOverHTTP(t *testing.T) {
	for _, stage := range []denorm.Stage{denorm.OldOnly, denorm.DualWrite} {
		st := evolveService(t, nil, "posts", stage)
		rec := httptest.NewRecorder()
		posts.Handler(st, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/hashtags/go/posts", nil))
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "not served yet") {
			t.Errorf("%s: %d %s", stage, rec.Code, rec.Body)
		}
	}
}

// planHashtags plans posts_by_hashtag from posts_by_id as cqlsize evolve plan does, and
// checks the rules it inferred.
func planHashtags(t *testing.T, schema *cql.Schema, ks, dir string) *evolve.Plan {
	t.Helper()
	src, err := os.ReadFile("testdata/evolve/posts_by_hashtag.cql")
	if err != nil {
		t.Fatal(err)
	}
	next, to, err := evolve.NewTable(schema, ks, "posts_by_hashtag.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := evolve.Build(evolve.Input{Schema: next, From: next.Table(ks, "posts_by_id"), To: to, ToFile: "posts_by_hashtag.cql",
		ToSource: string(src), KeepFrom: true, Rate: 1000, RateFrom: "test", Keyspace: ks,
		CreateFile: filepath.Join(dir, "0002_create_posts_by_hashtag.cql")})
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, d := range plan.Derive {
		rules = append(rules, d.Rule())
	}
	if strings.Join(rules, " ") != "hashtag=each(hashtags) month=month(post_id)" || plan.Steps[0].File == "" {
		t.Fatalf("plan: rules %v, migration %q", rules, plan.Steps[0].File)
	}
	return plan
}

func migrate(t *testing.T, s *gocql.Session, ks, dir string) {
	t.Helper()
	set, err := migrations.LoadSetDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrations.New(s, set.Migrations, migrations.Options{Keyspace: ks})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(context.Background()); err != nil {
		t.Fatalf("migrate %s: %v", dir, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(b))
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// createPosts writes n posts of 0 to 3 hashtags, spread over the last 80 days (so over
// three or four month buckets), 8 at a time.
func createPosts(t *testing.T, st *posts.Store, n int) []*posts.Post {
	t.Helper()
	out := make([]*posts.Post, n)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				p, err := randomPost(time.Now().Add(-time.Duration(rand.N(80*24)) * time.Hour))
				if err == nil {
					err = st.Create(context.Background(), p)
				}
				if err != nil {
					errs <- err
					return
				}
				out[i] = p
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	return out
}

func randomPost(at time.Time) (*posts.Post, error) {
	var tags []string
	for range rand.N(4) {
		tags = append(tags, evolveTags[rand.N(len(evolveTags))])
	}
	p, err := posts.NewPost(gocql.TimeUUID(), "post at "+at.Format(time.RFC3339), tags)
	if err != nil {
		return nil, err
	}
	p.ID = gocql.UUIDFromTime(at)
	p.CreatedAt = at.UTC().Truncate(time.Millisecond)
	return p, nil
}

type churnOps struct{ created, edited, deleted int64 }

// startChurn has the service create new posts, change the hashtags of older ones and
// delete others, about 150 writes a second while reading is set (the backfill reads
// ranges), until stop closes; the returned function waits for it and says how much it did.
// Each older post is edited or deleted at most once; when they run out, it only creates.
func startChurn(t *testing.T, st *posts.Store, older []*posts.Post, stop chan struct{}, reading *atomic.Bool) func() churnOps {
	var ops churnOps
	var wg sync.WaitGroup
	var failed atomic.Value
	ctx := context.Background()
	order := rand.Perm(len(older))
	var next atomic.Int64
	count := func(n *int64) { atomic.AddInt64(n, 1) }
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(25 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				if !reading.Load() {
					continue // the older posts are kept for while the backfill reads them
				}
				i := int(next.Add(1))
				var err error
				switch {
				case i >= len(order) || i%3 == 0:
					var p *posts.Post
					if p, err = randomPost(time.Now()); err == nil {
						err = st.Create(ctx, p)
						count(&ops.created)
					}
				case i%3 == 1: // a post's hashtags edited: one dropped, another added
					old := older[order[i]]
					edited := *old
					edited.Hashtags = append(slices.Clone(old.Hashtags[min(1, len(old.Hashtags)):]), evolveTags[rand.N(len(evolveTags))])
					if edited.Hashtags, err = posts.NormalizeHashtags(edited.Hashtags); err == nil {
						_, err = st.Model.Update(ctx, old, &edited)
						count(&ops.edited)
					}
				default:
					err = st.Delete(ctx, older[order[i]].ID)
					count(&ops.deleted)
				}
				if err != nil {
					failed.Store(fmt.Errorf("service write during the backfill: %w", err))
					return
				}
			}
		}()
	}
	return func() churnOps {
		wg.Wait()
		if err, ok := failed.Load().(error); ok {
			t.Fatal(err)
		}
		return ops
	}
}

// independentHashtags reads posts_by_id and posts_by_hashtag whole with plain queries and
// returns each hashtag's post ids, sorted, after checking that both tables agree: every
// (post, hashtag) of posts_by_id has its row in posts_by_hashtag under the month of the
// post id's time, computed here from the UUID's time, with the same content and user, and
// posts_by_hashtag has no other row.
func independentHashtags(t *testing.T, s *gocql.Session, ks string) map[string][]string {
	t.Helper()
	type row struct {
		user    gocql.UUID
		content string
	}
	expected := map[string]row{} // hashtag/month/post_id -> row
	byTag := map[string][]string{}
	iter := s.Query("SELECT post_id, user_id, content, hashtags FROM " + ks + ".posts_by_id").Consistency(gocql.Quorum).Iter()
	var id, user gocql.UUID
	var content string
	var tags []string
	for iter.Scan(&id, &user, &content, &tags) {
		month := id.Time().UTC().Format("2006-01")
		for _, tag := range tags {
			expected[tag+"/"+month+"/"+id.String()] = row{user, content}
			byTag[tag] = append(byTag[tag], id.String())
		}
		tags = nil
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	found := 0
	iter = s.Query("SELECT hashtag, month, post_id, user_id, content FROM " + ks + ".posts_by_hashtag").Consistency(gocql.Quorum).Iter()
	var tag, month string
	for iter.Scan(&tag, &month, &id, &user, &content) {
		key := tag + "/" + month + "/" + id.String()
		want, ok := expected[key]
		switch {
		case !ok:
			t.Errorf("posts_by_hashtag has %s, which no post of posts_by_id has (a deleted post or a removed hashtag brought back)", key)
		case want != row{user, content}:
			t.Errorf("posts_by_hashtag %s: user %s content %q, posts_by_id has %s %q", key, user, content, want.user, want.content)
		default:
			found++
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if found != len(expected) {
		t.Errorf("posts_by_hashtag has %d of the %d (post, hashtag) rows posts_by_id says it should", found, len(expected))
	}
	for tag := range byTag {
		sort.Strings(byTag[tag])
	}
	return byTag
}

// liveTables lists the keyspace's tables as the node has them.
func liveTables(t *testing.T, s *gocql.Session, ks string) []string {
	t.Helper()
	iter := s.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", ks).Iter()
	var names []string
	var name string
	for iter.Scan(&name) {
		if !strings.HasPrefix(name, "cqlsize_migrations") && !strings.HasPrefix(name, "cqlsize_lock") {
			names = append(names, name)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}
