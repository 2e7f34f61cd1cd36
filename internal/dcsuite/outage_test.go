package dcsuite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/internal/backfillcheck"
	"github.com/cqlsize/cqlsize/internal/cqlsizebin"
	"github.com/cqlsize/cqlsize/internal/dctest"
	"github.com/cqlsize/cqlsize/internal/ddl"
)

// The migrations applied during the outage: a counter per data migration shows a second
// application (counter updates are not idempotent).
var migrationFiles = map[string]string{
	"0001_runs.cql": `CREATE TABLE IF NOT EXISTS runs (k text PRIMARY KEY, n counter);
UPDATE runs SET n = n + 1 WHERE k = 'm1';`,
	"0002_items.cql": `CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY, v text);
INSERT INTO items (id, v) VALUES (1, 'one');
UPDATE runs SET n = n + 1 WHERE k = 'm2';`,
	"0003_extra.cql": `ALTER TABLE items ADD extra text;
UPDATE runs SET n = n + 1 WHERE k = 'm3';`,
}

// The denormalized tables written through cql/denorm.
// createdTable finds the table a CREATE TABLE of postsCQL creates.
var createdTable = regexp.MustCompile(`(?i)^\s*CREATE TABLE (?:IF NOT EXISTS )?(\w+)`)

const postsCQL = `
CREATE TABLE posts_by_id (post_id timeuuid PRIMARY KEY, user_id uuid, content text, hashtags frozen<set<text>>, created_at timestamp);
CREATE TABLE posts_by_user (user_id uuid, month text, post_id timeuuid, content text, hashtags frozen<set<text>>,
  PRIMARY KEY ((user_id, month), post_id)) WITH CLUSTERING ORDER BY (post_id DESC);
CREATE TABLE posts_by_hashtag (hashtag text, month text, post_id timeuuid, user_id uuid, content text,
  PRIMARY KEY ((hashtag, month), post_id)) WITH CLUSTERING ORDER BY (post_id DESC);
`

var denormTables = []string{"posts_by_id", "posts_by_user", "posts_by_hashtag"}

type post struct {
	ID       gocql.UUID
	UserID   gocql.UUID
	Content  string
	Hashtags []string
	Created  time.Time
}

var months = func() bucket.Scheme {
	s, err := bucket.New(bucket.Month())
	if err != nil {
		panic(err)
	}
	return s
}()

func monthOf(id gocql.UUID) string {
	t, err := bucket.UUIDTime(id)
	if err != nil {
		panic(err)
	}
	return months.For(t).String()
}

func postModel(t *testing.T, s *gocql.Session, ks string, c gocql.Consistency) *denorm.Model[post] {
	t.Helper()
	schema := cql.NewSchema()
	src := "CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\nUSE " + ks + ";\n" + postsCQL
	if err := schema.ApplyFile("posts.cql", []byte(src)); err != nil {
		t.Fatal(err)
	}
	m, err := denorm.New(s, schema, denorm.Options{Consistency: c},
		denorm.Map("posts_by_id", func(p *post, out *denorm.Rows) error {
			out.Add().Set("post_id", p.ID).Set("user_id", p.UserID).Set("content", p.Content).Set("hashtags", p.Hashtags).Set("created_at", p.Created)
			return nil
		}),
		denorm.Map("posts_by_user", func(p *post, out *denorm.Rows) error {
			out.Add().Set("user_id", p.UserID).Set("month", monthOf(p.ID)).Set("post_id", p.ID).Set("content", p.Content).Set("hashtags", p.Hashtags)
			return nil
		}),
		denorm.Map("posts_by_hashtag", func(p *post, out *denorm.Rows) error {
			for _, h := range p.Hashtags {
				out.Add().Set("hashtag", h).Set("month", monthOf(p.ID)).Set("post_id", p.ID).Set("user_id", p.UserID).Set("content", p.Content)
			}
			return nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// modelSession is a session routed to dc first, bound to ks, configured as cql/denorm
// asks (its retry policy).
func modelSession(t *testing.T, dc, ks string) *gocql.Session {
	t.Helper()
	cfg := dctest.Config(t, dc)
	cfg.Keyspace = ks
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := denorm.ConfigureCluster(cc, denorm.ClusterOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(ctx, cqlsizebin.Path(t), args...)
	cmd.Env = append(os.Environ(), "CASSANDRA_HOSTS="+strings.Join(dctest.Hosts(t), ","))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("cqlsize %s: %v", strings.Join(args, " "), err)
	}
	return r
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// TestDCsOutage takes dc2 away once, whole (SIGKILL), and while it is gone runs what the
// issue asks to survive the loss of a DC: a backfill pinned to dc1 (killed mid-copy),
// denormalized writes at LOCAL_QUORUM (and one at EACH_QUORUM, which must be refused), and
// migrations (the default refused, --serial local applied). Hinted handoff is off on dc1's
// nodes throughout, so nothing reaches dc2 but what the tool's named repair brings. dc2
// then returns once, the repair the migration run printed is run as printed, and every
// check is made in each DC by readers of their own.
func TestDCsOutage(t *testing.T) {
	dctest.Lock(t)
	ks := dctest.Keyspace(t, 2)
	cqlsizebin.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	var dc1Nodes []int
	for _, n := range dctest.Nodes(t) {
		if n.DC == "dc1" {
			dc1Nodes = append(dc1Nodes, n.N)
		}
	}

	// Tables: the backfill's source and target, the denormalized model's.
	bound := modelSession(t, "dc1", ks)
	tb := backfillcheck.Tables{Source: "posts", Month: "posts_by_month"}
	stmts, err := cql.SplitStatements("posts.cql", []byte(postsCQL))
	if err != nil {
		t.Fatal(err)
	}
	// Each sent as cqlsize sends its own tables: a send whose answer is lost to a busy
	// node's delay is checked, and sent again only when the table is not there.
	setup := map[string]string{tb.Source: backfillcheck.SourceDDL(tb.Source), tb.Month: backfillcheck.MonthDDL(tb.Month)}
	order := []string{tb.Source, tb.Month}
	for _, st := range stmts {
		m := createdTable.FindStringSubmatch(st.Text)
		if m == nil {
			t.Fatalf("%s: not a CREATE TABLE", st.Pos)
		}
		setup[m[1]] = st.Text
		order = append(order, m[1])
	}
	for _, name := range order {
		if err := ddl.CreateTableCQL(ctx, bound, "test", ks, name, setup[name], ddl.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := dctest.AwaitAgreement(ctx, t); err != nil {
		t.Fatal(err)
	}
	// The source in both DCs before the loss: EACH_QUORUM.
	const sourceRows = 3000
	if _, err := backfillcheck.Generate(ctx, bound, tb, backfillcheck.Spec{Rows: sourceRows, Seed: 26, Consistency: gocql.EachQuorum, Workers: 16}); err != nil {
		t.Fatal(err)
	}
	each := postModel(t, bound, ks, gocql.EachQuorum)
	if _, err := each.Insert(ctx, newPost(gocql.TimeUUID(), "both")); err != nil {
		t.Fatalf("EACH_QUORUM with both DCs up: %v", err)
	}

	// No hints from dc1: what dc2 gets back must come from the repair.
	for _, n := range dc1Nodes {
		dctest.Nodetool(t, n, "disablehandoff")
	}
	t.Cleanup(func() {
		for _, n := range dc1Nodes {
			dctest.Nodetool(t, n, "enablehandoff")
		}
	})

	// The backfill, pinned to dc1 and slowed so that the kill comes mid-copy.
	backfillArgs := []string{"backfill", "-k", ks, "--from", tb.Source, "--to", tb.Month, "--derive", "month=month(created_at)",
		"--local-dc", "dc1", "--rate", "150/s", "--ranges", "64"}
	var bf result
	bfDone := make(chan struct{})
	go func() { defer close(bfDone); bf = run(t, ctx, backfillArgs...) }()

	// Denormalized writes at LOCAL_QUORUM, routed to dc1, for 4 users.
	users := []gocql.UUID{gocql.TimeUUID(), gocql.TimeUUID(), gocql.TimeUUID(), gocql.TimeUUID()}
	local := postModel(t, bound, ks, gocql.LocalQuorum)
	var (
		mu      sync.Mutex
		written []*post
		failed  atomic.Int64
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := newPost(users[(2*i+w)%len(users)], "dc", fmt.Sprintf("w%d", w))
				if _, err := local.Insert(ctx, p); err != nil {
					failed.Add(1)
					t.Errorf("LOCAL_QUORUM insert %s: %v", p.ID, err)
					continue
				}
				mu.Lock()
				written = append(written, p)
				mu.Unlock()
				time.Sleep(100 * time.Millisecond) // a steady trickle: each post is read back later
			}
		}(w)
	}
	waitCopying(t, bound, ks, bfDone)
	dctest.Kill(t, "dc2")
	killed := time.Now()
	mu.Lock()
	killedAt := len(written)
	mu.Unlock()
	t.Logf("dc2 SIGKILLed mid-copy (%d posts written before)", killedAt)
	dctest.WaitSeenDown(t, "dc2", 2*time.Minute)

	// EACH_QUORUM with dc2 gone: refused, naming the level, nothing applied.
	refused := newPost(users[0], "each")
	_, err = each.Insert(ctx, refused)
	var un *gocql.RequestErrUnavailable
	if err == nil || !errors.As(err, &un) || !strings.Contains(err.Error(), "EACH_QUORUM") {
		t.Errorf("EACH_QUORUM insert with dc2 down: %v; want Unavailable naming EACH_QUORUM", err)
	} else {
		t.Logf("EACH_QUORUM with dc2 down: %v", err)
	}

	// Migrations: the default refuses before anything runs; --serial local applies in dc1.
	mdir := t.TempDir()
	for name, src := range migrationFiles {
		if err := os.WriteFile(filepath.Join(mdir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := run(t, ctx, "migrate", "up", "--keyspace", ks, "--dir", mdir, "--local-dc", "dc1")
	if r.code != 3 || !strings.Contains(r.stderr, "dc2 short of replicas") || !strings.Contains(r.stderr, "Nothing was run") {
		t.Fatalf("default migrate up with dc2 down: want exit 3 naming dc2\n%s", r)
	}
	var tables int
	if err := bound.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'cqlsize_migrations'`, ks).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("the refused run left the bookkeeping table (%d, %v): it must send nothing", tables, err)
	}
	up := run(t, ctx, "migrate", "up", "--keyspace", ks, "--dir", mdir, "--local-dc", "dc1", "--serial", "local")
	if up.code != 0 || !strings.Contains(up.stdout, "now at version 3") {
		t.Fatalf("--serial local with dc2 down:\n%s", up)
	}
	t.Logf("migrate up --serial local with dc2 down:\n%s", up.stderr)
	repairs := regexp.MustCompile(`(?m)^\s+on (\S+): (nodetool repair .*)$`).FindAllStringSubmatch(up.stderr, -1)
	if len(repairs) == 0 {
		t.Fatalf("--serial local applied with dc2 down and named no repair:\n%s", up.stderr)
	}
	// The keyspace has 2 replicas in dc2's 2 nodes: each of them holds every range, so one
	// full repair on one of them repairs everything; the DCs' agreement below proves it.
	if len(repairs) != 1 {
		t.Errorf("--serial local named %d repairs, want 1 (every node of dc2 is a replica of every range):\n%s", len(repairs), up.stderr)
	}
	if r := run(t, ctx, "migrate", "dcs", "--keyspace", ks, "--local-dc", "dc2"); r.code != 3 {
		t.Errorf("migrate dcs --local-dc dc2 with dc2 down: want exit 3\n%s", r)
	}

	// Let the writers run through the loss, then stop them.
	if d := 10*time.Second - time.Since(killed); d > 0 {
		time.Sleep(d)
	}
	close(stop)
	wg.Wait()
	t.Logf("denorm: %d posts written at LOCAL_QUORUM (%d after dc2 was killed), %d failed", len(written), len(written)-killedAt, failed.Load())
	if failed.Load() != 0 || len(written)-killedAt < 10 {
		t.Fatalf("denorm through the loss of dc2: %d failed (want 0), %d written after the kill (want 10 or more)", failed.Load(), len(written)-killedAt)
	}
	<-bfDone
	t.Logf("backfill through the loss of dc2:\n%s", bf)
	if bf.code == 3 {
		// Exit 3 is the documented answer to trouble (here a range lease that could not
		// be renewed in time while dc2 went away): run it again and it continues with the
		// ranges left. The data must still come out whole.
		bf = run(t, ctx, backfillArgs...)
		t.Logf("backfill run again after exit 3:\n%s", bf)
	}
	if bf.code != 0 {
		t.Fatalf("backfill pinned to dc1 with dc2 killed mid-copy: want exit 0\n%s", bf)
	}
	if !strings.Contains(bf.stdout, "0 left") {
		t.Errorf("backfill left ranges:\n%s", bf.stdout)
	}

	// In dc1, with dc2 still down: the backfill whole by the independent checker, every
	// post whole in all three tables, and each user's timeline exactly its posts.
	dc1s := dctest.DCSession(t, "dc1", ks)
	checkBackfill(t, ctx, dc1s, tb, "dc1")
	if id, user, tag := copies(t, dc1s, refused); id+user+tag != 0 {
		t.Errorf("the refused EACH_QUORUM batch left rows in dc1: %d, %d, %d", id, user, tag)
	}
	var incomplete atomic.Int64
	var readers sync.WaitGroup
	for r := 0; r < 8; r++ {
		readers.Add(1)
		go func(r int) {
			defer readers.Done()
			for i := r; i < len(written); i += 8 {
				p := written[i]
				if id, user, tag := copies(t, dc1s, p); id != 1 || user != 1 || tag != len(p.Hashtags) {
					incomplete.Add(1)
				}
			}
		}(r)
	}
	readers.Wait()
	if incomplete := incomplete.Load(); incomplete > 0 {
		t.Errorf("%d of %d posts incomplete at LOCAL_QUORUM in dc1", incomplete, len(written))
	}
	checkTimelines(t, ctx, dc1s, users, written)

	// dc2 returns, once. Before the repair it lacks the history (no hints reached it).
	dctest.Start(t, "dc2")
	if err := dctest.AwaitAgreement(ctx, t); err != nil {
		t.Fatalf("after dc2 returned: %v", err)
	}
	if r := run(t, ctx, "migrate", "dcs", "--keyspace", ks); r.code != 1 || !strings.Contains(r.stdout, "dc2") {
		t.Errorf("migrate dcs before the repair: want exit 1 naming dc2\n%s", r)
	} else {
		t.Logf("migrate dcs before the repair:\n%s", r.stdout)
	}
	// The independent reader sees the difference before the repair (so it can fail).
	dc2s := dctest.DCSession(t, "dc2", ks)
	if a, b := tableRows(t, dc1s, "posts_by_id"), tableRows(t, dc2s, "posts_by_id"); differing(a, b) == 0 {
		t.Errorf("posts_by_id: the same %d rows in dc1 and dc2 before the repair: the writes during the outage reached dc2 (hints were off)", len(a))
	} else {
		t.Logf("before the repair: posts_by_id holds %d rows in dc1, %d in dc2", len(a), len(b))
	}
	// The repair, exactly as the migration run printed it, on the nodes it named.
	began := time.Now()
	for _, rp := range repairs {
		n := dctest.NodeOf(t, rp[1])
		args := strings.Fields(strings.TrimPrefix(rp[2], "nodetool "))
		dctest.Nodetool(t, n.N, args...)
		t.Logf("on %s (node %d): %s", rp[1], n.N, rp[2])
	}
	t.Logf("repairs took %s", time.Since(began).Round(time.Second))
	if r := run(t, ctx, "migrate", "dcs", "--keyspace", ks, "--local-dc", "dc2"); r.code != 0 {
		t.Errorf("migrate dcs --local-dc dc2 after the repair: want exit 0\n%s", r)
	}

	// Each DC by readers of its own: the same rows in every table.
	for _, table := range append([]string{tb.Source, tb.Month, "runs", "items", "cqlsize_migrations"}, denormTables...) {
		a, b := tableRows(t, dc1s, table), tableRows(t, dc2s, table)
		if diff := differing(a, b); diff != 0 || len(a) == 0 {
			t.Errorf("%s: %d rows in dc1, %d in dc2, %d differ; want the same, and some", table, len(a), len(b), diff)
		} else {
			t.Logf("%s: %d rows, the same in dc1 and dc2", table, len(a))
		}
	}
	counters := tableRows(t, dc2s, "runs")
	for _, k := range []string{"m1", "m2", "m3"} {
		if !counters["k="+k+" n=1"] {
			t.Errorf("dc2: runs counter %s not 1 (each data migration applied once): %v", k, counters)
		}
	}
	checkBackfill(t, ctx, dc2s, tb, "dc2")
	checkTimelines(t, ctx, dc2s, users, written)
	v := run(t, ctx, append(backfillArgs[:9:9], "--verify", "--full", "--verify-dc", "each", "--workers", "16")...)
	if v.code != 0 || !strings.Contains(v.stdout, "in dc1 (all the source rows)") || !strings.Contains(v.stdout, "in dc2 (all the source rows)") ||
		strings.Count(v.stdout, " 0 missing, 0 different") != 2 {
		t.Errorf("backfill --verify --verify-dc each after the repair: want 0 missing in each DC\n%s", v)
	} else {
		t.Logf("%s", v.stdout)
	}
	// The same in JSON, on a sample: one array, an object naming each DC.
	j := run(t, ctx, append(backfillArgs[:9:9], "--verify", "--sample", "200", "--verify-dc", "each", "--format", "json")...)
	var perDC []struct {
		DC      string `json:"dc"`
		Missing int64  `json:"missing"`
		Source  int64  `json:"source_rows"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &perDC); err != nil || j.code != 0 || len(perDC) != 2 ||
		perDC[0].DC != "dc1" || perDC[1].DC != "dc2" || perDC[0].Source == 0 || perDC[1].Source == 0 || perDC[0].Missing+perDC[1].Missing != 0 {
		t.Errorf("backfill --verify --verify-dc each --format json: %v; want one array of dc1 and dc2, nothing missing\n%s", err, j)
	}
	if r := run(t, ctx, "migrate", "up", "--keyspace", ks, "--dir", mdir, "--local-dc", "dc2"); r.code != 0 || !strings.Contains(r.stdout, "up to date, at version 3") {
		t.Errorf("default migrate up routed to dc2 after the repair: want up to date\n%s", r)
	}
}

func newPost(user gocql.UUID, tags ...string) *post {
	return &post{ID: gocql.TimeUUID(), UserID: user, Content: "hello " + strings.Join(tags, " "), Hashtags: tags,
		Created: time.Now().UTC().Truncate(time.Millisecond)}
}

// waitCopying waits until the backfill has recorded a range copied, so that the kill
// comes mid-copy.
func waitCopying(t *testing.T, s *gocql.Session, ks string, done <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			t.Fatal("the backfill ended before dc2 was killed: the test proves nothing (slow it down)")
		default:
		}
		var n int
		if err := s.Query(`SELECT count(*) FROM ` + ks + `.cqlsize_backfill`).Consistency(gocql.LocalQuorum).Scan(&n); err == nil && n > 1 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the backfill copied no range in 3 minutes")
}

// copies counts p's rows in each table, read through s at LOCAL_QUORUM.
func copies(t *testing.T, s *gocql.Session, p *post) (byID, byUser, byTag int) {
	n := func(q string, args ...any) int {
		iter := s.Query(q, args...).Consistency(gocql.LocalQuorum).Iter()
		k := iter.NumRows()
		if err := iter.Close(); err != nil {
			t.Errorf("%s: %v", q, err)
			return -1
		}
		return k
	}
	m := monthOf(p.ID)
	byID = n("SELECT post_id FROM posts_by_id WHERE post_id = ?", p.ID)
	byUser = n("SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?", p.UserID, m, p.ID)
	for _, h := range p.Hashtags {
		byTag += n("SELECT post_id FROM posts_by_hashtag WHERE hashtag = ? AND month = ? AND post_id = ?", h, m, p.ID)
	}
	return
}

// checkTimelines pages each user's timeline through cql/denorm's reader on s and wants
// exactly the user's posts, newest first (time UUIDs of one process order as created).
func checkTimelines(t *testing.T, ctx context.Context, s *gocql.Session, users []gocql.UUID, written []*post) {
	t.Helper()
	tl := &denorm.Timeline{Session: s, Query: "SELECT post_id, content FROM posts_by_user WHERE user_id = ? AND month = ?",
		Scheme: months, Retention: 24 * time.Hour, Consistency: gocql.LocalQuorum}
	for _, u := range users {
		var want []string
		for _, p := range written {
			if p.UserID == u {
				want = append(want, p.ID.String())
			}
		}
		var got []string
		token := ""
		for pages := 0; pages < 100; pages++ {
			page, err := tl.Page(ctx, denorm.PageRequest{Key: []any{u}, Limit: 200, Token: token})
			if err != nil {
				t.Fatalf("timeline of %s: %v", u, err)
			}
			for _, row := range page.Rows {
				got = append(got, row["post_id"].(gocql.UUID).String())
			}
			if token = page.Next; token == "" {
				break
			}
		}
		for i := 1; i < len(got); i++ {
			if uuidTime(got[i]).After(uuidTime(got[i-1])) {
				t.Errorf("timeline of user %s: post %d (%s) is newer than the one before it", u, i, got[i])
				break
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("timeline of user %s: %d posts, want the %d written", u, len(got), len(want))
		}
	}
}

func uuidTime(s string) time.Time {
	u, err := gocql.ParseUUID(s)
	if err != nil {
		panic(err)
	}
	return u.Time()
}

// checkBackfill compares the target with the source, both read through s at LOCAL_QUORUM,
// with internal/backfillcheck's checker (its own derivation of the target rows).
func checkBackfill(t *testing.T, ctx context.Context, s *gocql.Session, tb backfillcheck.Tables, dc string) {
	t.Helper()
	opts := backfillcheck.ReadOptions{Consistency: gocql.LocalQuorum}
	src, err := backfillcheck.ReadSource(ctx, s, tb.Source, opts)
	if err != nil {
		t.Fatal(err)
	}
	found, err := backfillcheck.ReadMonth(ctx, s, tb.Month, opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := backfillcheck.Compare(tb.Month, backfillcheck.ExpectMonth(src), found, time.Hour)
	if !rep.OK() || rep.Expected == 0 {
		t.Errorf("%s: the checker disagrees with the backfill: %s", dc, rep)
	} else {
		t.Logf("%s: %d source rows; %s", dc, len(src), rep)
	}
}

// tableRows reads every row of table through s at LOCAL_QUORUM, each as the text of its
// columns and values, sorted by column.
func tableRows(t *testing.T, s *gocql.Session, table string) map[string]bool {
	t.Helper()
	iter := s.Query("SELECT * FROM " + table).Consistency(gocql.LocalQuorum).PageSize(1000).Iter()
	out := map[string]bool{}
	for {
		row := map[string]any{}
		if !iter.MapScan(row) {
			break
		}
		keys := make([]string, 0, len(row))
		for k := range row {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%v", k, row[k])
		}
		out[strings.Join(parts, " ")] = true
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	return out
}

// differing counts rows in one set and not the other.
func differing(a, b map[string]bool) int {
	n := 0
	for k := range a {
		if !b[k] {
			n++
		}
	}
	for k := range b {
		if !a[k] {
			n++
		}
	}
	return n
}
